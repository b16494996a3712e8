"""OpenAI Responses (``POST /v1/responses``), with SSE streaming.

Decoding: ``instructions`` → a ``system`` row; a string ``input`` → one ``user`` row;
message items → rows as in Chat Completions (``input_image`` → ``[IMAGE:<url>]``); a run
of ``function_call`` items → one native tool-call row (absorbing the text of an
assistant message item just before it); each ``function_call_output`` → a native tool
row. ``reasoning`` items are not counted.

Pairing, with the API's real messages: an output whose ``call_id`` no earlier call has,
and a call with no later output, are 400s. ``previous_response_id`` is resolved before
decoding by the fake's store (``fakes.simulations.responses_store``); one left here is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakes.catalogue import WireName
from fakes.rows import (
    Attachment,
    CanonicalRequest,
    JSONValue,
    Row,
    ToolSchema,
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
    cache_key_option,
    join_user_parts,
    obj,
    objects,
    openai_error,
    openai_error_body,
    optional_int,
    required,
    schema,
    string,
    text_pieces,
)
from fakes.wire.openai_responses_reasoning import (
    reasoning_events,
    reasoning_item,
    reasoning_option,
)


def _parts(content: Any, where: str) -> list[tuple[str, str]]:
    if isinstance(content, str):
        return [("text", content)]
    out: list[tuple[str, str]] = []
    for n, part in enumerate(objects(content, where)):
        if part.get("type") in ("input_text", "output_text", "text"):
            out.append(("text", string(part.get("text"), f"{where}[{n}].text")))
        elif part.get("type") == "input_image":
            url = part.get("image_url") or part.get("file_id")
            out.append(("image", string(url, f"{where}[{n}].image_url")))
    return out


def previous_response_not_found(response_id: str) -> WireError:
    """The real 400 for a ``previous_response_id`` the API does not have (unknown, expired
    or answered with ``store: false``): OpenAI API docs, WebSocket mode guide, "Errors to
    handle" (``code``, ``message``, ``param``; ``type`` as in every 400 of this API)."""
    message = f"Previous response with id '{response_id}' not found."
    body = openai_error_body(
        message, "invalid_request_error", "previous_response_id", "previous_response_not_found"
    )
    return WireError(400, body, detail="previous_response_id")


def _pairing(status_message: str) -> WireError:
    body = openai_error_body(status_message, "invalid_request_error", "input", None)
    return WireError(400, body, detail="tool pairing")


def check_pairing(items: list[dict[str, Any]]) -> None:
    calls_seen: set[str] = set()
    outputs_after: dict[int, set[str]] = {}
    later: set[str] = set()
    for index in range(len(items) - 1, -1, -1):
        outputs_after[index] = set(later)
        if items[index].get("type") == "function_call_output":
            later.add(str(items[index].get("call_id")))
    for index, item in enumerate(items):
        kind = item.get("type")
        call_id = str(item.get("call_id"))
        if kind == "function_call_output" and call_id not in calls_seen:
            raise _pairing(f"No tool call found for function call output with call_id {call_id}.")
        if kind == "function_call":
            if call_id not in outputs_after[index]:
                raise _pairing(f"No tool output found for function call {call_id}.")
            calls_seen.add(call_id)


@dataclass
class _Builder:
    rows: list[Row]
    calls: list[WireToolCall]
    pending_text: str | None = None

    def flush(self) -> None:
        if self.calls:
            self.rows.append(tool_call_row(self.pending_text, self.calls))
        elif self.pending_text is not None:
            self.rows.append(Row("assistant", self.pending_text))
        self.calls, self.pending_text = [], None

    def add(self, item: dict[str, Any], where: str) -> None:
        kind = item.get("type", "message")
        if kind == "function_call":
            name = string(item.get("name"), f"{where}.name")
            call_id = string(item.get("call_id"), f"{where}.call_id")
            self.calls.append(WireToolCall(call_id, name, arguments_text(item.get("arguments"))))
            return
        self.flush()
        if kind == "function_call_output":
            parts = _parts(item.get("output"), f"{where}.output")
            text = "".join(v for k, v in parts if k == "text")
            images = [Attachment("image", v) for k, v in parts if k == "image"]
            self.rows.append(tool_result_row(string(item.get("call_id"), where), text, images))
        elif kind == "message":
            self._message(item, where)

    def _message(self, item: dict[str, Any], where: str) -> None:
        role = item.get("role")
        parts = _parts(item.get("content"), f"{where}.content")
        if role == "assistant":
            self.pending_text = "".join(v for k, v in parts if k == "text")
        elif role in ("system", "developer"):
            self.rows.append(Row("system", "".join(v for k, v in parts if k == "text")))
        elif role == "user":
            self.rows.append(Row("user", join_user_parts(parts)))
        else:
            raise Invalid(f"Invalid value: '{role}'.")


def _obfuscation_option(body: dict[str, Any]) -> dict[str, object]:
    options = body.get("stream_options")
    include = options.get("include_obfuscation") if isinstance(options, dict) else None
    return {"include_obfuscation": include} if isinstance(include, bool) else {}


def _tools(tools: Any) -> tuple[ToolSchema, ...]:
    out = []
    for n, tool in enumerate(objects(tools, "tools")):
        if tool.get("type") == "function":
            out.append(
                schema(
                    tool.get("name"), tool.get("description"), tool.get("parameters"), f"tools[{n}]"
                )
            )
    return tuple(out)


def _usage(plan: ReplyPlan) -> JSONValue:
    u = plan.usage
    return {
        "input_tokens": u.input_tokens,
        "input_tokens_details": {"cached_tokens": u.cached_tokens},
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": u.total_tokens,
    }


def _message_item(plan: ReplyPlan, status: str, text: str) -> dict[str, JSONValue]:
    content: list[JSONValue] = [_text_part(text)] if status == "completed" else []
    return {
        "type": "message",
        "id": f"msg_{plan.response_id[5:]}",
        "status": status,
        "role": "assistant",
        "content": content,
    }


def _call_item(plan: ReplyPlan, n: int, status: str, arguments: str) -> dict[str, JSONValue]:
    call = plan.tool_calls[n]
    return {
        "type": "function_call",
        "id": f"fc_{plan.response_id[5:]}_{n}",
        "call_id": call.id,
        "name": call.name,
        "arguments": arguments,
        "status": status,
    }


_Event = tuple[str, dict[str, JSONValue]]
OBFUSCATION_WIDTH = 16
"""Streamed deltas carry ``obfuscation``, random characters that pad the delta to 16 (the
recorded deltas and their padding add up to 16 characters: fantasy
``TestOpenAIResponsesCommon/openai-gpt-4o-mini/simple_streaming.yaml``); the request's
``stream_options.include_obfuscation: false`` turns it off (openai-python
``types/responses/response_create_params.py``, ``StreamOptions``)."""


def _text_part(text: str) -> JSONValue:
    # ``logprobs: []`` in every output_text part (the recorded answers of fantasy, f6d4d1e)
    return {"type": "output_text", "annotations": [], "logprobs": [], "text": text}


def _delta(plan: ReplyPlan, delta: str) -> dict[str, JSONValue]:
    if not plan.obfuscate:
        return {"delta": delta}
    return {
        "delta": delta,
        "obfuscation": "x" * (OBFUSCATION_WIDTH - len(delta) % OBFUSCATION_WIDTH),
    }


def _text_events(plan: ReplyPlan, text: str, index: int) -> list[_Event]:
    where: dict[str, JSONValue] = {
        "item_id": f"msg_{plan.response_id[5:]}",
        "output_index": index,
        "content_index": 0,
    }
    empty, full = _text_part(""), _text_part(text)
    return [
        (
            "response.output_item.added",
            {"output_index": index, "item": _message_item(plan, "in_progress", "")},
        ),
        ("response.content_part.added", {**where, "part": empty}),
        *(
            ("response.output_text.delta", {**where, **_delta(plan, p), "logprobs": []})
            for p in text_pieces(text)
        ),
        ("response.output_text.done", {**where, "text": text, "logprobs": []}),
        ("response.content_part.done", {**where, "part": full}),
        (
            "response.output_item.done",
            {"output_index": index, "item": _message_item(plan, "completed", text)},
        ),
    ]


def _call_events(plan: ReplyPlan, n: int, index: int) -> list[_Event]:
    arguments = plan.tool_calls[n].arguments_json
    where: dict[str, JSONValue] = {
        "item_id": f"fc_{plan.response_id[5:]}_{n}",
        "output_index": index,
    }
    return [
        (
            "response.output_item.added",
            {"output_index": index, "item": _call_item(plan, n, "in_progress", "")},
        ),
        ("response.function_call_arguments.delta", {**where, **_delta(plan, arguments)}),
        ("response.function_call_arguments.done", {**where, "arguments": arguments}),
        (
            "response.output_item.done",
            {"output_index": index, "item": _call_item(plan, n, "completed", arguments)},
        ),
    ]


@dataclass(frozen=True, slots=True)
class OpenAIResponses:
    name: WireName = "openai_responses"
    tool_id_prefix: str = "call_"
    stream_media: StreamMedia = "sse"
    response_id_prefix: str = "resp_"

    def decode(self, body: Any, ctx: RequestContext) -> CanonicalRequest:
        body = obj(body, "body")
        model = ctx.path_model or string(required(body, "model"), "model")
        if body.get("previous_response_id") is not None:  # not resolved by a store
            raise previous_response_not_found(str(body["previous_response_id"]))
        raw = required(body, "input")
        items = (
            [{"type": "message", "role": "user", "content": raw}]
            if isinstance(raw, str)
            else [obj(item, f"input[{n}]") for n, item in enumerate(arr(raw, "input"))]
        )
        if ctx.enforce_pairing:
            check_pairing(items)
        builder = _Builder([], [])
        if isinstance(body.get("instructions"), str):
            builder.rows.append(Row("system", body["instructions"]))
        for n, item in enumerate(items):
            builder.add(item, f"input[{n}]")
        builder.flush()
        return CanonicalRequest(
            model=model,
            rows=tuple(builder.rows),
            tools=_tools(body.get("tools")),
            max_output_tokens=optional_int(body, "max_output_tokens"),
            stream=body.get("stream") is True,
            options={
                **cache_key_option(body),
                **_obfuscation_option(body),
                **reasoning_option(body, model),
            },
        )

    def _response(self, plan: ReplyPlan, *, done: bool) -> dict[str, JSONValue]:
        output: list[JSONValue] = []
        if done and reasoning_events(plan):
            output.append(reasoning_item(plan))
        if done and plan.text is not None:
            output.append(_message_item(plan, "completed", plan.text))
        if done:
            output += [
                _call_item(plan, n, "completed", c.arguments_json)
                for n, c in enumerate(plan.tool_calls)
            ]
        incomplete = plan.stop in ("length", "context_window")
        status = ("incomplete" if incomplete else "completed") if done else "in_progress"
        return {
            "id": plan.response_id,
            "object": "response",
            "created_at": plan.created,
            "status": status,
            "error": None,
            "incomplete_details": {"reason": "max_output_tokens"} if done and incomplete else None,
            "model": plan.model,
            "output": output,
            "parallel_tool_calls": True,
            "usage": _usage(plan) if done else None,
        }

    def reply(self, plan: ReplyPlan) -> JSONValue:
        return self._response(plan, done=True)

    def _events(self, plan: ReplyPlan) -> list[_Event]:
        events: list[_Event] = [
            ("response.created", {"response": self._response(plan, done=False)}),
            ("response.in_progress", {"response": self._response(plan, done=False)}),
        ]
        reasoning = reasoning_events(plan)  # the item at index 0, then the others
        events += reasoning
        first = 1 if reasoning else 0
        if plan.text is not None:
            events += _text_events(plan, plan.text, first)
            first += 1
        for n in range(len(plan.tool_calls)):
            events += _call_events(plan, n, first + n)
        events.append(("response.completed", {"response": self._response(plan, done=True)}))
        return events

    def stream(self, plan: ReplyPlan) -> tuple[StreamEvent, ...]:
        return tuple(
            StreamEvent({"type": kind, "sequence_number": n, **data}, event=kind)
            for n, (kind, data) in enumerate(self._events(plan))
        )

    def stream_error(self, plan: ReplyPlan, event: JSONValue) -> tuple[StreamEvent, ...]:
        return (*self.stream(plan)[:2], StreamEvent(event, event="error"))

    def error(self, status: int, kind: ErrorKind, message: str) -> JSONValue:
        return openai_error(kind, message)

    def error_headers(self, kind: ErrorKind) -> Mapping[str, str]:
        return {}

    def unknown_model(self, model: str) -> WireError:
        # A 400 naming ``param: "model"``, unlike Chat Completions' 404 (pydantic/pydantic-ai
        # tests/cassettes/test_model_name_suggestions/test_model_name_suggestion
        # [openai-responses].yaml at 4fda389)
        message = f"The requested model '{model}' does not exist."
        body = openai_error_body(message, "invalid_request_error", "model", "model_not_found")
        return WireError(400, body, detail="unknown model")
