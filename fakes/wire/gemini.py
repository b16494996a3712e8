"""Google Gemini ``POST /v1beta/models/{model}:generateContent`` and
``:streamGenerateContent`` (``?alt=sse``: SSE ``data:`` events; without it: one JSON array
of the responses). The answers' shapes are ``fakes.wire.gemini_reply``'s.

Decoding: each ``systemInstruction`` text part → a ``system`` row; a user content's
``functionResponse`` parts → native tool rows, its text / ``inlineData`` / ``fileData``
parts → one ``user`` row after them; a model content with ``functionCall`` parts → the
native tool-call row. Gemini calls carry no ids unless the client sent ``id``: the id is
``functionCall.id`` (or ``functionResponse.id``), else the function's name. A response
object ``{"content"|"output"|"result": <string>}`` counts as that string; any other
response object counts as its compact JSON. Thought parts are not counted.

Pairing, with the API's real messages: responses must come right after the call turn,
one per call; a call turn must follow a user or function-response turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakes.catalogue import WireName
from fakes.rows import (
    CanonicalRequest,
    JSONValue,
    Row,
    ToolSchema,
    WireToolCall,
    compact_json,
    tool_call_row,
    tool_result_row,
)
from fakes.wire import gemini_reply
from fakes.wire.base import (
    ErrorKind,
    ReplyPlan,
    RequestContext,
    StreamEvent,
    StreamMedia,
    WireError,
)
from fakes.wire.common import Invalid, arr, data_uri, join_user_parts, obj, objects, schema

STREAM_METHOD = ":streamGenerateContent"

RESPONSE_AFTER_CALL = (
    "Please ensure that function response turn comes immediately after a function call turn."
)
CALL_AFTER_USER = (
    "Please ensure that function call turn comes immediately after a user turn or after a "
    "function response turn."
)
COUNT_MISMATCH = (
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn."
)
_STATUS = {
    400: "INVALID_ARGUMENT",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
_RESPONSE_TEXT_KEYS = ("content", "output", "result")


def gemini_error(status: int, message: str) -> JSONValue:
    return {"error": {"code": status, "message": message, "status": _STATUS.get(status, "UNKNOWN")}}


def _invalid(message: str) -> WireError:
    return WireError(400, gemini_error(400, message), detail="tool pairing")


def _count(parts: list[dict[str, Any]], key: str) -> int:
    return sum(1 for p in parts if key in p)


def check_pairing(contents: list[tuple[str, list[dict[str, Any]]]]) -> None:
    previous_role, previous_calls = "", 0
    for role, parts in contents:
        calls, responses = _count(parts, "functionCall"), _count(parts, "functionResponse")
        if responses and not previous_calls:
            raise _invalid(RESPONSE_AFTER_CALL)
        if previous_calls and responses != previous_calls:
            raise _invalid(COUNT_MISMATCH)
        if calls and previous_role in ("", "model"):
            raise _invalid(CALL_AFTER_USER)
        previous_role, previous_calls = role, calls
    if previous_calls:
        raise _invalid(COUNT_MISMATCH)


def _response_text(response: Any) -> str:
    if isinstance(response, dict) and len(response) == 1:
        ((key, value),) = response.items()
        if key in _RESPONSE_TEXT_KEYS and isinstance(value, str):
            return value
    return compact_json(response)


def _user_rows(parts: list[dict[str, Any]], where: str) -> list[Row]:
    rows = []
    pieces: list[tuple[str, str]] = []
    for n, part in enumerate(parts):
        if "functionResponse" in part:
            fr = obj(part["functionResponse"], f"{where}[{n}].functionResponse")
            call_id = str(fr.get("id") or fr.get("name"))
            rows.append(tool_result_row(call_id, _response_text(fr.get("response"))))
        elif isinstance(part.get("text"), str) and not part.get("thought"):
            pieces.append(("text", part["text"]))
        elif isinstance(part.get("inlineData"), dict):
            blob = part["inlineData"]
            pieces.append(("image", data_uri(str(blob.get("mimeType")), str(blob.get("data")))))
        elif isinstance(part.get("fileData"), dict):
            pieces.append(("image", str(part["fileData"].get("fileUri"))))
    if pieces or not rows:
        rows.append(Row("user", join_user_parts(pieces)))
    return rows


def _model_row(parts: list[dict[str, Any]], where: str) -> Row:
    text = "".join(
        p["text"] for p in parts if isinstance(p.get("text"), str) and not p.get("thought")
    )
    calls = []
    for n, part in enumerate(parts):
        if "functionCall" in part:
            fc = obj(part["functionCall"], f"{where}[{n}].functionCall")
            name = str(fc.get("name"))
            calls.append(
                WireToolCall(str(fc.get("id") or name), name, compact_json(fc.get("args", {})))
            )
    return tool_call_row(text, calls) if calls else Row("assistant", text)


def _tools(tools: Any) -> tuple[ToolSchema, ...]:
    out = []
    for n, tool in enumerate(objects(tools, "tools")):
        for decl in objects(tool.get("functionDeclarations"), f"tools[{n}].functionDeclarations"):
            params = decl.get("parameters", decl.get("parametersJsonSchema"))
            out.append(schema(decl.get("name"), decl.get("description"), params, f"tools[{n}]"))
    return tuple(out)


def stream_media(ctx: RequestContext) -> StreamMedia:
    """``alt=sse`` streams SSE events; otherwise the API sends one JSON array."""
    return "sse" if ctx.query.get("alt") == "sse" else "json_array"


@dataclass(frozen=True, slots=True)
class GeminiGenerateContent:
    name: WireName = "gemini"
    tool_id_prefix: str = ""
    stream_media: StreamMedia = "sse"
    response_id_prefix: str = ""

    def decode(self, body: Any, ctx: RequestContext) -> CanonicalRequest:
        body = obj(body, "body")
        contents = []
        for n, content in enumerate(objects(body.get("contents"), "contents")):
            parts = [obj(p, f"contents[{n}].parts") for p in arr(content.get("parts"), "parts")]
            contents.append((str(content.get("role", "user")), parts))
        if not contents:
            raise Invalid("* GenerateContentRequest.contents: contents is not specified")
        if ctx.enforce_pairing:
            check_pairing(contents)
        system = body.get("systemInstruction", body.get("system_instruction"))
        rows = [
            Row("system", str(p.get("text", "")))
            for p in (obj(system, "systemInstruction").get("parts") or [] if system else [])
        ]
        for n, (role, parts) in enumerate(contents):
            if role == "model":
                rows.append(_model_row(parts, f"contents[{n}].parts"))
            else:
                rows += _user_rows(parts, f"contents[{n}].parts")
        config = body.get("generationConfig") or {}
        max_out = config.get("maxOutputTokens") if isinstance(config, dict) else None
        streamed = ctx.path.endswith(STREAM_METHOD)
        model = ctx.path_model or ""
        options: dict[str, object] = {"stream_media": stream_media(ctx)} if streamed else {}
        if gemini_reply.thinks(model, config, rows):
            options["thinks"] = True
        return CanonicalRequest(
            model=model,
            rows=tuple(rows),
            tools=_tools(body.get("tools")),
            max_output_tokens=max_out if isinstance(max_out, int) else None,
            stream=streamed,
            options=options,
        )

    def reply(self, plan: ReplyPlan) -> JSONValue:
        return gemini_reply.reply(plan)

    def stream(self, plan: ReplyPlan) -> tuple[StreamEvent, ...]:
        return gemini_reply.stream(plan)

    def stream_error(self, plan: ReplyPlan, event: JSONValue) -> tuple[StreamEvent, ...]:
        return (StreamEvent(event),)

    def error(self, status: int, kind: ErrorKind, message: str) -> JSONValue:
        return gemini_error(status, message)

    def error_headers(self, kind: ErrorKind) -> Mapping[str, str]:
        return {}

    def unknown_model(self, model: str) -> WireError:
        message = (
            f"models/{model} is not found for API version v1beta, or is not supported "
            "for generateContent. Call ListModels to see the list of available models "
            "and their supported methods."
        )
        return WireError(404, gemini_error(404, message), detail="unknown model")
