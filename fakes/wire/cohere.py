"""Cohere v2 ``POST /v2/chat`` (non-streaming; a ``stream`` flag is answered as JSON).

Decoding follows Chat Completions: an assistant's ``tool_plan`` counts as its text when
it has no ``content``; a tool message's ``document`` parts count as their data's text
(compact JSON when the data is an object). Cohere's tool-pairing wording was not
captured, so pairing is not checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakes.catalogue import WireName
from fakes.rows import CanonicalRequest, JSONValue, Row, compact_json, tool_result_row
from fakes.wire.base import (
    ErrorKind,
    ReplyPlan,
    RequestContext,
    StreamMedia,
    Unstreamed,
    WireError,
)
from fakes.wire.common import (
    arr,
    message_row,
    obj,
    optional_int,
    required,
    string,
    tool_schemas,
)

_FINISH = {"stop": "COMPLETE", "tool_calls": "TOOL_CALL", "length": "MAX_TOKENS"}


def _document_text(part: dict[str, Any]) -> str:
    if part.get("type") == "text":
        return str(part.get("text", ""))
    document = part.get("document")
    data = document.get("data") if isinstance(document, dict) else None
    return data if isinstance(data, str) else compact_json(data)


def _row(message: dict[str, Any], where: str) -> Row:
    role = message.get("role")
    content = message.get("content")
    if role == "tool" and isinstance(content, list):
        text = "".join(_document_text(obj(p, f"{where}.content")) for p in content)
        return tool_result_row(string(message.get("tool_call_id"), f"{where}.tool_call_id"), text)
    if role == "assistant" and message.get("tool_calls") and content is None:
        plan = message.get("tool_plan")
        return message_row({**message, "content": plan if isinstance(plan, str) else None}, where)
    return message_row(message, where)


@dataclass(frozen=True, slots=True)
class CohereChat(Unstreamed):
    name: WireName = "cohere"
    tool_id_prefix: str = "call_"
    stream_media: StreamMedia = "sse"
    response_id_prefix: str = ""

    def decode(self, body: Any, ctx: RequestContext) -> CanonicalRequest:
        body = obj(body, "body")
        model = string(required(body, "model"), "model")
        messages = arr(required(body, "messages"), "messages")
        rows = tuple(
            _row(obj(m, f"messages[{n}]"), f"messages[{n}]") for n, m in enumerate(messages)
        )
        return CanonicalRequest(
            model=model,
            rows=rows,
            tools=tool_schemas(body.get("tools")),
            max_output_tokens=optional_int(body, "max_tokens"),
        )

    def reply(self, plan: ReplyPlan) -> JSONValue:
        message: dict[str, JSONValue] = {"role": "assistant"}
        if plan.text:
            message["content"] = [{"type": "text", "text": plan.text}]
        if plan.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments_json},
                }
                for c in plan.tool_calls
            ]
        units: dict[str, JSONValue] = {
            "input_tokens": plan.usage.input_tokens,
            "output_tokens": plan.usage.output_tokens,
        }
        return {
            "id": plan.response_id,
            "finish_reason": _FINISH.get(plan.stop, "MAX_TOKENS"),
            "message": message,
            "usage": {"billed_units": units, "tokens": dict(units)},
        }

    def error(self, status: int, kind: ErrorKind, message: str) -> JSONValue:
        return {"message": message}

    def error_headers(self, kind: ErrorKind) -> Mapping[str, str]:
        return {}

    def unknown_model(self, model: str) -> WireError:
        message = (
            f"model '{model}' not found, make sure the correct model ID was used and "
            "that you have access to the model."
        )
        return WireError(404, self.error(404, "not_found", message), detail="unknown model")
