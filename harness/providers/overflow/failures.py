"""Turn a provider's failure into one typed error of ``harness.providers.overflow.errors``.

Order of decisions (the reference checks overflow before rate limits, providers.md 1.3):

1. the ``extended`` classifier says overflow -> ``ContextWindowExceeded``; every error
   carries every classifier's verdict (``ProviderError.verdicts``), and an agent configured
   with the ``reference`` classifier decides from those, whatever the class;
2. otherwise by the effective status: 429 -> ``RateLimited`` (``retry-after`` honoured),
   5xx -> ``ProviderServerError``, other 4xx -> ``ProviderRequestRejected``.

The effective status is the HTTP status when it is an error status; for an HTTP-200 error
body (OpenRouter) or an in-stream error event it is the body's numeric ``error.code`` when
that is an HTTP status, and otherwise the error's type decides (rate-limit types ->
``RateLimited``, invalid-request types -> ``ProviderRequestRejected``, anything else ->
``ProviderServerError``: an unexplained failure after a 200 is the server's).

``error_type`` is the provider's own ``code`` (string), else ``type``, else ``status``
(Gemini), when it is a short identifier; otherwise a fixed name per class, so metrics
labelled with it stay low-cardinality.
"""

from __future__ import annotations

import email.utils
import re
from datetime import UTC, datetime
from typing import Final

import httpx

from harness.providers.overflow.classify import extended_is_overflow
from harness.providers.overflow.errors import (
    ContextWindowExceeded,
    ProviderError,
    ProviderProtocolError,
    ProviderRequestRejected,
    ProviderServerError,
    ProviderTimeout,
    RateLimited,
)
from harness.providers.plumbing.wirejson import (
    JsonObject,
    as_list,
    as_object,
    integer,
    loads_or_none,
)

OVERFLOW_ERROR_TYPE: Final = "context_window_exceeded"
SERVER_ERROR_TYPE: Final = "server_error"
CONNECT_ERROR_TYPE: Final = "connect_error"
"""``error_type`` of a ``ProviderServerError`` whose connection was refused: nothing sent."""
CANCELLED_ERROR_TYPE: Final = "cancelled"
"""``error_type`` of a call whose caller was cancelled while it was in flight."""
REJECTED_ERROR_TYPE: Final = "request_rejected"
TIMEOUT_ERROR_TYPE: Final = "timeout"
MALFORMED_BODY_ERROR_TYPE: Final = "malformed_body"
STREAM_INCOMPLETE_ERROR_TYPE: Final = "stream_incomplete"

_IDENTIFIER = re.compile(r"[A-Za-z0-9_.:\-]{1,64}")
# an error status in the body's ``code``: 4xx or 5xx, 599 the last status HTTP defines
_ERROR_STATUSES = range(httpx.codes.BAD_REQUEST, 600)
_DELAY_SECONDS = re.compile(r"\d+(\.\d+)?")
_RATE_LIMIT_WORDS: Final = ("rate_limit", "ratelimit", "throttl", "too_many_requests", "quota")
_REJECT_WORDS: Final = ("invalid", "validation", "not_found", "permission", "authentication")


def parse_retry_after(value: str | None, *, now: datetime) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: delay-seconds or an HTTP date.

    A date in the past gives 0; an unreadable value gives ``None`` (no advice).
    """
    if value is None:
        return None
    text = value.strip()
    if _DELAY_SECONDS.fullmatch(text):
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000" dates parse naive; HTTP dates are GMT
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


def retry_after_seconds(headers: httpx.Headers, *, now: datetime) -> float | None:
    """``retry-after-ms`` (OpenAI, more precise) first, then ``retry-after``."""
    millis = headers.get("retry-after-ms")
    if millis is not None and _DELAY_SECONDS.fullmatch(millis.strip()):
        return float(millis.strip()) / 1000.0
    return parse_retry_after(headers.get("retry-after"), now=now)


def error_object(decoded: object) -> JsonObject | None:
    """The error object of a body: ``body["error"]`` (also inside Gemini's list form, or
    OpenRouter's ``choices[0].error``), else the body itself when it looks like one."""
    if isinstance(decoded, list):
        decoded = decoded[0] if decoded else None
    body = as_object(decoded)
    if body is None:
        return None
    nested = as_object(body.get("error"))
    if nested is not None:
        return nested
    first_choice = as_object(next(iter(as_list(body.get("choices"))), None))
    choice_error = None if first_choice is None else as_object(first_choice.get("error"))
    return choice_error if choice_error is not None else body


def provider_error_type(body: str) -> str | None:
    """The provider's own code/type/status for this error, when it is a short identifier."""
    error = error_object(loads_or_none(body))
    if error is None:
        return None
    for key in ("code", "type", "status"):
        value = error.get(key)
        if isinstance(value, str) and value != "error" and _IDENTIFIER.fullmatch(value):
            return value
    return None


def failure_error(
    provider: str,
    status: int | None,
    body: str,
    *,
    retry_after_s: float | None = None,
) -> ProviderError:
    """The typed error for a failed answer (HTTP error, HTTP-200 error body, stream event)."""
    own_type = provider_error_type(body)
    if extended_is_overflow(provider, status, body):
        return ContextWindowExceeded(
            provider, status, body, error_type=own_type or OVERFLOW_ERROR_TYPE
        )
    effective = _effective_status(status, body)
    if effective == httpx.codes.TOO_MANY_REQUESTS or (
        effective is None and _has_word(own_type, _RATE_LIMIT_WORDS)
    ):
        return RateLimited(provider, status, body, retry_after_s=retry_after_s)
    if effective is not None and effective < httpx.codes.INTERNAL_SERVER_ERROR:
        fallback = f"http_{effective}"
        return ProviderRequestRejected(provider, status, body, error_type=own_type or fallback)
    if effective is None and _has_word(own_type, _REJECT_WORDS):
        return ProviderRequestRejected(
            provider, status, body, error_type=own_type or REJECTED_ERROR_TYPE
        )
    return ProviderServerError(provider, status, body, error_type=own_type or SERVER_ERROR_TYPE)


def embedded_error(decoded: object) -> bool:
    """Whether an HTTP-200 body is an error in disguise: a non-null top-level ``error``
    (OpenRouter, a failed Responses object) or an ``error`` on the first choice."""
    body = as_object(decoded[0] if isinstance(decoded, list) and decoded else decoded)
    if body is None:
        return False
    if body.get("error") is not None:
        return True
    first_choice = as_object(next(iter(as_list(body.get("choices"))), None))
    return first_choice is not None and first_choice.get("error") is not None


def _effective_status(status: int | None, body: str) -> int | None:
    if status is not None and status >= httpx.codes.BAD_REQUEST:
        return status
    hinted = integer(error_object(loads_or_none(body)), "code")
    if hinted is not None and hinted in _ERROR_STATUSES:
        return hinted
    return None


def _has_word(value: str | None, words: tuple[str, ...]) -> bool:
    return value is not None and any(word in value.lower() for word in words)


def transport_error(provider: str, exc: httpx.TransportError) -> ProviderError:
    """Failures below HTTP: timeouts, refused connections, connections dropped mid-body."""
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.TimeoutException):
        return ProviderTimeout(provider, None, detail, error_type=TIMEOUT_ERROR_TYPE)
    if isinstance(exc, httpx.ConnectError):
        # Nothing was sent: the server is unreachable, which retries treat like a 5xx,
        # but it is counted as an outcome of its own (``CallOutcome.CONNECT_ERROR``).
        return ProviderServerError(
            provider, None, detail, error_type=CONNECT_ERROR_TYPE, counted_as="connect_error"
        )
    return ProviderProtocolError(provider, None, detail, error_type=_snake(type(exc).__name__))


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
