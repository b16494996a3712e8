"""Request bodies of every wire format for the decoder tests, rendered from runtime
histories by the project's own provider clients (Bedrock has no client: rendered here
from the same decoded rows, as the Converse API documents its blocks), and the fakes'
decoding of the same bytes, the spec the harness decoders are held to."""

from __future__ import annotations

import json
import string
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

from fakes.wire import WIRES
from fakes.wire.base import RequestContext
from harness.providers import ProviderRequest
from harness.providers.clients.anthropic import CACHE_BREAKPOINTS, build_messages_request
from harness.providers.clients.canonical import (
    AssistantRow,
    SystemRow,
    TextPart,
    ToolRow,
    UserRow,
    WireRow,
    decode_rows,
)
from harness.providers.clients.cohere import build_cohere_chat_request
from harness.providers.clients.gemini import build_generate_content_request, generate_content_path
from harness.providers.clients.images import InlineImage
from harness.providers.clients.ollama import build_ollama_chat_request
from harness.providers.clients.openai_chat import build_chat_request
from harness.providers.clients.openai_responses import build_responses_request
from harness.runtime import (
    Attachment,
    ChatMessage,
    ToolCall,
    native_tool_call_row,
    native_tool_result_row,
)
from harness.wire import WIRE_KINDS, WireKind
from tests.providers.test_properties import ARGS, NAMES

MODEL = "m-1"
REFS = st.sampled_from(
    [
        "data:image/png;base64,iVBORw0KGgo=",
        "data:image/jpeg;base64,/9j/4AAQ",
        "https://img.test/a.png",
        "/local/b.png",
    ]
)
# Any text, Unicode and Rust's whitespace included (blank tool-call text becomes null).
TEXT = st.one_of(
    st.text(max_size=24),
    st.text(alphabet=string.ascii_letters + " \t\n\u3000.,[]:{}\"'", max_size=24),
)


@st.composite
def user_text(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.one_of(TEXT, REFS.map(lambda r: f"[IMAGE:{r}]")), max_size=4))
    return "".join(pieces) or "hi"


@st.composite
def tool_round(draw: st.DrawFn, prefix: str) -> list[ChatMessage]:
    """An assistant tool-call row with 1-3 calls and results for some of them, in any
    order (a broken pair must still decode: the observer reports it, it does not refuse)."""
    calls = [
        ToolCall(f"{prefix}_{i}", draw(NAMES), json.dumps(draw(ARGS), separators=(",", ":")))
        for i in range(draw(st.integers(1, 3)))
    ]
    rows = [native_tool_call_row(draw(st.one_of(st.none(), TEXT)), calls)]
    answered = draw(st.lists(st.sampled_from(calls), unique=True, max_size=len(calls)))
    if draw(st.booleans()):
        answered = calls  # mostly whole rounds, as runtimes send them
    for call in answered:
        images = draw(st.lists(REFS.map(lambda r: Attachment("image", r)), max_size=2))
        rows.append(native_tool_result_row(call.id, draw(TEXT), images))
    return rows


@st.composite
def histories(draw: st.DrawFn) -> list[ChatMessage]:
    rows = [ChatMessage("system", draw(TEXT))] if draw(st.booleans()) else []
    for turn in range(draw(st.integers(1, 3))):
        rows.append(ChatMessage("user", draw(user_text())))
        for index in range(draw(st.integers(0, 2))):
            rows.extend(draw(tool_round(f"t{turn}r{index}")))
        if draw(st.booleans()):
            rows.append(ChatMessage("assistant", draw(TEXT)))
    if draw(st.booleans()) and len(rows) > 2:
        del rows[draw(st.integers(0, len(rows) - 1))]  # a trim's cut, anywhere
    return rows


# -- Bedrock Converse, rendered from the decoded rows -----------------------------------


def _bedrock_image(part: Any) -> dict[str, Any]:
    image = part.image
    if isinstance(image, InlineImage):
        kind = image.media_type.removeprefix("image/")
        return {"image": {"format": kind, "source": {"bytes": image.data}}}
    return {"text": part.marker}  # Converse carries no image URLs


def _bedrock_message(row: WireRow) -> dict[str, Any]:
    if isinstance(row, UserRow):
        blocks = [
            {"text": p.text} if isinstance(p, TextPart) else _bedrock_image(p) for p in row.parts
        ]
        return {"role": "user", "content": blocks}
    if isinstance(row, ToolRow):
        result = {"toolUseId": row.tool_call_id, "content": [{"text": row.text}]}
        return {"role": "user", "content": [{"toolResult": {**result, "status": "success"}}]}
    assert isinstance(row, AssistantRow)
    blocks = [{"text": row.text}] if row.text else []
    blocks += [
        {"toolUse": {"toolUseId": c.id, "name": c.name, "input": json.loads(c.arguments)}}
        for c in row.tool_calls
    ]
    return {"role": "assistant", "content": blocks or [{"text": ""}]}


def build_converse_request(request: ProviderRequest) -> dict[str, Any]:
    rows = decode_rows(request.messages)
    body: dict[str, Any] = {
        "messages": [_bedrock_message(r) for r in rows if not isinstance(r, SystemRow)]
    }
    system = [{"text": r.text} for r in rows if isinstance(r, SystemRow)]
    if system:
        body["system"] = system
    return body


def _anthropic(request: ProviderRequest) -> dict[str, Any]:
    # every breakpoint placement: cache_control on blocks must not change the rows
    marks = CACHE_BREAKPOINTS[sum(map(len, (m.content for m in request.messages))) % 3]
    return build_messages_request(request, marks)


BUILDERS: dict[WireKind, Callable[[ProviderRequest], dict[str, Any]]] = {
    "openai_chat": build_chat_request,
    "openai_responses": build_responses_request,
    "anthropic": _anthropic,
    "gemini": build_generate_content_request,
    "ollama": build_ollama_chat_request,
    "cohere": build_cohere_chat_request,
    "bedrock": build_converse_request,
}
assert tuple(BUILDERS) == WIRE_KINDS


def path_of(wire: WireKind, model: str = MODEL) -> str:
    if wire == "gemini":
        return generate_content_path(model)
    if wire == "bedrock":
        return f"/model/{model}/converse"
    return {
        "openai_chat": "/v1/chat/completions",
        "openai_responses": "/v1/responses",
        "anthropic": "/v1/messages",
        "ollama": "/api/chat",
        "cohere": "/v2/chat",
    }[wire]


def render(wire: WireKind, history: Sequence[ChatMessage], *, stream: bool = False) -> bytes:
    """``history`` as ``wire``'s request bytes (compact JSON, UTF-8 unescaped, as clients
    send it)."""
    body = BUILDERS[wire](ProviderRequest(MODEL, list(history), stream=stream))
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def fake_rows(wire: WireKind, body: bytes) -> list[tuple[str, str]]:
    """The fakes' decoding of ``body`` (pairing not enforced: the observer reads broken
    pairs too)."""
    context = RequestContext(path_model=MODEL, enforce_pairing=False)
    decoded = WIRES[wire].decode(json.loads(body), context)
    return [(row.role, row.content) for row in decoded.rows]
