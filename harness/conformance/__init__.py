"""Conformance testing of a provider endpoint: is it safe for a runtime that trims by
budget and recovers from overflow?

``plan(ConformanceOptions(...))`` validates the options, reads the API key from the named
environment variable (and from nowhere else) and resolves the budget;
``await run_conformance(plan)`` probes the endpoint and returns a ``ConformanceReport``.
``trimscope conformance`` is the command around the two.

Cost. Every request passes ``Ledger.admit`` first (``harness.conformance.budget``): at most
``max_requests`` requests and ``max_input_tokens`` input tokens (the runtime's estimate of
each request, raised to the endpoint's reported count once it answers). A probe that
cannot be paid for is not sent, and the checks that needed it say *inconclusive*.

Checks (each ``pass``, ``fail``, ``inconclusive`` or ``n/a``):

``small_request``
    A two-row request is answered, with input and output usage present and plausible
    (input within a factor of four of the estimate, output at most 4 × ``max_tokens``).
``tool_pairing``
    An orphaned tool result and an unanswered tool call are each rejected with a non-overflow
    4xx whose body is about tool calls and results. Acceptance passes only for kinds whose
    lenience is documented (``LENIENT_PAIRING_KINDS``: Ollama, vLLM, llama.cpp, LM Studio;
    Cohere, whose answer is uncatalogued, is noted the same way); a rejection that reads as
    an overflow fails; any other error (a 5xx, a 4xx about something else) is
    *inconclusive*, with the body shown.
``row_shapes``
    A well-paired tool round is accepted both with a tool-call-only assistant row sent as
    ``content: null`` (what the runtime writes) and as ``content: ""`` (what a history seeded
    from some providers carries); refusing either, with any status, fails.
``window``
    The window measured by growth then bisection (in the endpoint's reported tokens) is
    within 5 % (``WINDOW_TOLERANCE``) of ``--context-window``; ``n/a`` without a claim.
``overflow_recognised``
    The answer past the window (and, on wires that stream, the streamed one) is an overflow
    to the ``extended`` classifier, the runtime's default. The ``reference`` verdict is
    reported, never required. Silent truncation fails here too: there is nothing to recognise.
``overflow_shape``
    That answer is an HTTP 4xx, or an error event inside a stream the request asked for.
    An error body inside an HTTP 200 (OpenRouter), a 5xx, or a dropped connection fails.
``silent_truncation``
    No reply reports fewer input tokens than the calibration predicts for what was sent.
``look_alike``
    No error that cannot be an overflow (a 429, or a request no larger than one the
    endpoint accepted) reads as an overflow to *either* classifier: a false positive makes a
    runtime drop history on a throttle, and the endpoint's wording is what causes it.
``recovery``
    An ``Agent`` session seeded past the real window (proactive trims off) gets an overflow,
    trims reactively and answers.
``provider_side``
    Each provider-side context management option the endpoint claims (``--provider-side``)
    is probed once and said ``honoured``, ``rejected`` (a non-overflow 4xx), ``ignored``
    (answered without the edit, or refused as an overflow despite ``truncation``) or
    ``inconclusive`` (``harness.conformance.provider_side``); ``n/a`` without claims.

Waiting. A 429 is retried twice after its ``retry-after``; a 503 (a server still loading
its model) is retried for at most 60 s per probe, waits doubling from 1 s; each request
gives up after ``--request-timeout`` seconds (``DEFAULT_REQUEST_TIMEOUT_S``, 120). The
report also gives the reported input tokens ÷ the runtime's estimate over the answered
requests (``EstimateRatio``), the figure that sizes a budget's headroom.

**The endpoint conforms when every check is ``pass`` or ``n/a``** (exit code 0). Any
``fail`` or ``inconclusive`` means it does not (exit code 1). Invalid options, or an endpoint
that cannot answer the small request at all (unreachable, authentication, unknown model),
exit with code 2 and an error naming the provider, the status and the body.

The API key is sent as the wire's auth header and nowhere else: it is never printed, and
every endpoint text in the report is redacted (an endpoint that echoes the key gets
``[redacted]``).
"""

from harness.conformance.budget import (
    DEFAULT_MAX_REQUESTS,
    BudgetExhausted,
    Ledger,
    ProbeBudget,
    request_cost,
)
from harness.conformance.checks import LENIENT_PAIRING_KINDS
from harness.conformance.metered import Exchange, MeteredClient, Redactor
from harness.conformance.render import budget_line, markdown, table, to_json_text, write_atomically
from harness.conformance.report import (
    Check,
    ConformanceReport,
    OverflowAnswer,
    PairingOutcome,
    Verdict,
    WindowFinding,
)
from harness.conformance.runner import (
    DEFAULT_REQUEST_TIMEOUT_S,
    STREAMING_KINDS,
    ConformanceConfigError,
    ConformanceOptions,
    EndpointUnusable,
    Plan,
    plan,
    run_conformance,
)
from harness.conformance.window import WINDOW_TOLERANCE

__all__ = [
    "DEFAULT_MAX_REQUESTS",
    "DEFAULT_REQUEST_TIMEOUT_S",
    "LENIENT_PAIRING_KINDS",
    "STREAMING_KINDS",
    "WINDOW_TOLERANCE",
    "BudgetExhausted",
    "Check",
    "ConformanceConfigError",
    "ConformanceOptions",
    "ConformanceReport",
    "EndpointUnusable",
    "Exchange",
    "Ledger",
    "MeteredClient",
    "OverflowAnswer",
    "PairingOutcome",
    "Plan",
    "ProbeBudget",
    "Redactor",
    "Verdict",
    "WindowFinding",
    "budget_line",
    "markdown",
    "plan",
    "request_cost",
    "run_conformance",
    "table",
    "to_json_text",
    "write_atomically",
]
