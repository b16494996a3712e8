"""Google Gemini ``generateContent`` (AI Studio surface).

Wire (``POST {base_url}/v1beta/models/{model}:generateContent``, ``base_url`` like
``https://generativelanguage.googleapis.com``; header ``x-goog-api-key``):

- system rows go to ``systemInstruction.parts`` (one text part per row, in order);
- roles are ``user`` and ``model``; consecutive contents of one role are merged, so the
  ``functionResponse`` parts answering a parallel call share one content, as required;
- a native call is ``{"functionCall": {"id", "name", "args"}}`` (``args`` decoded from the
  arguments text; non-objects are sent as ``{}``); a result is ``{"functionResponse":
  {"id", "name", "response": {"content": <text>}}}``, its ``name`` taken from the call with
  the same id in the request (an orphan has no call: its name is sent empty and the
  provider rejects it, as it should);
- images: ``inlineData {mimeType, data}`` for data URIs, ``fileData {fileUri}`` (with a
  ``mimeType`` guessed from the URL's extension when there is one) for URLs;
- tools: ``[{"functionDeclarations": [{"name", "description", "parameters"}]}]``;
- reply: ``candidates[0].content.parts`` (``thought`` parts skipped); calls without an
  ``id`` get one from the client's ``id_factory``; a prompt blocked before any candidate is
  a reply with no text and ``finish_reason = promptFeedback.blockReason``.

Usage: ``promptTokenCount`` already includes ``cachedContentTokenCount``, so it is the
input count as is; output is ``candidatesTokenCount + thoughtsTokenCount`` (thinking is
generated output, as OpenAI's ``completion_tokens`` counts reasoning).

Non-streaming only: ``ProviderRequest.stream`` is ignored.
"""

from __future__ import annotations

import mimetypes
import urllib.parse
from collections.abc import Sequence
from typing import Final

from harness.providers.clients.canonical import (
    AssistantRow,
    ImagePart,
    SystemRow,
    TextPart,
    ToolRow,
    UserRow,
    WireRow,
    decode_rows,
    tool_names_by_id,
)
from harness.providers.clients.images import InlineImage
from harness.providers.clients.toolschema import parameters_schema
from harness.providers.plumbing.base import ProviderReply, ProviderRequest, Usage
from harness.providers.plumbing.transport import HttpProviderClient, IdFactory
from harness.providers.plumbing.wirejson import (
    JsonObject,
    WireShapeError,
    as_list,
    as_object,
    child,
    dumps,
    integer,
    loads_or_none,
    require_object,
    string,
    sum_present,
)
from harness.runtime.messages import ToolCall

API_VERSION_PATH: Final = "/v1beta"


def generate_content_path(model: str) -> str:
    name = model.removeprefix("models/")
    return f"{API_VERSION_PATH}/models/{urllib.parse.quote(name, safe='-._~')}:generateContent"


def build_generate_content_request(request: ProviderRequest) -> JsonObject:
    rows = decode_rows(request.messages)
    payload: JsonObject = {"contents": gemini_contents(rows)}
    system = [{"text": row.text} for row in rows if isinstance(row, SystemRow)]
    if system:
        payload["systemInstruction"] = {"parts": system}
    if request.tools:
        declarations = [
            {"name": s.name, "description": s.description, "parameters": parameters_schema(s)}
            for s in request.tools
        ]
        payload["tools"] = [{"functionDeclarations": declarations}]
    if request.max_tokens is not None:
        payload["generationConfig"] = {"maxOutputTokens": request.max_tokens}
    return payload


def gemini_contents(rows: Sequence[WireRow]) -> list[JsonObject]:
    names = tool_names_by_id(rows)
    contents: list[JsonObject] = []
    for row in rows:
        if isinstance(row, SystemRow):
            continue
        role = "model" if isinstance(row, AssistantRow) else "user"
        parts = _parts(row, names)
        last = contents[-1] if contents else None
        if last is not None and last["role"] == role and isinstance(last["parts"], list):
            last["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts})
    return contents


def _parts(row: UserRow | AssistantRow | ToolRow, names: dict[str, str]) -> list[JsonObject]:
    if isinstance(row, UserRow):
        return [{"text": p.text} if isinstance(p, TextPart) else _image(p) for p in row.parts]
    if isinstance(row, ToolRow):
        response = {
            "id": row.tool_call_id,
            "name": names.get(row.tool_call_id, ""),
            "response": {"content": row.text},
        }
        return [{"functionResponse": response}, *(_image(p) for p in row.images)]
    parts: list[JsonObject] = [{"text": row.text}] if row.text else []
    parts.extend(
        {"functionCall": {"id": c.id, "name": c.name, "args": _args(c.arguments)}}
        for c in row.tool_calls
    )
    return parts or [{"text": ""}]


def _args(arguments: str) -> JsonObject:
    return as_object(loads_or_none(arguments)) or {}


def _image(part: ImagePart) -> JsonObject:
    image = part.image
    if isinstance(image, InlineImage):
        return {"inlineData": {"mimeType": image.media_type, "data": image.data}}
    file_data: JsonObject = {"fileUri": image.url}
    guessed, _ = mimetypes.guess_type(urllib.parse.urlsplit(image.url).path)
    if guessed is not None:
        file_data = {"mimeType": guessed, **file_data}
    return {"fileData": file_data}


def gemini_usage(usage: JsonObject | None) -> Usage:
    if usage is None:
        return Usage()
    return Usage(
        input_tokens=integer(usage, "promptTokenCount"),
        output_tokens=sum_present(
            integer(usage, "candidatesTokenCount"), integer(usage, "thoughtsTokenCount")
        ),
        cache_read_input_tokens=integer(usage, "cachedContentTokenCount"),
    )


def parse_generate_content(body: object, new_id: IdFactory) -> ProviderReply:
    response = require_object(body, "generateContent response")
    usage = gemini_usage(child(response, "usageMetadata"))
    candidate = as_object(next(iter(as_list(response.get("candidates"))), None))
    if candidate is None:
        blocked = string(child(response, "promptFeedback"), "blockReason")
        if blocked is None:
            raise WireShapeError("response without candidates or promptFeedback.blockReason")
        return ProviderReply(text=None, usage=usage, finish_reason=blocked)
    texts: list[str] = []
    calls: list[ToolCall] = []
    for item in as_list((child(candidate, "content") or {}).get("parts")):
        part = require_object(item, "part")
        call = child(part, "functionCall")
        if call is not None:
            calls.append(_parse_call(call, new_id))
        elif part.get("thought") is not True and (text := string(part, "text")) is not None:
            texts.append(text)
    return ProviderReply(
        text="".join(texts) if texts else None,
        tool_calls=tuple(calls),
        usage=usage,
        finish_reason=string(candidate, "finishReason"),
        model=string(response, "modelVersion"),
    )


def _parse_call(call: JsonObject, new_id: IdFactory) -> ToolCall:
    name = string(call, "name")
    if name is None:
        raise WireShapeError("functionCall without a name")
    return ToolCall(string(call, "id") or new_id(), name, dumps(call.get("args") or {}))


class GeminiClient(HttpProviderClient):
    """generateContent over the injected client (see the module docstring for the wire)."""

    provider_kind = "gemini"

    def auth_headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self._api_key} if self._api_key else {}

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        path = generate_content_path(request.model)
        answer = await self.post_json(path, build_generate_content_request(request))
        return self.parse_answer(answer, parse_generate_content)
