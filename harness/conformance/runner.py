"""One conformance run: validate the options, then probe in a fixed order and judge.

Order: the small request (an endpoint that cannot answer it is unusable: exit 2), the two
tool-pairing requests, the two tool-call row shapes, the window search, one streamed
overflow (wires that stream), the recovery session, one probe per claimed provider-side
option (``--provider-side``), and last the prompt-cache probe (``--probe-cache``). Every
request goes through one ``MeteredClient`` over one ``httpx.AsyncClient``; ``transport``
is injectable for tests, the CLI passes none.
"""

from __future__ import annotations

import asyncio
import math
import os
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, TypeVar

import httpx

from harness.conformance.budget import BudgetExhausted, Ledger, ProbeBudget
from harness.conformance.caching import probe_cache, prompt_cache
from harness.conformance.checks import Findings, all_checks
from harness.conformance.counter import CountersSeen
from harness.conformance.headers import Header, parse_headers, secrets_of
from harness.conformance.metered import MeteredClient, Progress, Redactor
from harness.conformance.probes import Prober, Sent, Sleep, describe_failure
from harness.conformance.provider_side import (
    OPTIONS_BY_KIND,
    ProviderSideOutcome,
    probe_provider_side,
    provider_side_check,
)
from harness.conformance.recovery import (
    COST_FACTOR,
    RecoveryResult,
    affordable,
    push_size,
    run_recovery,
)
from harness.conformance.report import ConformanceReport, EstimateRatio, Spent, WindowFinding
from harness.conformance.window import WINDOW_TOLERANCE, SearchPlan, WindowSearch, find_window
from harness.events import Observer
from harness.providers import (
    CLIENT_CLASSES,
    PROVIDER_KINDS,
    AnthropicClient,
    OpenAIChatClient,
    OpenAIResponsesClient,
    make_client,
)
from harness.runtime import HarnessError
from harness.runtime.text import did_you_mean

DEFAULT_REQUEST_TIMEOUT_S: Final = 120.0
"""Each request gives up after this long without an answer (``--request-timeout``): long
enough for a local server to process a window-sized prompt on a CPU."""
CONNECT_TIMEOUT_S: Final = 10.0
STREAMING_KINDS: Final = frozenset(
    kind
    for kind, cls in CLIENT_CLASSES.items()
    if issubclass(cls, (AnthropicClient, OpenAIResponsesClient))
)
STREAM_PROBE_FACTOR: Final = 1.1
"""Past the window by 10 %: clear of input-plus-output variants that sit right at it."""
T = TypeVar("T")


class ConformanceConfigError(HarnessError):
    """An option is invalid; nothing was sent (exit 2)."""


class EndpointUnusable(HarnessError):
    """The endpoint did not answer the small request (exit 2): unreachable, auth, model."""


@dataclass(frozen=True, slots=True)
class ConformanceOptions:
    provider: str
    base_url: str
    model: str
    api_key_env: str | None = None
    context_window: int | None = None
    max_requests: int | None = None
    max_input_tokens: int | None = None
    request_timeout_s: float | None = None
    probe_cache: bool = False
    """``--probe-cache``: send one request twice, last, and report prompt caching."""
    provider_side: tuple[str, ...] = ()
    """Provider-side context management options the endpoint claims (issue 17)."""
    headers: tuple[Header, ...] = field(default=(), repr=False)
    """``--header``: extra request headers (``harness.conformance.headers``; not in the
    ``repr``: a value may be a gateway's key)."""


@dataclass(frozen=True, slots=True)
class Plan:
    """Validated options, the resolved budget and the key (never printed: no ``repr``)."""

    options: ConformanceOptions
    budget: ProbeBudget
    api_key: str | None
    request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S

    def __repr__(self) -> str:
        return f"Plan(options={self.options!r}, budget={self.budget!r}, api_key=<hidden>)"


def _positive(name: str, value: int | None) -> None:
    if value is not None and value < 1:
        raise ConformanceConfigError(f"{name} must be a positive integer, not {value}")


def plan(options: ConformanceOptions, environ: Mapping[str, str] = os.environ) -> Plan:
    """Check every option and read the key from the named variable (only from there)."""
    if options.provider not in PROVIDER_KINDS:
        known = ", ".join(PROVIDER_KINDS)
        hint = did_you_mean(options.provider, PROVIDER_KINDS)
        raise ConformanceConfigError(
            f"unknown --provider {options.provider!r}{hint}; known: {known}"
        )
    url = urllib.parse.urlsplit(options.base_url)
    if url.scheme not in ("http", "https") or not url.netloc:
        raise ConformanceConfigError(f"--base-url must be an http(s) URL, not {options.base_url!r}")
    if not options.model.strip():
        raise ConformanceConfigError("--model must not be empty")
    _positive("--context-window", options.context_window)
    _positive("--max-requests", options.max_requests)
    _positive("--max-input-tokens", options.max_input_tokens)
    timeout = options.request_timeout_s
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise ConformanceConfigError(f"--request-timeout must be positive seconds, not {timeout}")
    _check_provider_side(options)
    try:  # as the CLI parsed them; checked again for a caller building options by hand
        parse_headers([f"{name}:{value}" for name, value in options.headers])
    except ValueError as error:
        raise ConformanceConfigError(str(error)) from None
    key = None
    if options.api_key_env is not None:
        key = environ.get(options.api_key_env)
        if not key:
            raise ConformanceConfigError(
                f"--api-key-env: environment variable {options.api_key_env} is not set"
            )
    budget = ProbeBudget.resolve(
        options.max_requests, options.max_input_tokens, options.context_window
    )
    return Plan(options, budget, key, timeout or DEFAULT_REQUEST_TIMEOUT_S)


def _check_provider_side(options: ConformanceOptions) -> None:
    known = OPTIONS_BY_KIND.get(options.provider, ())
    for index, option in enumerate(options.provider_side):
        if option in options.provider_side[:index]:  # bounded: each option probed once
            raise ConformanceConfigError(f"--provider-side {option!r} is given twice")
        if option not in known:
            offered = ", ".join(known) if known else "none"
            raise ConformanceConfigError(
                f"--provider-side {option!r} is not an option of {options.provider}; "
                f"its options: {offered}"
            )


async def _or_none(probe: Awaitable[T]) -> T | None:
    """A probe the budget stopped before sending counts as not sent."""
    try:
        return await probe
    except BudgetExhausted:
        return None


def _unusable(prober: Prober, small: Sent, redact: Redactor, base_url: str) -> EndpointUnusable:
    error = small.error
    assert error is not None, "only an unanswered small request is unusable"
    kind = prober.client.provider_kind
    options = f"{kind} endpoint {prober.model!r}"
    rendered = describe_failure(error, streamed=small.request.stream)
    hint = version_hint(kind, base_url) if error.status == NOT_FOUND else None
    message = f"{options} did not answer the small request: {rendered}"
    return EndpointUnusable(redact(message + (f"\nhint: {hint}" if hint else "")))


NOT_FOUND: Final = 404
_VERSION_SEGMENT: Final = "/v1"


def version_hint(kind: str, base_url: str) -> str | None:
    """What a 404 most likely means about ``base_url``'s version segment: OpenAI-style
    kinds include ``/v1`` in the base URL (as their SDKs do), the others' clients add
    their own path to the host's (``harness.providers.plumbing.factory``)."""
    base = base_url.rstrip("/")
    versioned = urllib.parse.urlsplit(base).path.endswith(_VERSION_SEGMENT)
    openai_style = issubclass(CLIENT_CLASSES[kind], OpenAIChatClient | OpenAIResponsesClient)
    if openai_style and not versioned:
        return (
            f"an {kind} base URL ends with /v1, as the OpenAI SDKs spell it:"
            f" try --base-url {base}{_VERSION_SEGMENT}"
        )
    if not openai_style and versioned:
        return (
            f"the {kind} client adds its own path (/v1/...) to the base URL:"
            f" try --base-url {base.removesuffix(_VERSION_SEGMENT)}"
        )
    return None


async def _streamed_overflow(prober: Prober, kind: str, search: WindowSearch) -> Sent | None:
    """Wires that stream can fail inside a 200 stream: send a request clearly past the
    window (``STREAM_PROBE_FACTOR`` times the smallest refused size) once, streamed."""
    refused = [p.estimate for p in search.points if p.sent.error is not None]
    if kind not in STREAMING_KINDS or not refused:
        return None
    size = int(min(refused) * STREAM_PROBE_FACTOR)
    return await _or_none(prober.sized(size, purpose="overflow_streamed", stream=True))


async def _recovery(
    prober: Prober,
    ledger: Ledger,
    search: WindowSearch,
    sleep: Sleep,
    observers: Sequence[Observer],
) -> RecoveryResult:
    miss = search.not_fitting
    if miss is None:
        return RecoveryResult(ran=False, note="the window was not found within the budget")
    if not affordable(ledger, push_size(miss.estimate)):
        return RecoveryResult(ran=False, note="the budget left cannot pay for the session")
    return await run_recovery(
        prober.client,
        prober.model,
        miss.estimate,
        sleep=sleep,
        redact=prober.client.redact,
        observers=observers,
    )


async def _probe_all(
    prober: Prober, plan: Plan, sleep: Sleep, observers: Sequence[Observer]
) -> Findings:
    client, kind = prober.client, plan.options.provider
    try:
        small = await prober.small()
    except BudgetExhausted as exhausted:
        message = f"the budget cannot pay for the small request: {exhausted}"
        raise ConformanceConfigError(message) from None
    if small.error is not None:
        raise _unusable(prober, small, client.redact, plan.options.base_url)
    orphan = await _or_none(prober.orphan_result())
    unanswered = await _or_none(prober.unanswered_call())
    row_null = await _or_none(prober.tool_round(None))
    row_empty = await _or_none(prober.tool_round(""))
    streams = kind in STREAMING_KINDS
    reserve = COST_FACTOR + (STREAM_PROBE_FACTOR if streams else 0.0)
    search_plan = SearchPlan(reserve, plan.options.context_window)
    search = await find_window(prober, client.ledger, small, search_plan)
    streamed = await _streamed_overflow(prober, kind, search)
    recovery = await _recovery(prober, client.ledger, search, sleep, observers)
    return Findings(
        kind=kind,
        declared_window=plan.options.context_window,
        small=small,
        orphan=orphan,
        unanswered=unanswered,
        row_null=row_null,
        row_empty=row_empty,
        search=search,
        streamed=streamed,
        recovery=recovery,
        exchanges=tuple(client.exchanges),
    )


async def run_conformance(
    plan: Plan,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    sleep: Sleep = asyncio.sleep,
    observers: Sequence[Observer] = (),
    progress: Progress | None = None,
    on_request: Callable[[], None] | None = None,
) -> ConformanceReport:
    """Probe the endpoint within ``plan.budget`` and judge it.

    Raises ``EndpointUnusable`` when the small request gets no answer (each request waits
    at most ``plan.request_timeout_s``). ``observers`` see the recovery session's events
    (transcripts, spans); ``progress`` is told about each request as it goes, in words;
    ``on_request`` is called for each request the budget admits (the progress bar).
    """
    options = plan.options
    redact = Redactor(plan.api_key, secrets_of(options.headers))
    timeout = httpx.Timeout(
        plan.request_timeout_s, connect=min(CONNECT_TIMEOUT_S, plan.request_timeout_s)
    )
    counters = CountersSeen()
    hooks: dict[str, list[Callable[..., Any]]] = {"response": [counters]}
    async with httpx.AsyncClient(transport=transport, timeout=timeout, event_hooks=hooks) as http:
        inner = make_client(
            options.provider,
            client=http,
            base_url=options.base_url,
            api_key=plan.api_key,
            extra_headers=dict(options.headers),
        )
        client = MeteredClient(inner, Ledger(plan.budget, on_request), redact, progress)
        prober = Prober(client, options.model, sleep)
        findings = await _probe_all(prober, plan, sleep, observers)
        side = await probe_provider_side(
            prober, inner, findings.search, options.provider_side, options.context_window
        )
        if options.probe_cache:  # last: it never takes the budget of a check that decides
            findings = replace(findings, cache=await probe_cache(prober, findings.search))
    return _report(plan, findings, client, redact, side, counter=counters.label)


def _report(
    plan: Plan,
    findings: Findings,
    client: MeteredClient,
    redact: Redactor,
    provider_side: tuple[ProviderSideOutcome, ...] = (),
    *,
    counter: str,
) -> ConformanceReport:
    judged = all_checks(findings, redact)
    checks = (*judged.checks, provider_side_check(provider_side))
    if plan.options.probe_cache:  # information, after the checks that decide conformance
        checks += (prompt_cache(findings.cache, findings.kind),)
    search, ledger = findings.search, client.ledger
    return ConformanceReport(
        provider=plan.options.provider,
        base_url=redact(plan.options.base_url),
        model=plan.options.model,
        spent=Spent(
            max_requests=plan.budget.max_requests,
            max_input_tokens=plan.budget.max_input_tokens,
            requests=ledger.requests,
            input_tokens=ledger.input_tokens,
            estimated_input_tokens=ledger.estimated_tokens,
            reported_input_tokens=ledger.reported_tokens,
        ),
        checks=checks,
        window=WindowFinding(
            declared=plan.options.context_window,
            measured=search.measured if search else None,
            lower_bound=search.lower_bound if search else None,
            upper_bound=search.upper_bound if search else None,
            tolerance=WINDOW_TOLERANCE,
            stopped=search.stopped if search else "budget",
            probes=len(search.points) - 1 if search else 0,
        ),
        overflow=judged.overflow,
        pairing=judged.pairing,
        row_shapes=judged.row_shapes,
        recovery=findings.recovery,
        exchanges=tuple(client.exchanges),
        counter=counter,
        estimate_ratio=EstimateRatio.of(client.exchanges),
    )
