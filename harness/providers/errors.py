"""Provider errors: one branch of the project's exception tree (root ``HarnessError``).

Every error names the provider, the HTTP status and the body, so a user can see exactly
what the endpoint answered. The overflow error also records what each classifier said.
"""

from __future__ import annotations

from harness.runtime.errors import HarnessError

MAX_RENDERED_BODY_CHARS = 500
"""The reference renders provider failures with the body cut to 500 characters."""


def render_provider_error(provider: str, status: int | None, body: str) -> str:
    """The text the reference's substring classifier reads.

    Shape: ``{provider} API error ({status}): {body}``, the body cut to 500 characters.
    """
    shown = "stream" if status is None else str(status)
    return f"{provider} API error ({shown}): {body[:MAX_RENDERED_BODY_CHARS]}"


class ProviderError(HarnessError):
    """The provider answered, or failed to answer, in a way that is not a reply."""

    def __init__(
        self, provider: str, status: int | None, body: str, *, error_type: str = "_OTHER"
    ) -> None:
        self.provider = provider
        self.status = status
        self.body = body
        self.error_type = error_type
        super().__init__(render_provider_error(provider, status, body))


class ContextWindowExceeded(ProviderError):
    """The provider said the request does not fit its context window."""

    def __init__(
        self,
        provider: str,
        status: int | None,
        body: str,
        *,
        error_type: str,
        reference_verdict: bool,
        extended_verdict: bool,
    ) -> None:
        super().__init__(provider, status, body, error_type=error_type)
        self.reference_verdict = reference_verdict
        self.extended_verdict = extended_verdict


class RateLimited(ProviderError):
    def __init__(
        self, provider: str, status: int | None, body: str, *, retry_after_s: float | None
    ) -> None:
        super().__init__(provider, status, body, error_type="rate_limited")
        self.retry_after_s = retry_after_s


class ProviderServerError(ProviderError):
    pass


class ProviderTimeout(ProviderError):
    pass


class ProviderProtocolError(ProviderError):
    """The answer could not be understood (malformed JSON, a dropped stream...)."""


class ProviderRequestRejected(ProviderError):
    """A 4xx that is neither an overflow nor a rate limit (bad request, auth, tool pairing)."""
