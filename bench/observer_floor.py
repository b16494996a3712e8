"""The observers against their floor: the same SDK calls made with no trimscope code.

One load run's events are recorded once. Then, interleaved, one call each per round, on a
fresh tracer provider (every trace recorded, a simple processor, spans dropped by the
exporter) and a fresh registry each time:

- **observers**: the events published, in order, to one ``Fanout`` of ``OtelObserver``
  then ``PrometheusObserver`` sharing a lock (as ``build_telemetry`` wires them);
- **SDK floor**: the spans, span events, attributes, statuses and metric updates those
  observers made for these events, replayed straight into the OpenTelemetry SDK and
  prometheus-client from a flat program recorded beforehand (recording proxies around
  the tracer, the spans and the metric children log every call the observers make).

The floor is generous to the SDK: label children are looked up before the clock starts,
exemplars are the recorded strings (no trace id is read or formatted), and the parent
context of a turn's spans is built once per agent span. Its only non-SDK cost is the loop
that reads the program, one tuple per call. Timings are CPU time (``bench.timing``).

``compare`` runs both on fresh state each round, back to back, in alternating order (so
neither always runs on the caches the other warmed), and judges the median of the
per-round ratios: a neighbour that slows the machine for a while slows both sides of the
rounds it touches alike. ``python -m bench.observer_floor_alone`` records one bench load
run and prints the comparison alone (``python -m bench load`` prints it among its goals).
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from prometheus_client import CollectorRegistry

from bench.timing import CLOCK, gc_paused
from harness.events import Event
from harness.telemetry import names as n
from harness.telemetry.fanout import Fanout
from harness.telemetry.metrics import Children, MetricSet
from harness.telemetry.otel import OtelObserver
from harness.telemetry.prom import PrometheusObserver

GOAL_FLOOR_RATIO = 1.15
"""Issue 15: the observers cost at most this much of the SDK floor for the same run."""
FLOOR_ROUNDS = 11
"""Rounds of the comparison; the verdict reads the median of their ratios. One round of
each side is about 0.3 s of CPU on the bench load run's events."""

# Program codes (the first item of each instruction).
_START, _ATTR, _ATTRS, _EVENT, _STATUS, _END, _METRIC = range(7)


@dataclass
class EventRecorder:
    """An observer that keeps every event, in order."""

    events: list[Event] = field(default_factory=list)

    def on_event(self, event: Event) -> None:
        self.events.append(event)


def provider(exporter: SpanExporter) -> TracerProvider:
    """Every trace recorded; a simple processor, as ``build_telemetry`` uses for extra
    exporters."""
    made = TracerProvider(sampler=ALWAYS_ON)
    made.add_span_processor(SimpleSpanProcessor(exporter))
    return made


def observers_replay(
    events: Sequence[Event], exporter: SpanExporter, registry: CollectorRegistry | None = None
) -> Callable[[], None]:
    """A call that publishes ``events`` to fresh observers (built before it is called)."""
    lock = threading.Lock()
    otel = OtelObserver(provider(exporter), lock=lock)
    registry = CollectorRegistry() if registry is None else registry
    prom = PrometheusObserver(registry, exemplars=otel.exemplar_of, lock=lock)
    on_event = Fanout((otel, prom)).on_event

    def run() -> None:
        for event in events:
            on_event(event)  # EventBus.publish, without its lock and counters
        otel.close()
        prom.close()

    return run


# ------------------------------------------------------------------------------ recording


class _Program:
    def __init__(self) -> None:
        self.ops: list[tuple[Any, ...]] = []
        self.slots = 0


class _RecordingSpan(trace.Span):
    """Delegates to the real span and logs every call the observer makes on it. A ``Span``
    subclass: the API takes a parent from a context only if it is one."""

    def __init__(self, real: Any, slot: int, program: _Program) -> None:
        self._real, self.slot, self._program = real, slot, program

    def get_span_context(self) -> Any:
        return self._real.get_span_context()

    def is_recording(self) -> bool:
        return bool(self._real.is_recording())

    def set_attribute(self, key: str, value: Any) -> None:
        self._program.ops.append((_ATTR, self.slot, key, value))
        self._real.set_attribute(key, value)

    def set_attributes(self, attributes: Mapping[str, Any]) -> None:
        self._program.ops.append((_ATTRS, self.slot, dict(attributes)))
        self._real.set_attributes(attributes)

    def add_event(self, name: str, attributes: Any = None, timestamp: Any = None) -> None:
        self._program.ops.append((_EVENT, self.slot, name, dict(attributes or {}), timestamp))
        self._real.add_event(name, attributes, timestamp=timestamp)

    def set_status(self, status: Any, description: str | None = None) -> None:
        self._program.ops.append((_STATUS, self.slot, status, description))
        self._real.set_status(status, description)

    def end(self, end_time: Any = None) -> None:
        self._program.ops.append((_END, self.slot, end_time))
        self._real.end(end_time=end_time)

    def update_name(self, name: str) -> None:
        raise NotImplementedError("the observers never rename a span")

    def record_exception(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("the observers never record an exception")


class _RecordingTracer:
    def __init__(self, real: Any, program: _Program) -> None:
        self._real, self._program = real, program

    def start_span(
        self,
        name: str,
        context: Context | None = None,
        kind: Any = None,
        attributes: Any = None,
        start_time: Any = None,
    ) -> _RecordingSpan:
        parent = trace.get_current_span(context) if context is not None else None
        parent_slot = parent.slot if isinstance(parent, _RecordingSpan) else None
        slot = self._program.slots
        self._program.slots += 1
        self._program.ops.append(
            (_START, slot, name, parent_slot, kind, dict(attributes or {}), start_time)
        )
        real = self._real.start_span(
            name, context=context, kind=kind, attributes=attributes, start_time=start_time
        )
        return _RecordingSpan(real, slot, self._program)


class _RecordingProvider:
    def __init__(self, real: TracerProvider, program: _Program) -> None:
        self._real, self._program = real, program

    def get_tracer(self, *args: Any, **kwargs: Any) -> _RecordingTracer:
        return _RecordingTracer(self._real.get_tracer(*args, **kwargs), self._program)


class _RecordingChild:
    def __init__(self, real: Any, key: tuple[str, tuple[str, ...]], program: _Program) -> None:
        self._real, self._key, self._program = real, key, program

    def _log(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self._program.ops.append((_METRIC, self._key, method, args, kwargs))
        getattr(self._real, method)(*args, **kwargs)

    def inc(self, *args: Any, **kwargs: Any) -> None:
        self._log("inc", args, kwargs)

    def observe(self, *args: Any, **kwargs: Any) -> None:
        self._log("observe", args, kwargs)

    def set(self, *args: Any, **kwargs: Any) -> None:
        self._log("set", args, kwargs)


class _RecordingFamily:
    def __init__(self, real: Any, name: str, program: _Program) -> None:
        self._real, self._name, self._program = real, name, program

    def labels(self, *values: str) -> _RecordingChild:
        return _RecordingChild(self._real.labels(*values), (self._name, values), self._program)


def _children_of(observer: PrometheusObserver) -> Iterator[Children]:
    """The observer's label children: its own and those of its family helpers
    (``prom_decisions``, ``prom_wire``: objects with slots)."""
    for value in vars(observer).values():
        if isinstance(value, Children):
            yield value
        for slot in getattr(type(value), "__slots__", ()):
            inner = getattr(value, slot, None)
            if isinstance(inner, Children):
                yield inner


def record_program(events: Sequence[Event], exporter: SpanExporter) -> _Program:
    """Run the observers once on ``events`` through recording proxies: every SDK call they
    make, in order."""
    program = _Program()
    otel = OtelObserver(_RecordingProvider(provider(exporter), program))  # type: ignore[arg-type]
    prom = PrometheusObserver(CollectorRegistry(), exemplars=otel.exemplar_of)
    names = {id(prom.metrics.family(spec)): spec.name for spec in n.METRICS}
    for children in _children_of(prom):
        real = children._family
        children._family = _RecordingFamily(real, names[id(real)], program)
    for event in events:
        otel.on_event(event)
        prom.on_event(event)
    otel.close()
    prom.close()
    return program


# --------------------------------------------------------------------------------- replay


def floor_replay(
    program: _Program, exporter: SpanExporter, registry: CollectorRegistry | None = None
) -> Callable[[], None]:
    """A call that makes the recorded SDK calls on a fresh provider and registry."""
    tracer = provider(exporter).get_tracer(n.INSTRUMENTATION_NAME, schema_url=n.SEMCONV_SCHEMA_URL)
    metrics = MetricSet(CollectorRegistry() if registry is None else registry)
    families = {spec.name: metrics.family(spec) for spec in n.METRICS}
    children: dict[tuple[str, tuple[str, ...]], Any] = {}
    ops: list[tuple[Any, ...]] = []
    for op in program.ops:  # resolve label children and bound methods before the clock
        if op[0] == _METRIC:
            key = op[1]
            if key not in children:
                children[key] = families[key[0]].labels(*key[1])
            ops.append((_METRIC, getattr(children[key], op[2]), op[3], op[4]))
        else:
            ops.append(op)
    slots = program.slots
    start_span, set_span_in_context = tracer.start_span, trace.set_span_in_context

    def run() -> None:
        spans: list[Any] = [None] * slots
        contexts: dict[int, Context] = {}
        for op in ops:
            code = op[0]
            if code == _METRIC:
                op[1](*op[2], **op[3])
            elif code == _START:
                parent = op[3]
                context = None
                if parent is not None:
                    context = contexts.get(parent)
                    if context is None:
                        context = contexts[parent] = set_span_in_context(spans[parent])
                spans[op[1]] = start_span(
                    op[2], context=context, kind=op[4], attributes=op[5], start_time=op[6]
                )
            elif code == _ATTRS:
                spans[op[1]].set_attributes(op[2])
            elif code == _END:
                spans[op[1]].end(end_time=op[2])
            elif code == _EVENT:
                spans[op[1]].add_event(op[2], op[3], timestamp=op[4])
            elif code == _ATTR:
                spans[op[1]].set_attribute(op[2], op[3])
            else:
                spans[op[1]].set_status(op[2], op[3])

    return run


def counts(program: _Program) -> dict[str, int]:
    """How many calls of each kind the program makes (for the report)."""
    labels = ("span starts", "attribute", "attributes", "span events", "statuses", "span ends")
    out = dict.fromkeys((*labels, "metric updates"), 0)
    for op in program.ops:
        out[(*labels, "metric updates")[op[0]]] += 1
    return out


# ----------------------------------------------------------------------------- comparison


@dataclass(frozen=True, slots=True)
class Floor:
    """Both sides' CPU times per round, for one recorded run's events."""

    observers_ns: tuple[int, ...]
    floor_ns: tuple[int, ...]
    events: int
    calls: dict[str, int]

    @property
    def ratios(self) -> list[float]:
        return [o / f for o, f in zip(self.observers_ns, self.floor_ns, strict=True)]

    @property
    def ratio(self) -> float:
        """The median of the per-round ratios: what the goal reads."""
        return statistics.median(self.ratios)

    @property
    def observers_ms(self) -> float:
        return statistics.median(self.observers_ns) / 1e6

    @property
    def floor_ms(self) -> float:
        return statistics.median(self.floor_ns) / 1e6

    @property
    def verdict(self) -> str:
        met = "met" if self.ratio <= GOAL_FLOOR_RATIO else "NOT MET"
        return f"≤ {GOAL_FLOOR_RATIO:.2f}×: {met}"

    def summary(self) -> str:
        """Two lines: the medians and the per-round spread."""
        ratios = sorted(self.ratios)
        own_us = (self.observers_ms - self.floor_ms) * 1e3 / self.events
        return (
            f"observers on one recorded run's events ({self.events:,}): {self.observers_ms:.1f}"
            f" ms CPU; the same SDK calls made directly (the floor): {self.floor_ms:.1f} ms;"
            f" {own_us:.2f} µs of observer code per event\n"
            f"  observers ÷ floor per round (median of {len(ratios)}: {self.ratio:.3f}×):"
            f" {', '.join(f'{r:.3f}' for r in ratios)}"
        )


def compare(events: Sequence[Event], rounds: int, exporter: Callable[[], SpanExporter]) -> Floor:
    """The observers against the SDK floor on ``events``: ``rounds`` rounds after one
    warm-up each, fresh observers, provider and registry per run, garbage collector
    paused, CPU time."""
    program = record_program(events, exporter())
    times: dict[str, list[int]] = {"observers": [], "floor": []}
    with gc_paused():
        observers_replay(events, exporter())()  # warm-up: imports, caches, code paths
        floor_replay(program, exporter())()
        builds: dict[str, Callable[[], Callable[[], None]]] = {
            "observers": lambda: observers_replay(events, exporter()),
            "floor": lambda: floor_replay(program, exporter()),
        }
        for number in range(rounds):
            for name in list(builds) if number % 2 == 0 else list(reversed(builds)):
                run = builds[name]()  # each side's state is built just before its run
                start = CLOCK()
                run()
                times[name].append(CLOCK() - start)
    return Floor(tuple(times["observers"]), tuple(times["floor"]), len(events), counts(program))
