"""``Fanout`` (one dispatch and one shared lock for the span and metric observers, issue 15)
records exactly what the two observers record when each is subscribed to the bus alone:
the same spans (names, kinds, parents, attributes, span events, statuses, times) and the
same metric samples and exemplars, for any sequence of events, in or out of the loop's
order. Trace and span ids come from a counter, so both runs name the same traces alike."""

from __future__ import annotations

import dataclasses
import itertools
import re
import threading
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from prometheus_client import CollectorRegistry
from prometheus_client.openmetrics.exposition import generate_latest

from harness.events import Event, EventBus, TrimTrigger
from harness.telemetry import names as n
from harness.telemetry.fanout import Fanout
from harness.telemetry.otel import OtelObserver, event_clock_ns
from harness.telemetry.prom import PrometheusObserver
from tests.telemetry.scripted import Script, scripted_session


class _Counting(IdGenerator):
    """Ids 1, 2, 3, ...: two runs that start spans in the same order get the same ids."""

    def __init__(self) -> None:
        self._next = itertools.count(1)

    def generate_span_id(self) -> int:
        return next(self._next)

    def generate_trace_id(self) -> int:
        return next(self._next)


@dataclasses.dataclass
class _Run:
    exporter: InMemorySpanExporter
    registry: CollectorRegistry
    otel: OtelObserver
    prom: PrometheusObserver


def _observers(lock: threading.Lock | None) -> _Run:
    exporter, registry = InMemorySpanExporter(), CollectorRegistry()
    provider = TracerProvider(id_generator=_Counting())
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    otel = OtelObserver(provider, clock_to_ns=event_clock_ns, lock=lock)
    prom = PrometheusObserver(registry, exemplars=otel.exemplar_of, lock=lock)
    return _Run(exporter, registry, otel, prom)


def _plain(events: Sequence[Event]) -> _Run:
    """Each observer subscribed alone, with a lock of its own (the path before Fanout)."""
    run, bus = _observers(None), EventBus(strict=True)
    bus.subscribe(run.otel)
    bus.subscribe(run.prom)
    for event in events:
        bus.publish(event)
    run.otel.close()
    run.prom.close()
    return run


def _fanned(events: Sequence[Event]) -> _Run:
    run, bus = _observers(threading.Lock()), EventBus(strict=True)
    bus.subscribe(Fanout((run.otel, run.prom)))
    for event in events:
        bus.publish(event)
    run.otel.close()
    run.prom.close()
    return run


def _spans(run: _Run) -> list[tuple[object, ...]]:
    def timed(span: ReadableSpan) -> tuple[int | None, int | None]:
        # spans ``close`` ends unfinished take the wall clock: their times cannot match
        if (span.attributes or {}).get(n.ATTR_INCOMPLETE):
            return None, None
        return span.start_time, span.end_time

    return sorted(
        (
            span.context.trace_id,
            span.context.span_id,
            span.parent.span_id if span.parent else None,
            span.name,
            str(span.kind),
            sorted((span.attributes or {}).items()),
            [
                (event.name, event.timestamp, sorted((event.attributes or {}).items()))
                for event in span.events
            ],
            str(span.status.status_code),
            span.status.description,
            *timed(span),
        )
        for span in run.exporter.get_finished_spans()
    )


_EXEMPLAR_TIME = re.compile(r"(# \{[^}]*\} \S+) \S+$")


def _metrics(run: _Run) -> list[str]:
    """OpenMetrics text (it shows exemplars), without the wall-clock parts: ``_created``
    samples and exemplar timestamps."""
    text = generate_latest(run.registry).decode()
    lines = (_EXEMPLAR_TIME.sub(r"\1", line) for line in text.splitlines())
    return [line for line in lines if "_created" not in line]


def _assert_same(events: Sequence[Event]) -> None:
    plain, fanned = _plain(events), _fanned(events)
    assert _spans(fanned) == _spans(plain)
    assert _metrics(fanned) == _metrics(plain)


def test_the_scripted_sessions_record_the_same_through_fanout() -> None:
    events = scripted_session("s1") + scripted_session("s2")
    plain = _plain(events)
    assert plain.exporter.get_finished_spans()  # the comparison is not of empty runs
    assert any("# {trace_id=" in line for line in _metrics(plain))  # exemplars compared too
    _assert_same(events)


_TRIGGERS = list(TrimTrigger)


def _step(script: Script, action: int, trigger: TrimTrigger) -> None:
    """One of the scripted moments of a session, in whatever order they are drawn."""
    last_call = f"{script.session_id}-c{script._calls}"
    steps: list[Callable[[], object]] = [
        script.turn,
        script.end_turn,
        lambda: script.end_turn("error", "ContextWindowExceeded"),
        script.budget,
        lambda: script.trim(trigger),
        lambda: script.capacity(5000),
        lambda: script.capacity(9000, fits=False),
        lambda: script.call(5000, input_tokens=6000),
        lambda: script.overflow(script.call(7900, outcome="overflow")),
        lambda: script.overflow(script.call(7990, outcome="overflow"), "only_one_turn_left"),
        lambda: script.tool(truncated=action % 2 == 0),
        lambda: script.retried_call(5000, ("rate_limited", "ok")),
        lambda: script.provider_edit(last_call, "clear_tool_uses", cleared=800),
        lambda: script.provider_edit(last_call, "compaction", compaction="failed"),
        lambda: script.call(5000, compacted=True, outcome="server_error"),
    ]
    steps[action % len(steps)]()


@st.composite
def _event_sequences(draw: st.DrawFn) -> list[Event]:
    scripts = [Script(session_id=f"s{i}") for i in range(3)]
    scripts[2].model = None  # type: ignore[assignment]  # a route without a model
    drawn = st.tuples(
        st.integers(0, len(scripts) - 1), st.integers(0, 29), st.sampled_from(_TRIGGERS)
    )
    for session, action, trigger in draw(st.lists(drawn, max_size=40)):
        _step(scripts[session], action, trigger)
    # interleave the sessions by their clocks (every script counts from the same start)
    return sorted((e for s in scripts for e in s.events), key=lambda e: e.at)


@settings(max_examples=60, deadline=None)
@given(_event_sequences())
def test_any_event_sequence_records_the_same_through_fanout(events: list[Event]) -> None:
    _assert_same(events)


class _Raising:
    def __init__(self, lock: threading.Lock, seen: list[str], name: str) -> None:
        self.lock, self._seen, self._name = lock, seen, name

    def unlocked_handler(self, event: Event) -> Callable[[Event], None]:
        def handle(event: Event) -> None:
            assert self.lock.locked()  # handlers run with the shared lock held
            self._seen.append(self._name)
            if self._name.startswith("bad"):
                raise RuntimeError(self._name)

        return handle


def test_a_failing_observer_does_not_keep_the_event_from_the_next() -> None:
    lock, seen = threading.Lock(), list[str]()
    fanout = Fanout(
        [_Raising(lock, seen, "bad1"), _Raising(lock, seen, "bad2"), _Raising(lock, seen, "ok")]
    )
    bus = EventBus()
    bus.subscribe(fanout)
    bus.publish(scripted_session()[0])
    assert seen == ["bad1", "bad2", "ok"]
    assert [(f.observer, f.error) for f in bus.failures] == [("Fanout", "RuntimeError('bad1')")]
    assert not lock.locked()


@pytest.mark.parametrize("names", [("bad1", "ok"), ("bad1", "bad2"), ("ok", "bad2")])
def test_a_pair_of_observers_is_isolated_alike(names: tuple[str, str]) -> None:
    # two observers (the usual pair) take a path of their own, without the loop
    lock, seen = threading.Lock(), list[str]()
    bus = EventBus()
    bus.subscribe(Fanout([_Raising(lock, seen, name) for name in names]))
    bus.publish(scripted_session()[0])
    assert seen == list(names)
    first = next(name for name in names if name.startswith("bad"))
    assert [(f.observer, f.error) for f in bus.failures] == [("Fanout", f"RuntimeError('{first}')")]
    assert not lock.locked()


def test_observers_with_locks_of_their_own_are_refused() -> None:
    seen = list[str]()
    with pytest.raises(ValueError, match="share one lock"):
        Fanout([_Raising(threading.Lock(), seen, "a"), _Raising(threading.Lock(), seen, "b")])
    with pytest.raises(ValueError, match="at least one"):
        Fanout([])
