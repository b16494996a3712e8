"""One load session: an ``Agent`` built from the template, run for T turns over real HTTP.

**Harness overhead per call** is the time the agent spends between provider calls: from the
start of a turn (or the return of the previous call) to the start of the next call, plus,
for a turn's last call, the time from its return to the end of the turn. That is the
trimming, estimating, capacity checks, routing, events and observers, and tool rounds; it
excludes ``ProviderClient.complete`` (the HTTP round trip, with the wire JSON encoding and
decoding). It is measured by ``TimedClient``, wrapped around every provider client, with
``time.perf_counter``. Under asyncio these stretches never await (the workload's tools
return at once), so the wall time between two marks is the agent's own time, whatever
other sessions do meanwhile.

**Waits the provider asked for** (a 429's Retry-After, slept by the agent before it tries
again) are not the agent's time: the stopwatch moves its mark past each one, and records
it apart (``Samples.waits``, wall time). A run's harness overhead is therefore the same
whether its provider throttles or not.

**Stopping** (a signal, a fake server's death): see ``harness.load.stopping``. A session
inside a provider call when the run stops is cancelled as that call returns, so the call
is counted (``cancelled``) by the harness as by the server that answered it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

import httpx

from harness.agent import (
    MEASURE_CACHE_LOSS,
    Agent,
    BookkeepingFactory,
    Classifier,
    Clock,
    LoopConfig,
    Route,
    RouteTable,
    SessionSpec,
    Tool,
    ToolBox,
    ToolMode,
    open_agent,
    template_tool,
)
from harness.events import EventBus
from harness.load.stopping import RunStop
from harness.load.template import (
    LOAD_API_KEY,
    SESSION_HEADER,
    RouteTemplate,
    SessionTemplate,
    ToolTemplate,
)
from harness.load.transport import SLOT_HEADER, ShardedTransport
from harness.providers import ProviderReply, ProviderRequest
from harness.providers.plumbing.base import ProviderClient
from harness.providers.plumbing.factory import make_client
from harness.runtime import ProviderProfile
from harness.sketch import Sketch

Sleep = Callable[[float], Awaitable[None]]
CallHook = Callable[[str, float, BaseException | None], None]
"""Called after every provider call: (provider ref, seconds, error or ``None``)."""
TurnHook = Callable[[float, BaseException | None], None]


class Samples:
    """Per-call timings of a whole run, in seconds, as bounded sketches (memory flat in
    the number of calls); ``waits``: the provider-asked waits (Retry-After) slept."""

    def __init__(self) -> None:
        self.overhead = Sketch()
        self.round_trip = Sketch()
        self.waits = Sketch()


class Stopwatch:
    """The marks of one session (see the module docstring). A call's overhead is final
    when the next call starts or the turn ends; ``on_overhead`` sees each final value."""

    def __init__(
        self,
        samples: Samples,
        clock: Clock = time.perf_counter,
        on_overhead: Callable[[float], None] | None = None,
        on_wait: Callable[[float], None] | None = None,
    ) -> None:
        self._samples = samples
        self._clock = clock
        self._on_overhead = on_overhead
        self._on_wait = on_wait
        self._mark = clock()
        self._pending: float | None = None
        self._call_started = 0.0

    def turn_started(self) -> None:
        self._mark = self._clock()
        self._pending = None

    def call_started(self) -> None:
        now = self._clock()
        self._settle()
        self._pending = now - self._mark
        self._call_started = now

    def call_finished(self) -> float:
        now = self._clock()
        elapsed = now - self._call_started
        self._samples.round_trip.add(elapsed)
        self._mark = now
        return elapsed

    async def wait(self, sleep: Sleep, seconds: float) -> None:
        """``sleep(seconds)``, a wait the provider asked for: timed apart, and not part of
        the overhead of the call that follows (the mark moves past it)."""
        began, wall = self._clock(), time.perf_counter()
        try:
            await sleep(seconds)
        finally:
            self._mark += self._clock() - began
            waited = time.perf_counter() - wall
            self._samples.waits.add(waited)
            if self._on_wait is not None:  # Locust mode's metric (``LoadMetrics``)
                self._on_wait(waited)

    def turn_finished(self) -> None:
        if self._pending is not None:
            self._pending += self._clock() - self._mark
        self._settle()

    def _settle(self) -> None:
        if self._pending is None:
            return
        self._samples.overhead.add(self._pending)
        if self._on_overhead is not None:
            self._on_overhead(self._pending)
        self._pending = None


class TimedClient:
    """A ``ProviderClient`` that marks the stopwatch around the wrapped client's call."""

    def __init__(
        self,
        inner: ProviderClient,
        ref: str,
        watch: Stopwatch,
        on_call: CallHook | None,
        stop: RunStop | None = None,
    ) -> None:
        self.provider_kind = inner.provider_kind
        self._inner = inner
        self._ref = ref
        self._watch = watch
        self._on_call = on_call
        self._stop = stop

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """The wrapped call, timed; when the run stopped while it was in flight, its
        answer (or error) is dropped for ``CancelledError``: the session ends there."""
        self._watch.call_started()
        stop = self._stop
        if stop is not None:
            stop.call_started()
        try:
            reply = await self._inner.complete(request)
        except BaseException as exc:
            # Reported from inside the handler: a local holding the exception would tie it
            # to this frame, which its traceback holds (a cycle keeping the whole request
            # alive until the garbage collector finds it).
            # Asked before the hook: a call whose own failure stops the run (a refused
            # connection) keeps its outcome; the others in flight then are cancelled.
            stopped = stop is not None and stop.call_finished()
            self._finished(exc)
            if stopped:
                raise asyncio.CancelledError from None
            raise
        stopped = stop is not None and stop.call_finished()
        self._finished(None)
        if stopped:
            raise asyncio.CancelledError
        return reply

    def _finished(self, error: BaseException | None) -> None:
        elapsed = self._watch.call_finished()
        if self._on_call is not None:
            self._on_call(self._ref, elapsed, error)


def _tool(spec: ToolTemplate) -> Tool:
    return template_tool(
        spec.name, spec.description, spec.parameters, output=spec.output, repeat=spec.repeat
    )


def _route(route: RouteTemplate) -> Route:
    return Route(route.provider, route.model)


def route_table(template: SessionTemplate) -> RouteTable:
    providers: dict[str, dict[str, ProviderProfile]] = {}
    for provider in template.providers:
        provider_type, _, alias = provider.ref.partition(".")
        providers.setdefault(provider_type, {})[alias] = ProviderProfile(
            provider.model, provider.configured_window
        )
    return RouteTable(
        providers,
        _route(template.default_route),
        {name: _route(r) for name, r in template.model_routes.items()},
        _route(template.vision_route) if template.vision_route else None,
    )


@dataclass(frozen=True, slots=True)
class SessionOutcome:
    index: int
    turns_run: int
    turn_errors: int
    completed: bool


class SessionFactory:
    """What every session of a run shares: template, URLs, one HTTP client, bus, samples."""

    def __init__(
        self,
        template: SessionTemplate,
        base_urls: Mapping[str, str],
        http: httpx.AsyncClient,
        bus: EventBus,
        samples: Samples,
        *,
        sleep: Sleep = asyncio.sleep,
        on_call: CallHook | None = None,
        on_turn: TurnHook | None = None,
        on_overhead: Callable[[float], None] | None = None,
        on_wait: Callable[[float], None] | None = None,
        session_prefix: str = "load-",
        clock: Clock = time.perf_counter,
        stop: RunStop | None = None,
        cache_loss: BookkeepingFactory = MEASURE_CACHE_LOSS,
    ) -> None:
        missing = [p.ref for p in template.providers if p.ref not in base_urls]
        if missing:
            raise ValueError(f"no fake server URL for {', '.join(missing)}")
        self.template = template
        self.base_urls = dict(base_urls)
        self.http = http
        self.bus = bus
        self.samples = samples
        self.sleep = sleep
        self.on_call = on_call
        self.on_turn = on_turn
        self.on_overhead = on_overhead
        self.on_wait = on_wait
        self.session_prefix = session_prefix
        self.clock = clock  # the stopwatches' (the agents keep perf_counter for events)
        self.stop = stop
        self.cache_loss = cache_loss
        self.routes = route_table(template)
        self.tools = ToolBox({t.name: _tool(t) for t in template.tools})

    def agent(self, index: int, watch: Stopwatch, slot: int = 0) -> Agent:
        session_id = f"{self.session_prefix}{index}"
        headers = {SESSION_HEADER: session_id, SLOT_HEADER: str(slot)}
        clients: dict[str, ProviderClient] = {}
        for provider in self.template.providers:
            client = make_client(
                provider.kind,
                client=self.http,
                base_url=self.base_urls[provider.ref].rstrip("/") + provider.base_path,
                api_key=LOAD_API_KEY,
                provider_name=provider.ref,
                extra_headers=headers,
            )
            clients[provider.ref] = TimedClient(
                client, provider.ref, watch, self.on_call, self.stop
            )

        async def provider_wait(seconds: float) -> None:
            await watch.wait(self.sleep, seconds)

        config = LoopConfig(
            profile=self.template.profile,
            routes=self.routes,
            clients=clients,
            tools=self.tools,
            tool_mode=ToolMode(self.template.tool_mode),
            classifier=Classifier(self.template.classifier),
            sleep=provider_wait,
            stream=self.template.stream,
            max_output_tokens=self.template.max_output_tokens,
        )
        spec = SessionSpec(
            config,
            self.bus,
            session_id,
            clock=time.perf_counter,
            system_prompt=self.template.system_prompt,
            cache_loss=self.cache_loss,
        )
        return open_agent(spec)

    async def run(
        self, index: int, turns: int, deadline: float, *, slot: int = 0
    ) -> SessionOutcome:
        """Run session ``index`` for ``turns`` turns, or until ``deadline`` (monotonic);
        ``slot`` is the worker running it (it picks the connection pool)."""
        watch = Stopwatch(
            self.samples, self.clock, on_overhead=self.on_overhead, on_wait=self.on_wait
        )
        agent = self.agent(index, watch, slot)
        errors = 0
        for turn in range(turns):
            if time.monotonic() >= deadline:
                return SessionOutcome(index, turn, errors, completed=False)
            text = self.template.user_text(index, turn)
            started = time.perf_counter()
            error: Exception | None = None
            watch.turn_started()
            try:
                await agent.turn(text)
            except Exception as exc:  # counted from its TurnFinished event; the session goes on
                error = exc
                errors += 1
            finally:
                watch.turn_finished()
            if self.on_turn is not None:
                self.on_turn(time.perf_counter() - started, error)
            error = None  # not kept across turns: this frame is in the exception's traceback
        return SessionOutcome(index, turns, errors, completed=True)


def http_client(
    concurrency: int, timeout_s: float, transport: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """The run's one client: ``concurrency`` connections (``ShardedTransport``) unless a
    transport is given."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout_s),
        transport=transport or ShardedTransport(concurrency),
        trust_env=False,
    )
