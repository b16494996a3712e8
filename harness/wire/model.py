"""The wire observer's records: what it is given (one exchange) and what it reports.

``WireExchange`` is one HTTP request and its answer as a proxy or a fake saw them, bytes as
they travelled. ``Finding`` is one thing the observer inferred about a session from the
requests (the findings contract, ``docs/findings.md``, schema in
``harness/wire/findings.schema.json``). Everything here is frozen and stdlib only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, get_args

WireKind: TypeAlias = Literal[
    "openai_chat", "openai_responses", "anthropic", "gemini", "ollama", "cohere", "bedrock"
]
WIRE_KINDS: tuple[WireKind, ...] = get_args(WireKind)

FindingKind: TypeAlias = Literal[
    "trim",
    "compaction",
    "provider_edit",
    "orphan_tool_result",
    "orphan_tool_call",
    "system_dropped",
    "system_changed",
    "user_dropped",
    "turn_order",
    "overflow",
    "overflow_retry",
    "poisoned_session",
    "cache_break",
    "unobservable",
]
FINDING_KINDS: tuple[FindingKind, ...] = get_args(FindingKind)


@dataclass(frozen=True, slots=True)
class WireExchange:
    """One request and its answer. Header names are lower case. ``status`` is ``None``
    when no answer came (upstream down, hung, or the client left); ``response_body`` is
    the whole body, or for a stream every byte of it as it arrived (SSE or NDJSON)."""

    wire: WireKind
    method: str
    path: str
    request_headers: Mapping[str, str]
    request_body: bytes
    status: int | None
    response_headers: Mapping[str, str] = field(default_factory=dict)
    response_body: bytes = b""
    streamed: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One inference about one call of one session. ``call`` is 1-based within the
    session; ``status`` is the upstream's HTTP status for that call (``None``: none came).
    The optional fields are set where they apply and left out of the JSON otherwise."""

    session: str
    call: int
    kind: FindingKind
    status: int | None
    dropped_messages: int | None = None
    dropped_turns: int | None = None
    kept_turns: int | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    breadcrumb: bool | None = None
    on_turn_boundary: bool | None = None
    cache_loss_tokens: int | None = None
    shared_prefix_rows: int | None = None
    detail: str = ""

    def to_json(self) -> dict[str, object]:
        """The contract's object: required keys always, optional ones only when set."""
        out: dict[str, object] = {
            "session": self.session,
            "call": self.call,
            "kind": self.kind,
            "status": self.status,
        }
        for name in _OPTIONAL:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.detail:
            out["detail"] = self.detail
        return out


_OPTIONAL = (
    "dropped_messages",
    "dropped_turns",
    "kept_turns",
    "tokens_before",
    "tokens_after",
    "breadcrumb",
    "on_turn_boundary",
    "cache_loss_tokens",
    "shared_prefix_rows",
)
