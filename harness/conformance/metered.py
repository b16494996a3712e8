"""The one client every probe sends through: budget admission, then a redacted record of
what was sent and what came back.

``MeteredClient`` wraps a wire client (``harness.providers.make_client``) and is itself a
``ProviderClient``, so the recovery probe's ``Agent`` uses it unchanged. Each request
becomes one ``Exchange``: its purpose, the estimated input, the reply's usage or the
error's status, body excerpt and both classifier verdicts. Excerpts are redacted: the API
key never reaches a record, whatever the endpoint echoes back.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Final

from harness.conformance.budget import Ledger, request_cost
from harness.providers import (
    HttpProviderClient,
    ProviderError,
    ProviderReply,
    ProviderRequest,
    classify_overflow,
)

Progress = Callable[[str], None]
"""Told one line before and one after each request (a run against a slow or silent
endpoint shows where it waits)."""
EXCERPT_CHARS: Final = 400
REDACTED: Final = "[redacted]"
MASKED: Final = re.compile(r"([A-Za-z0-9_\-]*)\*{3,}([A-Za-z0-9_\-]*)")
"""A key an endpoint echoes partly masked: OpenAI's 401 quotes the first 8 and last 4
characters around asterisks ("Incorrect API key provided: sk-PMafP****...E873", as quoted
in github.com/popjane/free_chatgpt_api issue 3)."""


def describe_status(status: int | None, *, streamed: bool) -> str:
    """A failed request's outcome in words (the wire clients call every status-less
    failure a stream error; conformance says which it was)."""
    if status is not None:
        return f"HTTP {status}"
    return "an error event inside the stream" if streamed else "no HTTP answer"


class Redactor:
    """Replaces the secrets wherever they appear, whole or partly masked (a run of
    asterisks between a prefix and a suffix of one); a run without any redacts nothing.
    ``more``: further secrets, e.g. the values of auth-like ``--header`` options."""

    def __init__(self, secret: str | None, more: Sequence[str] = ()) -> None:
        self._secrets = tuple(s for s in (secret, *more) if s)

    def __call__(self, text: str) -> str:
        if not self._secrets:
            return text
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return MASKED.sub(self._masked, text)

    def _masked(self, match: re.Match[str]) -> str:
        head, tail = match.group(1), match.group(2)
        for secret in self._secrets:
            if (head or tail) and secret.startswith(head) and secret.endswith(tail):
                return REDACTED
        return match.group(0)

    def excerpt(self, text: str, limit: int = EXCERPT_CHARS) -> str:
        cleaned = self(text)
        return cleaned if len(cleaned) <= limit else cleaned[:limit] + "…"


PROVIDER_SIDE_PURPOSE: Final = "provider_side_"
"""Prefix of the purpose of every provider-side probe's exchange: the context the endpoint
reports on is the one it edited, so its usage says nothing about the runtime's estimate."""


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request sent to the endpoint and what it answered (no headers: never the key)."""

    index: int
    purpose: str
    estimate_tokens: int
    streamed: bool
    status: int | None
    """HTTP status; ``None`` for an in-stream error or a failure below HTTP."""
    ok: bool
    reported_input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    error_class: str | None = None
    error_type: str | None = None
    reference: bool | None = None
    extended: bool | None = None
    excerpt: str = ""


class MeteredClient:
    """``ProviderClient`` that admits each request against the ledger, then records it.

    ``purpose`` is set by whoever sends (``"window"``, ``"recovery"`` ...) and stamped on
    the exchanges that follow.
    """

    def __init__(
        self,
        inner: HttpProviderClient,
        ledger: Ledger,
        redact: Redactor,
        progress: Progress | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._inner = inner
        self._progress = progress
        self._clock = clock
        self.ledger = ledger
        self.redact = redact
        self.provider_kind = inner.provider_kind
        self.provider_name = inner.provider_name
        self.purpose = "probe"
        self.exchanges: list[Exchange] = []

    def _say(self, text: str) -> None:
        if self._progress is not None:
            self._progress(self.redact(text))

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        return await self.complete_with(request, lambda: self._inner.complete(request))

    async def complete_with(
        self, request: ProviderRequest, call: Callable[[], Awaitable[ProviderReply]]
    ) -> ProviderReply:
        """Like ``complete``, but ``call`` sends: a probe whose body the wire client
        cannot build (extended thinking) is still admitted for ``request``'s estimate and
        recorded."""
        cost = request_cost(request)
        self.ledger.admit(cost)
        label = f"#{len(self.exchanges)} {self.purpose}"
        self._say(f"{label}: sending about {cost:,} tokens")
        started = self._clock()
        try:
            reply = await call()
        except ProviderError as error:
            self.exchanges.append(self._failed(request, cost, error))
            shown = describe_status(error.status, streamed=request.stream)
            self._say(f"{label}: {shown} after {self._clock() - started:.1f} s")
            # Redacted in place before anyone else sees it: the recovery session's events
            # (transcripts, spans, logs) carry the error's body and message.
            error.body = self.redact(error.body)
            error.args = tuple(self.redact(a) if isinstance(a, str) else a for a in error.args)
            raise
        self._say(f"{label}: {reply.status_code} after {self._clock() - started:.1f} s")
        self.ledger.settle(cost, reply.usage.input_tokens)
        self.exchanges.append(
            Exchange(
                index=len(self.exchanges),
                purpose=self.purpose,
                estimate_tokens=cost,
                streamed=request.stream,
                status=reply.status_code,
                ok=True,
                reported_input_tokens=reply.usage.input_tokens,
                output_tokens=reply.usage.output_tokens,
                finish_reason=reply.finish_reason,
                excerpt=self.redact.excerpt(reply.text or ""),
            )
        )
        return reply

    def _failed(self, request: ProviderRequest, cost: int, error: ProviderError) -> Exchange:
        verdicts = classify_overflow(error.provider, error.status, error.body)
        return Exchange(
            index=len(self.exchanges),
            purpose=self.purpose,
            estimate_tokens=cost,
            streamed=request.stream,
            status=error.status,
            ok=False,
            error_class=type(error).__name__,
            error_type=error.error_type,
            reference=verdicts.reference,
            extended=verdicts.extended,
            excerpt=self.redact.excerpt(error.body),
        )
