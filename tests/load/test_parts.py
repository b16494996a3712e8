"""The pieces of ``harness.load``: timing, quantiles, the synchronous bridge, the plan file,
the per-session fake, and the architecture's import rules."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import gc
import ssl
import weakref
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client import CollectorRegistry

import harness.load
from fakes.profiles import SDK_ENDPOINTS
from harness.events import EVENT_KINDS
from harness.load import (
    FAKE_FOR_KIND,
    LoadMetrics,
    LoadPlan,
    Stopwatch,
    build_load_fake,
    default_template,
    read_plan,
    write_plan,
)
from harness.load.metrics import OVERHEAD, bucket_quantile, buckets
from harness.load.session import Samples, TimedClient
from harness.load.tally import IGNORED, LoadTally
from harness.load.transport import (
    InlineSyncTransport,
    Killed,
    ShardedTransport,
    SuspendedError,
    drive,
    tls_context,
)
from harness.providers.plumbing.factory import PROVIDER_KINDS
from harness.quantile import percentile
from harness.scenarios.environment import FAKE_FOR_KIND as SCENARIO_FAKE_FOR_KIND

LOAD = Path(harness.load.__file__).parent


def _clock(*readings: float) -> Iterator[float]:
    yield from readings


def test_overhead_is_agent_time_between_calls_plus_the_turn_tail() -> None:
    readings = _clock(0.0, 10.0, 10.5, 15.5, 16.0, 26.0, 26.25)
    samples = Samples()
    seen: list[float] = []
    watch = Stopwatch(samples, lambda: next(readings), seen.append)  # reads 0.0 at creation
    watch.turn_started()  # 10.0
    watch.call_started()  # 10.5: 0.5 before the first call
    watch.call_finished()  # 15.5: a 5 s round trip
    watch.call_started()  # 16.0: 0.5 between the calls
    watch.call_finished()  # 26.0
    watch.turn_finished()  # 26.25: the tail goes to the last call
    assert seen == [0.5, 0.75]
    assert (samples.overhead.count, samples.overhead.least, samples.overhead.greatest) == (
        2,
        0.5,
        0.75,
    )
    assert (samples.round_trip.least, samples.round_trip.greatest) == (5.0, 10.0)


def test_a_wait_the_provider_asked_for_is_not_overhead() -> None:
    """A Retry-After slept between two calls is timed apart: the call after it carries
    only the agent's own time (0.5 before the sleep, 0.25 after it, the 0.25 tail)."""
    readings = _clock(0.0, 10.0, 10.5, 15.5, 16.0, 46.0, 46.25, 56.25, 56.5)
    samples = Samples()
    seen: list[float] = []
    watch = Stopwatch(samples, lambda: next(readings), seen.append)

    async def slept(seconds: float) -> None:
        assert seconds == 30.0

    async def turn() -> None:
        watch.turn_started()  # 10.0
        watch.call_started()  # 10.5
        watch.call_finished()  # 15.5: a 429 came back
        await watch.wait(slept, 30.0)  # 16.0 .. 46.0: the Retry-After
        watch.call_started()  # 46.25
        watch.call_finished()  # 56.25
        watch.turn_finished()  # 56.5

    asyncio.run(turn())
    assert seen == [0.5, 1.0]  # 31.0 when the sleep counted
    assert samples.waits.count == 1


def test_percentile_interpolates_between_ranks() -> None:
    assert percentile([], 0.5) is None
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([1.0, 2.0], 0.95) == pytest.approx(1.95)


def test_bucket_quantile_follows_histogram_quantile() -> None:
    registry = CollectorRegistry()
    metrics = LoadMetrics(registry)
    for value in (0.0004, 0.0004, 0.0009, 0.0009):
        metrics.overhead.observe(value)
    cumulative = buckets(registry, OVERHEAD)
    # two in (0.0003, 0.0005], two in (0.00075, 0.001]: the median is the first bucket's top
    assert bucket_quantile(0.5, cumulative) == pytest.approx(0.0005)
    assert bucket_quantile(1.0, cumulative) == pytest.approx(0.001)
    assert bucket_quantile(0.5, {}) is None


def test_every_pool_of_every_run_shares_one_verifying_tls_context() -> None:
    context = tls_context()
    assert tls_context() is context  # built once per process: each costs a CA bundle load
    assert context.verify_mode is ssl.CERT_REQUIRED
    assert context.check_hostname
    transports = [ShardedTransport(4), ShardedTransport(3)]
    pools = [pool for t in transports for pool in t._pools]
    assert {id(pool._pool._ssl_context) for pool in pools} == {id(context)}


def test_drive_runs_a_coroutine_that_never_suspends() -> None:
    async def answer() -> int:
        return 42

    assert drive(answer()) == 42


def test_drive_refuses_a_coroutine_that_needs_an_event_loop() -> None:
    async def sleeps() -> None:
        await asyncio.sleep(0)

    with pytest.raises(SuspendedError):
        drive(sleeps())


def test_inline_sync_transport_answers_an_async_client_without_a_loop() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"echo": request.content.decode()})

    sync = httpx.MockTransport(handler)
    client = httpx.AsyncClient(transport=InlineSyncTransport(sync))
    response = drive(client.post("http://fake.test/x", content=b"hello"))
    assert response.json() == {"echo": "hello"}
    drive(client.aclose())


class _Kill(BaseException):
    """Stands in for gevent's ``GreenletExit`` (a ``BaseException``, not an error)."""


def test_a_kill_inside_a_request_unwinds_the_agent_as_cancelled_then_is_raised() -> None:
    """Issue 28: a user killed by Locust inside a call; the coroutine sees a cancellation
    (the agent counts the call ``cancelled``), and ``drive`` raises the kill itself."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise _Kill

    client = httpx.AsyncClient(transport=InlineSyncTransport(httpx.MockTransport(handler)))
    seen: list[type[BaseException]] = []

    async def call() -> None:
        try:
            await client.post("http://fake.test/x")
        except asyncio.CancelledError as cancelled:
            seen.append(type(cancelled))
            raise

    with pytest.raises(_Kill):
        drive(call())
    assert seen == [Killed]
    drive(client.aclose())


def test_a_plan_survives_its_json_file(tmp_path: Path) -> None:
    plan = LoadPlan(default_template("anthropic"), 7, 3, 4, 12.5).per_process(2)
    write_plan(plan, tmp_path / "plan.json")
    assert read_plan(tmp_path / "plan.json") == plan
    assert plan.sessions_per_process == 4


def test_the_load_fake_numbers_calls_per_session() -> None:
    fake = build_load_fake(default_template().providers[0], counting=True)
    first = [fake.session_behaviour("a") for _ in range(3)]
    assert fake.session_behaviour("b") == first[0]  # b starts its own script
    assert first[0].reply.tool_calls
    assert not first[1].reply.tool_calls  # the cycle: tool call, answer, tool call
    assert first[2] == first[0]


def test_load_and_scenarios_share_one_kind_table_covering_every_client_kind() -> None:
    assert FAKE_FOR_KIND is SCENARIO_FAKE_FOR_KIND is SDK_ENDPOINTS
    assert set(FAKE_FOR_KIND) == set(PROVIDER_KINDS)


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


SCENARIO_TRANSLATOR = "scenario_template.py"
SCENARIOS_AND_CLI = ("harness.scenarios", "harness.cli")


@pytest.mark.parametrize("path", sorted(LOAD.glob("*.py")), ids=lambda p: p.name)
def test_load_imports_what_the_architecture_allows(path: Path) -> None:
    """``harness.load`` may use agent, fakes and telemetry (and what they stand on), never
    the CLI, and scenarios only in the one translator from a scenario to a load template
    (``scenario_template.py``, imported by ``load --scenario`` alone); only the locustfile
    imports Locust or gevent."""
    forbidden = ("harness.cli",) if path.name == SCENARIO_TRANSLATOR else SCENARIOS_AND_CLI
    for name in _imports(path):
        root = name.split(".")[0]
        if path.name != "locustfile.py":
            assert root not in {"locust", "gevent"}, f"{path.name} imports {name}"
        assert not name.startswith(forbidden), f"{path.name} imports {name}"


def test_the_public_surface_is_listed_and_importable() -> None:
    assert sorted(harness.load.__all__) == sorted(set(harness.load.__all__))
    for name in harness.load.__all__:
        assert hasattr(harness.load, name), name


def test_the_tally_counts_or_ignores_every_event_kind_and_never_both() -> None:
    counted = set(LoadTally()._counters)
    assert counted.isdisjoint(IGNORED)
    assert counted | IGNORED == set(EVENT_KINDS)


class _Refusing:
    provider_kind = "openai"

    async def complete(self, request: object) -> object:
        raise RuntimeError("refused")


class _Request:
    """A stand-in request that can be watched with a weak reference."""


def test_a_failed_call_leaves_no_cycle_holding_its_request() -> None:
    """The timing wrapper reports a failure without keeping the exception in a local of a
    frame the exception's traceback holds: that cycle would keep the request (and the
    history it carries) alive until a garbage collection."""
    reported: list[BaseException | None] = []
    timed = TimedClient(
        _Refusing(),  # type: ignore[arg-type]
        "openai.load",
        Stopwatch(Samples()),
        lambda ref, seconds, error: reported.append(error),
    )
    request = _Request()
    watched = weakref.ref(request)
    gc.disable()
    try:
        with contextlib.suppress(RuntimeError):
            drive(timed.complete(request))  # type: ignore[arg-type]
        reported.clear()
        del request
        assert watched() is None  # freed by reference counting alone
    finally:
        gc.enable()
