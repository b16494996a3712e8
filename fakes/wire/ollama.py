"""Ollama's native ``POST /api/chat`` (NDJSON streaming by default, as the real server).

Decoding: rows as in Chat Completions; ``images`` (base64) on a user message become
``[IMAGE:data:image/png;base64,...]`` markers after its text; an assistant message with
``tool_calls`` becomes the native tool-call row (``arguments`` is an object on this wire:
its compact JSON is counted; the id is the call's ``id`` or its function name); a ``tool``
message becomes a native tool row keyed by ``tool_call_id`` or ``tool_name``.
``options.num_ctx`` sets the effective window, ``options.num_predict`` the output budget.
Ollama does not check tool pairing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fakes.catalogue import WireName
from fakes.rows import (
    CanonicalRequest,
    JSONValue,
    Row,
    WireToolCall,
    tool_call_row,
    tool_result_row,
)
from fakes.wire.base import (
    ErrorKind,
    ReplyPlan,
    RequestContext,
    StreamEvent,
    StreamMedia,
    WireError,
)
from fakes.wire.common import (
    Invalid,
    arguments_text,
    arr,
    data_uri,
    join_user_parts,
    obj,
    required,
    string,
    text_pieces,
    tool_schemas,
)

_DURATION_NS = 1_000_000


def _row(message: dict[str, Any], where: str) -> Row:
    role = message.get("role")
    content = message.get("content") or ""
    if not isinstance(content, str):
        raise Invalid(f"{where}.content must be a string")
    if role == "user":
        images = [("image", data_uri("image/png", str(i))) for i in message.get("images") or []]
        return Row("user", join_user_parts([("text", content), *images]))
    if role == "assistant" and message.get("tool_calls"):
        calls = []
        for n, call in enumerate(arr(message["tool_calls"], f"{where}.tool_calls")):
            fn = obj(obj(call, f"{where}.tool_calls[{n}]").get("function"), f"{where}.function")
            name = string(fn.get("name"), f"{where}.tool_calls[{n}].function.name")
            calls.append(
                WireToolCall(
                    str(call.get("id") or name), name, arguments_text(fn.get("arguments", {}))
                )
            )
        return tool_call_row(content, calls)
    if role == "tool":
        call_id = message.get("tool_call_id") or message.get("tool_name") or ""
        return tool_result_row(str(call_id), content)
    if role in ("system", "assistant"):
        return Row(str(role), content)
    raise Invalid(f"invalid role: {role}")


def _timestamp(created: int) -> str:
    return datetime.fromtimestamp(created, UTC).strftime("%Y-%m-%dT%H:%M:%S.000000Z")


@dataclass(frozen=True, slots=True)
class OllamaChat:
    name: WireName = "ollama"
    tool_id_prefix: str = "call_"
    stream_media: StreamMedia = "ndjson"
    response_id_prefix: str = ""

    def decode(self, body: Any, ctx: RequestContext) -> CanonicalRequest:
        body = obj(body, "body")
        model = string(required(body, "model"), "model")
        messages = arr(body.get("messages") or [], "messages")
        rows = tuple(
            _row(obj(m, f"messages[{n}]"), f"messages[{n}]") for n, m in enumerate(messages)
        )
        options = body.get("options") if isinstance(body.get("options"), dict) else {}
        num_ctx, num_predict = options.get("num_ctx"), options.get("num_predict")
        return CanonicalRequest(
            model=model,
            rows=rows,
            tools=tool_schemas(body.get("tools")),
            max_output_tokens=num_predict
            if isinstance(num_predict, int) and num_predict > 0
            else None,
            stream=body.get("stream", True) is not False,
            options={"num_ctx": num_ctx} if isinstance(num_ctx, int) and num_ctx > 0 else {},
        )

    def _final(self, plan: ReplyPlan, message: JSONValue) -> dict[str, JSONValue]:
        return {
            "model": plan.model,
            "created_at": _timestamp(plan.created),
            "message": message,
            "done_reason": "stop" if plan.stop in ("stop", "tool_calls") else "length",
            "done": True,
            "total_duration": 3 * _DURATION_NS,
            "load_duration": _DURATION_NS,
            "prompt_eval_count": plan.usage.input_tokens,
            "prompt_eval_duration": _DURATION_NS,
            "eval_count": plan.usage.output_tokens,
            "eval_duration": _DURATION_NS,
        }

    def _calls(self, plan: ReplyPlan) -> list[JSONValue]:
        return [
            {"id": c.id, "function": {"name": c.name, "arguments": json.loads(c.arguments_json)}}
            for c in plan.tool_calls
        ]

    def reply(self, plan: ReplyPlan) -> JSONValue:
        message: dict[str, JSONValue] = {"role": "assistant", "content": plan.text or ""}
        if plan.tool_calls:
            message["tool_calls"] = self._calls(plan)
        return self._final(plan, message)

    def stream(self, plan: ReplyPlan) -> tuple[StreamEvent, ...]:
        created = _timestamp(plan.created)
        chunks: list[StreamEvent] = [
            StreamEvent(
                {
                    "model": plan.model,
                    "created_at": created,
                    "message": {"role": "assistant", "content": piece},
                    "done": False,
                }
            )
            for piece in text_pieces(plan.text or "")
        ]
        if plan.tool_calls:
            chunks.append(
                StreamEvent(
                    {
                        "model": plan.model,
                        "created_at": created,
                        "message": {
                            "role": "assistant",
                            "content": "",
                            "tool_calls": self._calls(plan),
                        },
                        "done": False,
                    }
                )
            )
        chunks.append(StreamEvent(self._final(plan, {"role": "assistant", "content": ""})))
        return tuple(chunks)

    def stream_error(self, plan: ReplyPlan, event: JSONValue) -> tuple[StreamEvent, ...]:
        return (StreamEvent(event),)

    def error(self, status: int, kind: ErrorKind, message: str) -> JSONValue:
        return {"error": message}

    def error_headers(self, kind: ErrorKind) -> Mapping[str, str]:
        return {}

    def unknown_model(self, model: str) -> WireError:
        body = self.error(404, "not_found", f'model "{model}" not found, try pulling it first')
        return WireError(404, body, detail="unknown model")
