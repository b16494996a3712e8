"""Provider errors: one branch of the project's exception tree (root ``HarnessError``).

Every error names the provider, the HTTP status and the body, so a user can see exactly
what the endpoint answered, and every error carries what each overflow classifier said of
it (``verdicts``), decided once when it is built; the agent reads the verdict of the
classifier it was configured with (``harness.agent.overflow_decision``) and never
re-reads the error's text. Every error class also declares the call outcome a failed
attempt with it is counted as (``counted_as``), read by the agent's loop and the proxy
alike, so the two cannot name a failure differently.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.runtime.errors import HarnessError
from harness.runtime.overflow import (
    is_channel_context_window_overflow,
    is_context_window_exceeded,
)

MAX_RENDERED_BODY_CHARS = 500
"""The reference renders provider failures with the body cut to 500 characters."""


def render_provider_error(provider: str, status: int | None, body: str) -> str:
    """The text the reference's substring classifier reads.

    Shape: ``{provider} API error ({status}): {body}``, the body cut to 500 characters.
    """
    shown = "stream" if status is None else str(status)
    return f"{provider} API error ({shown}): {body[:MAX_RENDERED_BODY_CHARS]}"


@dataclass(frozen=True, slots=True)
class OverflowVerdicts:
    """What each classifier says of one failure (spec 19.10).

    ``reference`` is the reference agent's substring check over the rendered error,
    ``channel`` the reference channel's own (shorter) hint list over the same text, and
    ``extended`` the project's classifier (``harness.providers.overflow.classify``), which the
    clients also use to choose the error's class.
    """

    reference: bool
    extended: bool
    channel: bool

    @property
    def any(self) -> bool:
        """Whether either agent classifier calls it an overflow (``OverflowDetected``)."""
        return self.reference or self.extended


class ProviderError(HarnessError):
    """The provider answered, or failed to answer, in a way that is not a reply."""

    counted_as: str = "rejected"
    """The outcome a failed attempt with this error is counted as: the value of a
    ``harness.events.CallOutcome`` (a string here, the providers sitting below the
    events; ``tests/test_exception_tree.py`` holds every class's to a member). Each class
    declares its own; an instance is counted otherwise only when built so
    (``counted_as=``: a refused connection is a server error to retries, but an outcome
    of its own)."""

    def __init__(
        self,
        provider: str,
        status: int | None,
        body: str,
        *,
        error_type: str = "_OTHER",
        extended_verdict: bool = False,
        counted_as: str | None = None,
    ) -> None:
        if counted_as is not None:
            self.counted_as = counted_as
        self.provider = provider
        self.status = status
        self.body = body
        self.error_type = error_type
        text = render_provider_error(provider, status, body)
        self.verdicts = OverflowVerdicts(
            reference=is_context_window_exceeded(text),
            extended=extended_verdict,
            channel=is_channel_context_window_overflow(text),
        )
        super().__init__(text)

    @property
    def reference_verdict(self) -> bool:
        return self.verdicts.reference

    @property
    def extended_verdict(self) -> bool:
        return self.verdicts.extended


class ContextWindowExceeded(ProviderError):
    """The provider said the request does not fit its context window: the ``extended``
    classifier's verdict, which decides this class (the reference's may differ)."""

    counted_as = "overflow"

    def __init__(self, provider: str, status: int | None, body: str, *, error_type: str) -> None:
        super().__init__(provider, status, body, error_type=error_type, extended_verdict=True)


class RateLimited(ProviderError):
    counted_as = "rate_limited"

    def __init__(
        self, provider: str, status: int | None, body: str, *, retry_after_s: float | None
    ) -> None:
        super().__init__(provider, status, body, error_type="rate_limited")
        self.retry_after_s = retry_after_s


class ProviderServerError(ProviderError):
    counted_as = "server_error"


class ProviderTimeout(ProviderError):
    counted_as = "timeout"


class ProviderProtocolError(ProviderError):
    """The answer could not be understood (malformed JSON, a dropped stream...)."""

    counted_as = "protocol_error"


class ProviderRequestRejected(ProviderError):
    """A 4xx that is neither an overflow nor a rate limit (bad request, auth, tool pairing)."""

    counted_as = "rejected"
