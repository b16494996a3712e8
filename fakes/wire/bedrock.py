"""AWS Bedrock Converse ``POST /model/{modelId}/converse`` (non-streaming).

ConverseStream's binary event-stream framing is not reproduced. Errors follow the AWS
restJson convention: an ``x-amzn-ErrorType`` header and a ``{"message": ...}`` body.

Decoding: ``system`` text blocks → ``system`` rows; ``toolResult`` blocks → native tool
rows (text and JSON content), other user blocks → one ``user`` row; ``toolUse`` blocks →
the native tool-call row. Pairing is Claude's rule, wrapped as Bedrock wraps model
errors ("The model returned the following errors: ...").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakes.catalogue import WireName
from fakes.rows import (
    CanonicalRequest,
    JSONValue,
    Row,
    WireToolCall,
    compact_json,
    tool_call_row,
    tool_result_row,
)
from fakes.wire import anthropic
from fakes.wire.base import (
    ErrorKind,
    ReplyPlan,
    RequestContext,
    StreamMedia,
    Unstreamed,
    WireError,
)
from fakes.wire.common import arr, join_user_parts, obj, schema

MODEL_ERRORS = "The model returned the following errors: "
ANTHROPIC_MODELS = "anthropic."
"""Bedrock model ids of Claude (``us.anthropic.claude-3-7-sonnet-20250219-v1:0``)."""


def _usage(plan: ReplyPlan) -> JSONValue:
    """Converse usage. Claude reports its cache counts always, under both names
    (``cacheReadInputTokens`` as AWS documents it and ``cacheReadInputTokenCount``, 0 when
    nothing was cached: pydantic/pydantic-ai ``tests/models/cassettes/test_bedrock/
    test_bedrock_anthropic_tool_with_thinking.yaml`` at 4fda389); another model (Nova,
    ``test_bedrock_model.yaml``) reports none when nothing was cached, and the documented
    names when something was."""
    u = plan.usage
    usage: dict[str, JSONValue] = {
        "inputTokens": u.input_tokens,
        "outputTokens": u.output_tokens,
        "totalTokens": u.total_tokens,
    }
    claude = ANTHROPIC_MODELS in plan.model.lower()
    if claude or u.cached_tokens or u.cache_creation_tokens:
        usage["cacheReadInputTokens"] = u.cached_tokens
        usage["cacheWriteInputTokens"] = u.cache_creation_tokens
    if claude:
        usage["cacheReadInputTokenCount"] = u.cached_tokens
        usage["cacheWriteInputTokenCount"] = u.cache_creation_tokens
    return usage


_ERROR_TYPES: dict[ErrorKind, str] = {
    "invalid_request": "ValidationException",
    "not_found": "ResourceNotFoundException",
    "rate_limit": "ThrottlingException",
    "server_error": "InternalServerException",
    "overloaded": "ServiceUnavailableException",
}
_STOP = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "context_window": "model_context_window_exceeded",
}


def _as_anthropic(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for message in messages:
        blocks = []
        for block in message.get("content") or []:
            if isinstance(block, dict) and isinstance(block.get("toolUse"), dict):
                blocks.append({"type": "tool_use", "id": block["toolUse"].get("toolUseId")})
            elif isinstance(block, dict) and isinstance(block.get("toolResult"), dict):
                blocks.append(
                    {"type": "tool_result", "tool_use_id": block["toolResult"].get("toolUseId")}
                )
        out.append({"role": message.get("role"), "content": blocks})
    return out


def _result_text(result: dict[str, Any]) -> str:
    pieces = []
    for item in result.get("content") or []:
        if isinstance(item, dict) and "text" in item:
            pieces.append(str(item["text"]))
        elif isinstance(item, dict) and "json" in item:
            pieces.append(compact_json(item["json"]))
    return "".join(pieces)


def _rows(message: dict[str, Any], where: str) -> list[Row]:
    blocks = [obj(b, f"{where}.content") for b in arr(message.get("content"), f"{where}.content")]
    if message.get("role") == "assistant":
        text = "".join(str(b["text"]) for b in blocks if "text" in b)
        calls = [
            WireToolCall(
                str(b["toolUse"].get("toolUseId")),
                str(b["toolUse"].get("name")),
                compact_json(b["toolUse"].get("input", {})),
            )
            for b in blocks
            if isinstance(b.get("toolUse"), dict)
        ]
        return [tool_call_row(text, calls) if calls else Row("assistant", text)]
    rows = [
        tool_result_row(str(b["toolResult"].get("toolUseId")), _result_text(b["toolResult"]))
        for b in blocks
        if isinstance(b.get("toolResult"), dict)
    ]
    parts = [("text", str(b["text"])) for b in blocks if "text" in b]
    parts += [
        ("image", "data:image/" + str(b["image"].get("format")) + ";base64,")
        for b in blocks
        if isinstance(b.get("image"), dict)
    ]
    if parts or not rows:
        rows.append(Row("user", join_user_parts(parts)))
    return rows


@dataclass(frozen=True, slots=True)
class BedrockConverse(Unstreamed):
    name: WireName = "bedrock"
    tool_id_prefix: str = "tooluse_"
    stream_media: StreamMedia = "sse"
    response_id_prefix: str = ""

    def decode(self, body: Any, ctx: RequestContext) -> CanonicalRequest:
        body = obj(body, "body")
        messages = [
            obj(m, f"messages.{n}") for n, m in enumerate(arr(body.get("messages"), "messages"))
        ]
        if ctx.enforce_pairing:
            try:
                anthropic.check_pairing(_as_anthropic(messages))
            except WireError as error:
                inner = error.body["error"]["message"]  # type: ignore[index,call-overload]
                raise self._validation(MODEL_ERRORS + str(inner)) from error
        rows = [
            Row("system", str(b.get("text", "")))
            for b in body.get("system") or []
            if isinstance(b, dict) and "text" in b
        ]
        for n, message in enumerate(messages):
            rows += _rows(message, f"messages.{n}")
        config = body.get("toolConfig") if isinstance(body.get("toolConfig"), dict) else {}
        tools = tuple(
            schema(
                spec.get("name"),
                spec.get("description"),
                (spec.get("inputSchema") or {}).get("json"),
                "toolConfig.tools",
            )
            for spec in (t.get("toolSpec") for t in config.get("tools") or [])
            if isinstance(spec, dict)
        )
        inference = body.get("inferenceConfig") or {}
        max_tokens = inference.get("maxTokens") if isinstance(inference, dict) else None
        return CanonicalRequest(
            model=ctx.path_model or "",
            rows=tuple(rows),
            tools=tools,
            max_output_tokens=max_tokens if isinstance(max_tokens, int) else None,
        )

    def _validation(self, message: str) -> WireError:
        return WireError(
            400, {"message": message}, self.error_headers("invalid_request"), detail="tool pairing"
        )

    def reply(self, plan: ReplyPlan) -> JSONValue:
        content: list[JSONValue] = [{"text": plan.text}] if plan.text else []
        content += [
            {"toolUse": {"toolUseId": c.id, "name": c.name, "input": json.loads(c.arguments_json)}}
            for c in plan.tool_calls
        ]
        return {
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": _STOP[plan.stop],
            "usage": _usage(plan),
            "metrics": {"latencyMs": 1},
        }

    def error(self, status: int, kind: ErrorKind, message: str) -> JSONValue:
        return {"message": message}

    def error_headers(self, kind: ErrorKind) -> Mapping[str, str]:
        return {"x-amzn-ErrorType": _ERROR_TYPES[kind]}

    def unknown_model(self, model: str) -> WireError:
        # A 400 (a validation error, not a 404), the body only a message (pydantic/pydantic-ai
        # tests/models/cassettes/test_bedrock/test_bedrock_error.yaml at 4fda389)
        return WireError(
            400,
            {"message": "The provided model identifier is invalid."},
            self.error_headers("invalid_request"),
            detail="unknown model",
        )
