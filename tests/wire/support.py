"""Feeding decoded requests to a real ``WireObserver`` (no decoders needed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.runtime import ChatMessage
from harness.wire import (
    DecodedAnswer,
    DecodedRequest,
    Finding,
    WireExchange,
    WireKind,
    WireObserver,
)


def exchange(
    *,
    session: str | None = None,
    status: int | None = 200,
    wire: WireKind = "openai_chat",
    path: str = "/v1/chat/completions",
    body: bytes = b"",
) -> WireExchange:
    headers = {"x-trimscope-session": session} if session else {}
    return WireExchange(
        wire=wire,
        method="POST",
        path=path,
        request_headers=headers,
        request_body=body,
        status=status,
    )


def feed(
    observer: WireObserver,
    rows: Sequence[ChatMessage],
    answer: Sequence[ChatMessage] = (),
    *,
    session: str | None = None,
    status: int | None = 200,
    wire: WireKind = "openai_chat",
    error_text: str | None = None,
    hints: Mapping[str, str] | None = None,
    response_id: str | None = None,
    provider_edits: tuple[str, ...] = (),
    provider_items: tuple[str, ...] = (),
) -> tuple[Finding, ...]:
    """One call: ``rows`` sent, ``answer`` received."""
    return observer.observe_decoded(
        exchange(session=session, status=status, wire=wire),
        DecodedRequest(
            model="m", rows=tuple(rows), hints=dict(hints or {}), provider_items=provider_items
        ),
        DecodedAnswer(
            rows=tuple(answer),
            error_text=error_text,
            response_id=response_id,
            provider_edits=provider_edits,
        ),
    )


def kinds(findings: Sequence[Finding]) -> list[str]:
    return [f.kind for f in findings]


def only(findings: Sequence[Finding], kind: str) -> Finding:
    (found,) = [f for f in findings if f.kind == kind]
    return found
