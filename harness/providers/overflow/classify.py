"""Overflow classifiers (spec 19.10): is this provider answer a context-window overflow?

Two classifiers, both pure functions of ``(provider, status, body)``, where ``body`` is the
provider's own body (an HTTP body, or the data of an in-stream error event, status ``None``):

``reference``
    Exactly the reference runtime: ``harness.runtime.is_context_window_exceeded`` applied to
    ``render_provider_error(provider, status, body)``, i.e. ten lower-cased substrings over
    ``"{provider} API error ({status}): {body[:500]}"``. It keeps the reference's misses
    (Gemini, Groq, xAI, Together, LM Studio, Ollama's 400, Anthropic's input + max_tokens,
    anything past character 500) and its false positives (Bedrock's throttle "Too many
    tokens, please wait", a proxy's "token limit exceeded for this minute").

``extended``
    Rules that generalise across the field (``harness.providers.overflow.rules``), measured
    on a public corpus of real answers (tests/corpus, docs/recognition-matrix.md): look-alike
    exclusions first, then structure (codes, ``n_ctx``/``n_prompt_tokens``), then the shapes
    overflow messages take, read through every wrapping (``harness.providers.overflow.text``),
    then a token count set above a limit in any words
    (``harness.providers.overflow.structure``).
    ``extended_verdict`` names the rule that decided.

The runtime uses ``extended`` by default; every ``ProviderError`` carries every verdict
(``OverflowVerdicts``, decided once) and ``Classifier.decides`` reads the configured one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from itertools import islice
from typing import Final, Protocol

from harness.providers.overflow.errors import OverflowVerdicts, render_provider_error
from harness.providers.overflow.rules import (
    CODE_KEYS,
    EVIDENCE,
    EXCLUSIONS,
    NOT_OVERFLOW_STATUSES,
    OVERFLOW_CODES,
    OVERFLOW_NUMERIC_CODES,
)
from harness.providers.overflow.structure import RULE_NAME as COUNT_RULE
from harness.providers.overflow.structure import count_over_limit
from harness.providers.overflow.text import BodyViews, body_views, in_prose_quote
from harness.runtime.overflow import (
    is_channel_context_window_overflow,
    is_context_window_exceeded,
)

NO_EVIDENCE: Final = "no-evidence"
STATUS_RULE: Final = "status"
QUOTED_RULE: Final = "quoted-text"
MAX_MATCHES: Final = 16  # matches per rule weighed for quotation: bounds a hostile body


class OverflowClassifier(Protocol):
    def __call__(self, provider: str, status: int | None, body: str) -> bool: ...


def reference_is_overflow(provider: str, status: int | None, body: str) -> bool:
    """The reference's verdict, misses and false positives included."""
    return is_context_window_exceeded(render_provider_error(provider, status, body))


@dataclass(frozen=True, slots=True)
class ExtendedVerdict:
    """``extended``'s verdict and the name of the rule that decided it."""

    is_overflow: bool
    rule: str


def extended_verdict(provider: str, status: int | None, body: str) -> ExtendedVerdict:
    """Exclusions, then structure, then message shapes (overflow_rules' docstring). The
    provider never changes the verdict; the status only rules out (402, 429): an overflow
    arriving with a 500 or a 200 stream is still recognised."""
    del provider
    views = body_views(body)
    haystack = f"{views.raw} {views.decoded}"
    for rule in EXCLUSIONS:
        if rule.pattern.search(haystack):
            return ExtendedVerdict(False, rule.name)
    if status in NOT_OVERFLOW_STATUSES:
        return ExtendedVerdict(False, STATUS_RULE)
    structural = _structural_rule(views)
    if structural is not None:
        return ExtendedVerdict(True, structural)
    verdict = _message_verdict(views)
    if verdict.rule == NO_EVIDENCE and count_over_limit(
        views.raw, lambda start: in_prose_quote(views.raw, start)
    ):
        return ExtendedVerdict(True, COUNT_RULE)
    return verdict


def extended_is_overflow(provider: str, status: int | None, body: str) -> bool:
    return extended_verdict(provider, status, body).is_overflow


class Classifier(StrEnum):
    """The two classifiers by name, as scenario files and reports spell them."""

    REFERENCE = "reference"
    EXTENDED = "extended"

    def is_overflow(self, provider: str, status: int | None, body: str) -> bool:
        if self is Classifier.REFERENCE:
            return reference_is_overflow(provider, status, body)
        return extended_is_overflow(provider, status, body)

    def decides(self, verdicts: OverflowVerdicts, *, channel: bool = False) -> bool:
        """This classifier's verdict among ``verdicts``: the one place an agent reads
        whether a failure is an overflow. ``channel`` selects the reference channel's own
        hint list, which the reference channel uses in place of the agent's."""
        if self is Classifier.REFERENCE:
            return verdicts.channel if channel else verdicts.reference
        return verdicts.extended


DEFAULT_CLASSIFIER: Final = Classifier.EXTENDED


def classify_overflow(provider: str, status: int | None, body: str) -> OverflowVerdicts:
    """Every verdict of one ``(provider, status, body)`` at once; a ``ProviderError`` built
    from it carries the same (``harness.providers.overflow.errors.ProviderError.verdicts``)."""
    text = render_provider_error(provider, status, body)
    return OverflowVerdicts(
        reference=is_context_window_exceeded(text),
        extended=extended_is_overflow(provider, status, body),
        channel=is_channel_context_window_overflow(text),
    )


def is_context_window_stop(finish_reason: str | None) -> bool:
    """A *successful* reply whose generation stopped at the window (Anthropic's
    ``stop_reason: model_context_window_exceeded``, Bedrock's equivalent). Not an error:
    the reply is returned, and callers that care ask this."""
    return finish_reason is not None and finish_reason.lower() == "model_context_window_exceeded"


def _structural_rule(views: BodyViews) -> str | None:
    numbers: dict[str, int] = {}
    for key, value in views.keys:
        lowered = key.lower()
        if lowered in CODE_KEYS and isinstance(value, str) and value.lower() in OVERFLOW_CODES:
            return "code"
        numeric = isinstance(value, int | str) and not isinstance(value, bool)
        if lowered == "code" and numeric and str(value) in OVERFLOW_NUMERIC_CODES:
            return "numeric-code"
        if lowered in {"n_ctx", "n_prompt_tokens"} and isinstance(value, int):
            numbers[lowered] = value
    if (
        numbers.keys() == {"n_ctx", "n_prompt_tokens"}
        and numbers["n_prompt_tokens"] > numbers["n_ctx"]
    ):
        return "n-prompt-over-n-ctx"
    return None


def _message_verdict(views: BodyViews) -> ExtendedVerdict:
    """The first evidence rule that matches outside a prose quotation decides; a match
    only inside quotations is a user's own sentence."""
    quoted = False
    for rule in EVIDENCE:
        in_raw = [m.start() for m in islice(rule.pattern.finditer(views.raw), MAX_MATCHES)]
        if any(not in_prose_quote(views.raw, start) for start in in_raw):
            return ExtendedVerdict(True, rule.name)
        if in_raw:
            quoted = True
        elif rule.pattern.search(views.decoded):
            return ExtendedVerdict(True, rule.name)
    return ExtendedVerdict(False, QUOTED_RULE if quoted else NO_EVIDENCE)
