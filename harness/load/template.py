"""What every load session runs: a session template and the plan around it.

A ``SessionTemplate`` is plain data (JSON round trip through pydantic), so the same
template reaches the asyncio runner, the fake-server process and Locust's worker processes
(``plan.json``). It holds the runtime profile, the provider routes and the fake behind each
route, the tools, the system prompt and the user texts of a turn.

Each fake answers **per session**: every session's client sends ``SESSION_HEADER`` and the
fake (``harness.load.fake``) numbers calls per session, so call ``n`` of every session gets
the script's step ``n`` (``cycle``: step ``n % len(steps)``). The default workload cycles
"call the echo tool" / "answer": each turn is one tool round and a final answer, two
provider calls.

The default workload makes every trim trigger fire on a small window (3000 tokens): a
compact ratio of 0.72 (proactive trims before the window is reached); the fake's own
tokenizer, which disagrees with the estimate, and tool schemas counted on top (reported-
usage trims); a fake that enforces 82% of the declared window, as a proxy that reserves
part of it would, and a tool round of about 700 tokens that the loop adds after its
proactive trim (provider overflows and reactive recovery); and a turn limit of 6 turns
(turn-limit trims).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

from pydantic import TypeAdapter

from fakes import FakeBehaviour, FakeScript, ScriptedReply, ScriptedToolCall
from fakes.profiles import SDK_ENDPOINTS
from fakes.simulations.caching import CachePolicyName
from harness.atomic import write_bytes_atomic
from harness.runtime import HistoryPruning, RuntimeProfile

SESSION_HEADER: Final = "x-trimscope-load-session"
"""Header naming the session of a request; the load fake keys its script on it."""

LOAD_API_KEY: Final = "load-test-key"
DEFAULT_KIND: Final = "openai"
DEFAULT_MODEL: Final = "load-model"
DEFAULT_WINDOW: Final = 3000
DEFAULT_COMPACT_RATIO: Final = 0.72
DEFAULT_FAKE_WINDOW_SHARE: Final = 0.82
DEFAULT_TURN_LIMIT: Final = 6
DEFAULT_ECHO_REPEAT: Final = 45
DEFAULT_SYSTEM_PROMPT: Final = "You are a load-test agent. Use the echo tool, then answer."

DEFAULT_HTTP_TIMEOUT_S: Final = 30.0
"""The provider HTTP timeout of a load session (``--request-timeout``): connect, read,
write and pool, each."""
MAX_HTTP_TIMEOUT_S: Final = 3600.0
"""The longest ``--request-timeout``: a soak waits for no call longer than an hour."""

FAKE_FOR_KIND: Final = SDK_ENDPOINTS  # client kind -> (fake profile, SDK base path)

_USER_TEXTS: Final = (
    "Session {session}, turn {turn}: look up the order history and summarise what changed"
    " since last week, including the shipping notes and any refunds that were issued.",
    "Turn {turn}: compare that with the previous quarter.",
    "Session {session}, turn {turn}: the customer wrote again. Their message: "
    + "the parcel arrived damaged, the box was open and two items are missing; " * 4
    + "please check the warehouse log and the courier's scan history before you answer.",
    "Turn {turn}: thanks. Anything else I should know before I reply?",
)
_ECHO_TEXT: Final = "warehouse log entry {n}: scanned, packed, handed to the courier. "


@dataclass(frozen=True, slots=True)
class ToolTemplate:
    """A deterministic tool: ``output`` with ``{text}`` replaced, ``repeat`` times."""

    name: str
    description: str = "Echo the text argument."
    parameters: Mapping[str, object] = field(default_factory=lambda: {"type": "object"})
    output: str = "{text}"
    repeat: int = 1


@dataclass(frozen=True, slots=True)
class ProviderTemplate:
    """One provider route (``<type>.<alias>``) and the fake that serves it.

    ``model`` and ``configured_window`` are what the agent is told (``providers.models``);
    the fake answers to ``fake_model`` (default: ``model``) and enforces ``fake_window``.
    ``latency_ms`` is added to every answer's delay, on top of the script step's own
    ``latency_ms`` (``--latency-ms``; the built-in script's steps have none).
    """

    ref: str
    kind: str
    model: str | None
    configured_window: int | None
    fake_window: int
    fake_profile: str
    base_path: str
    counter: str = "heuristic"
    variant: str = "default"
    script: FakeScript = field(default_factory=FakeScript)
    cycle: bool = False
    latency_ms: int = 0
    fake_model: str | None = None
    caching: CachePolicyName | None = None
    """The fake's prompt caching (``fakes.simulations.caching``); ``None``: the provider's own."""

    @property
    def served_model(self) -> str:
        return self.fake_model or self.model or DEFAULT_MODEL


@dataclass(frozen=True, slots=True)
class RouteTemplate:
    provider: str
    model: str | None = None


@dataclass(frozen=True, slots=True)
class SessionTemplate:
    """What one session runs. ``user_texts`` are cycled, session ``s`` starting at text
    ``s % len(user_texts)`` when ``stagger`` (so sessions differ), else at the first;
    ``{session}`` and ``{turn}`` in them are replaced by the session and turn numbers
    (``{i}`` by the 0-based turn, as in scenario ``repeat`` steps)."""

    name: str
    profile: RuntimeProfile
    providers: tuple[ProviderTemplate, ...]
    default_route: RouteTemplate
    user_texts: tuple[str, ...]
    model_routes: Mapping[str, RouteTemplate] = field(default_factory=dict)
    vision_route: RouteTemplate | None = None
    tools: tuple[ToolTemplate, ...] = ()
    tool_mode: str = "native"
    classifier: str = "extended"
    system_prompt: str | None = None
    stagger: bool = False
    stream: bool = False
    """Ask for streamed answers (a scenario's ``request.stream``; clients that stream)."""
    max_output_tokens: int | None = None
    """The output budget each call asks for (a scenario's ``request.max_output_tokens``)."""

    def __post_init__(self) -> None:
        if not self.providers:
            raise ValueError("a session template needs at least one provider")
        if not self.user_texts:
            raise ValueError("a session template needs at least one user text")

    def user_text(self, session: int, turn: int) -> str:
        offset = session if self.stagger else 0
        text = self.user_texts[(offset + turn) % len(self.user_texts)]
        return (
            text.replace("{session}", str(session))
            .replace("{turn}", str(turn + 1))
            .replace("{i}", str(turn))
        )

    def provider(self, ref: str) -> ProviderTemplate:
        for candidate in self.providers:
            if candidate.ref == ref:
                return candidate
        raise KeyError(f"no provider {ref!r} in the template")


@dataclass(frozen=True, slots=True)
class LoadPlan:
    """A template and its bounds. ``base_urls`` (provider ref → fake server URL) is filled
    once the servers run; empty in a plan for remote Locust workers, which start their own
    loopback fakes. ``sessions_per_process`` bounds each Locust worker process."""

    template: SessionTemplate
    sessions: int
    concurrency: int
    turns: int
    duration_s: float
    base_urls: Mapping[str, str] = field(default_factory=dict)
    sessions_per_process: int | None = None
    http_timeout_s: float = DEFAULT_HTTP_TIMEOUT_S

    def __post_init__(self) -> None:
        if self.sessions < 1 or self.concurrency < 1 or self.turns < 1:
            raise ValueError("sessions, concurrency and turns must be at least 1")
        if not self.duration_s > 0:
            raise ValueError("duration must be positive")
        if not 0 < self.http_timeout_s <= MAX_HTTP_TIMEOUT_S:
            raise ValueError(
                f"the request timeout must be within (0, {MAX_HTTP_TIMEOUT_S:g}] seconds,"
                f" not {self.http_timeout_s:g}"
            )

    def with_base_urls(self, urls: Mapping[str, str]) -> LoadPlan:
        return replace(self, base_urls=dict(urls))

    def per_process(self, processes: int) -> LoadPlan:
        """The plan for ``processes`` Locust workers sharing ``sessions`` between them."""
        return replace(self, sessions_per_process=math.ceil(self.sessions / max(1, processes)))


_PLAN: Final = TypeAdapter(LoadPlan)


def plan_to_json(plan: LoadPlan) -> bytes:
    return _PLAN.dump_json(plan, indent=2)


def plan_from_json(data: bytes | str) -> LoadPlan:
    return _PLAN.validate_json(data)


def read_plan(path: Path) -> LoadPlan:
    return plan_from_json(path.read_bytes())


def write_plan(plan: LoadPlan, path: Path) -> None:
    write_bytes_atomic(path, plan_to_json(plan))


def default_script() -> FakeScript:
    """Per session, cycled: call the echo tool, then answer (one tool round per turn)."""
    tool_call = FakeBehaviour(
        reply=ScriptedReply(
            text=None,
            tool_calls=(ScriptedToolCall("echo", {"text": _ECHO_TEXT.format(n=1)}),),
        )
    )
    answer = FakeBehaviour(
        reply=ScriptedReply(text="Done: the log shows the parcel left the warehouse intact.")
    )
    return FakeScript(steps=(tool_call, answer))


def default_template(
    kind: str = DEFAULT_KIND,
    *,
    context_window: int = DEFAULT_WINDOW,
    latency_ms: int = 0,
    counter: str = "provider",
    turn_limit: int = DEFAULT_TURN_LIMIT,
) -> SessionTemplate:
    """The built-in workload for ``kind`` (a ``make_client`` kind) on a small window."""
    try:
        fake_profile, base_path = FAKE_FOR_KIND[kind]
    except KeyError:
        known = ", ".join(FAKE_FOR_KIND)
        raise ValueError(f"unknown provider kind {kind!r}; known kinds: {known}") from None
    ref = f"{kind}.load"
    provider = ProviderTemplate(
        ref=ref,
        kind=kind,
        model=DEFAULT_MODEL,
        configured_window=context_window,
        fake_window=max(1, int(context_window * DEFAULT_FAKE_WINDOW_SHARE)),
        fake_profile=fake_profile,
        base_path=base_path,
        counter=counter,
        script=default_script(),
        cycle=True,
        latency_ms=latency_ms,
    )
    return SessionTemplate(
        name=f"default-{kind}",
        profile=RuntimeProfile(
            context_compact_ratio=DEFAULT_COMPACT_RATIO,
            history_pruning=HistoryPruning(),
            max_history_messages=turn_limit,
        ),
        providers=(provider,),
        default_route=RouteTemplate(ref),
        user_texts=_USER_TEXTS,
        tools=(ToolTemplate("echo", repeat=DEFAULT_ECHO_REPEAT),),
        system_prompt=DEFAULT_SYSTEM_PROMPT,
        stagger=True,
    )
