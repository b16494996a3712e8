"""From what the probes saw to one verdict per check (see the package docstring for the
definition of "conforms")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Final

from harness.conformance.metered import Exchange, Redactor
from harness.conformance.payloads import PROBE_MAX_TOKENS
from harness.conformance.probes import Sent, is_rate_limit
from harness.conformance.recovery import RecoveryResult
from harness.conformance.report import Check, OverflowAnswer, PairingOutcome, Verdict
from harness.conformance.window import WINDOW_TOLERANCE, WindowSearch, within_claim
from harness.providers import classify_overflow

LENIENT_PAIRING_KINDS: Final = frozenset(
    {"ollama", "ollama-openai", "vllm", "llamacpp", "lmstudio"}
)
"""Local servers that render the chat template without checking tool pairing (the fakes'
profiles say so too): accepting an orphan is their documented behaviour, not a defect."""
UNCATALOGUED_PAIRING_KINDS: Final = frozenset({"cohere"})
"""Kinds whose answer to an orphaned pair providers.md never captured: lenient is noted."""
PAIRING_WORDING: Final = re.compile(
    r"tool[_ ]?(call|use|result|output)|function[_ ]?(call|response)|role '?tool",
    re.IGNORECASE,
)
"""What a body about tool pairing mentions (OpenAI, Anthropic, Gemini, Bedrock, Responses
wordings in the fakes' catalogue): a 4xx without it was refused for something else."""
_CLIENT_ERRORS: Final = range(HTTPStatus.BAD_REQUEST, HTTPStatus.INTERNAL_SERVER_ERROR)
ROW_SHAPE_NAMES: Final = {"row_shape_null": "content null", "row_shape_empty": 'content ""'}
GOOD_SHAPES: Final = frozenset({"http_error", "in_stream_error"})
SILENT_SHAPES: Final = frozenset({"silent_truncation", "stream_accepted"})
_SHAPE_WHY: Final = {
    "stream_accepted": "a streamed request past the window was answered, not refused",
    "http_200_error_body": "an error inside an HTTP 200: status-based retries, gateways "
    "and metrics count it as a success",
    "http_5xx": "a server-error status: retry layers resend the same oversize request",
    "no_http_status": "the connection failed without an HTTP answer",
}


@dataclass(frozen=True, slots=True)
class Findings:
    kind: str
    declared_window: int | None
    small: Sent
    orphan: Sent | None
    unanswered: Sent | None
    row_null: Sent | None
    row_empty: Sent | None
    search: WindowSearch | None
    streamed: Sent | None
    recovery: RecoveryResult
    exchanges: Sequence[Exchange]
    cache: tuple[Sent, Sent] | None = None  # --probe-cache: judged by caching.prompt_cache


@dataclass(frozen=True, slots=True)
class Judged:
    checks: tuple[Check, ...]
    overflow: tuple[OverflowAnswer, ...]
    pairing: tuple[PairingOutcome, ...]
    row_shapes: tuple[PairingOutcome, ...]


def counted(value: int | None) -> str:
    """A count for a sentence: never a Python ``None``."""
    return "none reported" if value is None else str(value)


def small_request(small: Sent) -> Check:
    title = "Small request"
    reply = small.reply
    assert reply is not None, "an unanswered small request ends the run (exit 2)"
    usage = reply.usage
    seen = (
        f"input {counted(usage.input_tokens)} (estimate {small.estimate}), "
        f"output {counted(usage.output_tokens)}"
    )
    if not (reply.text or reply.tool_calls):
        return Check("small_request", title, Verdict.FAIL, f"empty answer; usage {seen}")
    if usage.input_tokens is None or usage.output_tokens is None:
        why = "usage missing: reported-usage trims and truncation checks have nothing to read"
        return Check("small_request", title, Verdict.FAIL, f"{why} ({seen})")
    low, high = small.estimate / 4, small.estimate * 4 + 64
    if not low <= usage.input_tokens <= high or usage.output_tokens < 0:
        return Check("small_request", title, Verdict.FAIL, f"implausible usage: {seen}")
    if usage.output_tokens > PROBE_MAX_TOKENS * 4:
        why = f"output tokens far above max_tokens={PROBE_MAX_TOKENS}"
        return Check("small_request", title, Verdict.FAIL, f"{why}: {seen}")
    return Check("small_request", title, Verdict.PASS, f"answered; usage {seen}")


def _about_pairing(body: str) -> bool:
    return PAIRING_WORDING.search(body) is not None


def pairing_outcome(probe: str, sent: Sent | None, redact: Redactor) -> PairingOutcome:
    """``rejected`` only for a 4xx that speaks of tool calls and their results; any other
    error (a 5xx, a 4xx about something else) is ``failed``: it says nothing about pairing."""
    if sent is None:
        return PairingOutcome(probe, "not_sent")
    if sent.error is None:
        status = sent.reply.status_code if sent.reply else None
        return PairingOutcome(probe, "accepted", status)
    error = sent.error
    if is_rate_limit(error):
        return PairingOutcome(probe, "throttled", error.status)
    client_error = error.status in _CLIENT_ERRORS
    outcome = "rejected" if client_error and _about_pairing(error.body) else "failed"
    return PairingOutcome(probe, outcome, error.status, redact.excerpt(error.body))


def _seen(outcomes: Sequence[PairingOutcome]) -> str:
    return ", ".join(f"{o.probe}: {o.outcome}{_status_note(o.status)}" for o in outcomes)


def _status_note(status: int | None) -> str:
    return "" if status is None else f" ({status})"


def _answer(o: PairingOutcome) -> str:
    status = "no HTTP status" if o.status is None else f"HTTP {o.status}"
    return f"{status} '{o.excerpt[:160]}'"


def _bodies(outcomes: Sequence[PairingOutcome]) -> str:
    return "; ".join(f"{o.probe}: {_answer(o)}" for o in outcomes if o.outcome == "failed")


def tool_pairing(outcomes: Sequence[PairingOutcome], findings: Findings) -> Check:
    kind = findings.kind
    title = "Tool pairing"
    seen = _seen(outcomes)
    if any(o.outcome in ("not_sent", "throttled") for o in outcomes):
        return Check("tool_pairing", title, Verdict.INCONCLUSIVE, f"no verdict; {seen}")
    errors = [s.error for s in (findings.orphan, findings.unanswered) if s and s.error]
    if any(classify_overflow(e.provider, e.status, e.body).extended for e in errors):
        why = "a pairing rejection reads as an overflow to extended: the runtime would trim"
        return Check("tool_pairing", title, Verdict.FAIL, f"{why}; {seen}")
    if any(o.outcome == "failed" for o in outcomes):
        why = "failed for another reason than pairing, so enforcement is unknown"
        return Check("tool_pairing", title, Verdict.INCONCLUSIVE, f"{why}: {_bodies(outcomes)}")
    if all(o.outcome == "rejected" for o in outcomes):
        return Check("tool_pairing", title, Verdict.PASS, f"enforced: {seen}")
    if kind in LENIENT_PAIRING_KINDS or kind in UNCATALOGUED_PAIRING_KINDS:
        note = "documented" if kind in LENIENT_PAIRING_KINDS else "uncatalogued, noted"
        why = f"not enforced ({note} for {kind}): the runtime's orphan sweep is the only guard"
        return Check("tool_pairing", title, Verdict.PASS, f"{why}; {seen}")
    why = "not enforced: a trim that splits a tool pair would go unnoticed"
    return Check("tool_pairing", title, Verdict.FAIL, f"{why}; {seen}")


def row_shapes(outcomes: Sequence[PairingOutcome]) -> Check:
    """Both shapes of a tool-call-only assistant row the runtime replays must be accepted:
    an endpoint that refuses one (llama-cpp-python answers 500 to ``content: null``) fails
    every request that carries such a turn, whatever the status says."""
    title = "Tool-call row shapes"
    seen = _seen(outcomes)
    if any(o.outcome in ("not_sent", "throttled") for o in outcomes):
        return Check("row_shapes", title, Verdict.INCONCLUSIVE, f"no verdict; {seen}")
    refused = [o for o in outcomes if o.outcome != "accepted"]
    if refused:
        first = refused[0]
        shape = ROW_SHAPE_NAMES.get(first.probe, first.probe)
        why = (
            f"a tool-call-only assistant row with {shape} is refused ({_answer(first)}): "
            "every request replaying such a turn fails"
        )
        return Check("row_shapes", title, Verdict.FAIL, f"{why}; {seen}")
    return Check("row_shapes", title, Verdict.PASS, f"both accepted; {seen}")


def _pct(measured: int, declared: int) -> str:
    return f"{(measured - declared) / declared:+.1%}"


# a ladder of verdicts, one return each
def window(search: WindowSearch | None, declared: int | None) -> Check:  # noqa: PLR0911
    title = "Window vs claim"
    if search is None:
        return Check("window", title, Verdict.INCONCLUSIVE, "budget reached before the search")
    measured, low, high = search.measured, search.lower_bound, search.upper_bound
    if declared is None:
        seen = f"≈ {measured} tokens" if measured is not None else f"at least {counted(low)} tokens"
        return Check("window", title, Verdict.NOT_APPLICABLE, f"no claim; measured {seen}")
    slack = WINDOW_TOLERANCE * declared
    if measured is not None and abs(measured - declared) <= slack:
        seen = f"measured ≈ {measured} tokens, declared {declared} ({_pct(measured, declared)})"
        return Check("window", title, Verdict.PASS, seen)
    if measured is None and within_claim(search, declared):
        seen = f"between {low} and {high} tokens (search stopped early), declared {declared}"
        return Check("window", title, Verdict.PASS, seen)
    if measured is not None:
        why = f"declared {declared} but the endpoint holds ≈ {measured} tokens"
        effect = "budgets from the claim overflow" if measured < declared else "they waste room"
        return Check("window", title, Verdict.FAIL, f"{why} ({_pct(measured, declared)}): {effect}")
    if high is not None and high < declared - slack:
        why = f"declared {declared} but {high} tokens already do not fit"
        return Check("window", title, Verdict.FAIL, why)
    if low is not None and low > declared + slack:
        return Check("window", title, Verdict.FAIL, f"declared {declared} but {low} tokens fit")
    why = (
        f"search stopped ({search.stopped}) with {counted(low)} fitting "
        f"and {counted(high)} not fitting"
    )
    return Check("window", title, Verdict.INCONCLUSIVE, why)


def shape_of(status: int | None, streamed: bool) -> str:
    if status is None:
        return "in_stream_error" if streamed else "no_http_status"
    if status < HTTPStatus.MULTIPLE_CHOICES:
        return "http_200_error_body"
    return "http_5xx" if status >= HTTPStatus.INTERNAL_SERVER_ERROR else "http_error"


def _error_answer(sent: Sent, redact: Redactor) -> OverflowAnswer | None:
    error = sent.error
    if error is None or is_rate_limit(error):
        return None
    verdicts = classify_overflow(error.provider, error.status, error.body)
    return OverflowAnswer(
        shape=shape_of(error.status, sent.request.stream),
        status=error.status,
        streamed=sent.request.stream,
        estimate_tokens=sent.estimate,
        error_class=type(error).__name__,
        reference=verdicts.reference,
        extended=verdicts.extended,
        excerpt=redact.excerpt(error.body),
    )


def _silent_answer(shape: str, sent: Sent, shown: str) -> OverflowAnswer:
    status = sent.reply.status_code if sent.reply else None
    return OverflowAnswer(
        shape, status, sent.request.stream, sent.estimate, None, False, False, shown
    )


def overflow_answers(findings: Findings, redact: Redactor) -> tuple[OverflowAnswer, ...]:
    """The first refusal of the search (or its first truncation), then the streamed probe."""
    search = findings.search
    answers: list[OverflowAnswer] = []
    refusal = search.first_refusal if search else None
    first = _error_answer(refusal.sent, redact) if refusal else None
    if first is not None:
        answers.append(first)
    elif search is not None and search.truncations:
        cut = search.truncations[0]
        shown = f"reported {cut.reported} input tokens for about {cut.estimate} sent"
        answers.append(_silent_answer("silent_truncation", cut.sent, shown))
    streamed = findings.streamed
    if streamed is not None and streamed.ok:
        shown = f"a streamed request of about {streamed.estimate} tokens was answered"
        answers.append(_silent_answer("stream_accepted", streamed, shown))
    elif streamed is not None and (answer := _error_answer(streamed, redact)) is not None:
        answers.append(answer)
    return tuple(answers)


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def overflow_recognised(answers: Sequence[OverflowAnswer]) -> Check:
    title = "Overflow recognised"
    if not answers:
        why = "no request went past the window within the budget"
        return Check("overflow_recognised", title, Verdict.INCONCLUSIVE, why)
    errors = [a for a in answers if a.shape not in SILENT_SHAPES]
    if not errors:
        why = "no overflow answer at all: requests past the window are silently truncated"
        return Check("overflow_recognised", title, Verdict.FAIL, why)
    seen = "; ".join(
        f"{a.shape}: extended {_yes(a.extended)}, reference {_yes(a.reference)}" for a in errors
    )
    if not all(a.extended for a in errors):
        why = "the extended classifier misses it, so reactive recovery never starts"
        return Check("overflow_recognised", title, Verdict.FAIL, f"{why} ({seen})")
    return Check("overflow_recognised", title, Verdict.PASS, seen)


def overflow_shape(answers: Sequence[OverflowAnswer]) -> Check:
    """Silent truncation is judged by its own check; everything else by its shape."""
    title = "Overflow answer shape"
    judged = [a for a in answers if a.shape != "silent_truncation"]
    if not judged:
        verdict = Verdict.NOT_APPLICABLE if answers else Verdict.INCONCLUSIVE
        return Check("overflow_shape", title, verdict, "no overflow error answer seen")
    seen = ", ".join(a.shape if a.status is None else f"{a.shape} ({a.status})" for a in judged)
    bad = [a for a in judged if a.shape not in GOOD_SHAPES]
    if bad:
        return Check("overflow_shape", title, Verdict.FAIL, f"{seen}: {_SHAPE_WHY[bad[0].shape]}")
    return Check("overflow_shape", title, Verdict.PASS, seen)


def silent_truncation(search: WindowSearch | None) -> Check:
    title = "Silent truncation"
    if search is None or not search.calibration.measured:
        why = "no reported input usage to compare with what was sent"
        return Check("silent_truncation", title, Verdict.INCONCLUSIVE, why)
    if search.truncations:
        worst = min(search.truncations, key=lambda p: (p.reported or 0) / p.estimate)
        why = f"reported {worst.reported} input tokens for about {worst.estimate} sent"
        return Check("silent_truncation", title, Verdict.FAIL, f"{why} (HTTP 200, no error)")
    if search.not_fitting is None:
        why = "no request went past the window within the budget"
        return Check("silent_truncation", title, Verdict.INCONCLUSIVE, why)
    fits = len([p for p in search.points if p.fits])
    return Check("silent_truncation", title, Verdict.PASS, f"usage matched in {fits} replies")


def look_alike(exchanges: Sequence[Exchange], search: WindowSearch | None, small: Sent) -> Check:
    """Errors that cannot be overflows (a 429, or a request no larger than one the endpoint
    accepted) must not read as overflows to either classifier: a false positive makes a
    runtime drop history on a throttle, which is worse than a loud miss."""
    title = "Look-alike safety"
    fit = search.fitting if search else None
    largest = fit.estimate if fit is not None else small.estimate
    # Recovery requests are left out of the size rule: many rows carry more per-row
    # overhead than the one-row probes, so their estimates do not compare.
    candidates = [
        e for e in exchanges
        if not e.ok and (
            e.status == HTTPStatus.TOO_MANY_REQUESTS
            or (e.purpose != "recovery" and e.estimate_tokens <= largest)
        )
    ]  # fmt: skip
    fooled = [e for e in candidates if e.reference or e.extended]
    if fooled:
        first = fooled[0]
        who = " and ".join(
            n for n, v in (("extended", first.extended), ("reference", first.reference)) if v
        )
        why = (
            f"{first.status} '{first.excerpt[:80]}' ({first.purpose}) reads as an overflow to {who}"
        )
        return Check(
            "look_alike",
            title,
            Verdict.FAIL,
            f"{why}: a runtime trusting it trims on a non-overflow",
        )
    if candidates:
        seen = ", ".join(sorted({str(e.status) for e in candidates}))
        why = f"{len(candidates)} non-overflow error(s) ({seen}) told apart by both classifiers"
        return Check("look_alike", title, Verdict.PASS, why)
    return Check("look_alike", title, Verdict.NOT_APPLICABLE, "no non-overflow error seen")


def recovery(result: RecoveryResult) -> Check:
    title = "Reactive recovery"
    if not result.ran:
        return Check("recovery", title, Verdict.INCONCLUSIVE, f"not run: {result.note}")
    tried = ", ".join(result.recoveries) or "none"
    calls = result.provider_calls
    seen = f"history of {result.pushed_tokens} tokens; recoveries: {tried}; {calls} calls"
    if result.works:
        return Check("recovery", title, Verdict.PASS, f"recovered and answered ({seen})")
    if result.stopped_by_budget:
        return Check("recovery", title, Verdict.INCONCLUSIVE, f"budget reached ({seen})")
    if result.error is not None:
        return Check("recovery", title, Verdict.FAIL, f"turn failed: {result.error} ({seen})")
    if result.answered and result.overflows_detected == 0:
        why = "answered without any overflow: part of the history was dropped silently"
        return Check("recovery", title, Verdict.FAIL, f"{why} ({seen})")
    return Check("recovery", title, Verdict.FAIL, f"no recovery ({seen})")


def all_checks(findings: Findings, redact: Redactor) -> Judged:
    pairing = (
        pairing_outcome("orphan_tool_result", findings.orphan, redact),
        pairing_outcome("unanswered_tool_call", findings.unanswered, redact),
    )
    shapes = (
        pairing_outcome("row_shape_null", findings.row_null, redact),
        pairing_outcome("row_shape_empty", findings.row_empty, redact),
    )
    answers = overflow_answers(findings, redact)
    checks = (
        small_request(findings.small),
        tool_pairing(pairing, findings),
        row_shapes(shapes),
        window(findings.search, findings.declared_window),
        overflow_recognised(answers),
        overflow_shape(answers),
        silent_truncation(findings.search),
        look_alike(findings.exchanges, findings.search, findings.small),
        recovery(findings.recovery),
    )
    return Judged(checks, answers, pairing, shapes)
