"""Gemini's answers: one ``GenerateContentResponse`` (``:generateContent``) and the
stream of them (``:streamGenerateContent``).

Shapes, from real recorded answers:

- a function-call answer carries ``finishMessage: "Model generated function call(s)."``
  next to ``finishReason: "STOP"`` (charmbracelet/fantasy
  ``providertests/testdata/TestGoogleCommon/gemini-2.5-flash/tool.yaml`` and
  ``tool_streaming.yaml``); a text answer carries no ``finishMessage``
  (``.../TestGoogleThinking/gemini-2.5-flash/thinking.yaml``, interaction 1);
- streamed, every chunk is a whole ``GenerateContentResponse``: the candidate's new
  ``parts`` with ``role`` and ``index``, and ``usageMetadata`` (``candidatesTokenCount``
  running so far), ``modelVersion`` and ``responseId`` in every chunk; only the last
  chunk carries ``finishReason`` (junjihashimoto/louter
  ``test-data/gemini/streaming_long/response.json``); a function call comes whole in one
  chunk (``tool_streaming.yaml`` above, louter
  ``test-data/gemini/streaming_function_calling/response_0.json``).

Thinking (Gemini 2.5 and 3 think by default, ai.google.dev/gemini-api/docs/thinking;
``thinkingConfig.thinkingBudget: 0`` turns it off on 2.5 Flash): in the records, a turn that
answers a user's text reports ``usageMetadata.thoughtsTokenCount`` (counted in
``totalTokenCount``) and its first ``functionCall`` part carries a ``thoughtSignature``
(fantasy ``TestGoogleCommon/gemini-2.5-flash/simple.yaml``, ``tool.yaml``,
``multi_tool.yaml``, ``tool_streaming.yaml`` interaction 0 at f6d4d1e; pydantic-ai
``test_google/test_google_model.yaml``, ``test_google_instructions_only_with_tool_calls.yaml``
at 4fda389); a turn that answers function responses reports neither (the same files'
interaction 1, ``TestGoogleThinking/gemini-2.5-flash/thinking.yaml`` interaction 1). Text
answers carry no signature. The fake's choices: ``THOUGHTS_TOKENS`` thought tokens (the
records: 24 to 190), and a signature of ``THOUGHT_SIGNATURE_BYTES`` base64 bytes derived
from the response id (Google's is opaque; the fake reads none of it back).

Text is streamed ``PIECES_PER_CHUNK`` words at a time (the real chunks are larger, about
fifty tokens; smaller chunks show several even for short scripted replies).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence

from fakes.rows import JSONValue, Row
from fakes.wire.base import ReplyPlan, StreamEvent
from fakes.wire.common import text_pieces

PIECES_PER_CHUNK = 4
FUNCTION_CALL_FINISH_MESSAGE = "Model generated function call(s)."
THINKING_MODELS = ("gemini-2.5", "gemini-3")
THOUGHTS_TOKENS = 32
THOUGHT_SIGNATURE_BYTES = 48


def thinks(model: str, config: object, rows: Sequence[Row]) -> bool:
    """Whether the answer reports thinking: a model that thinks by default, thinking not
    turned off (``thinkingBudget: 0``), a turn answering the user (not function results)."""
    if not model.startswith(THINKING_MODELS) or not rows or rows[-1].role == "tool":
        return False
    thinking = config.get("thinkingConfig") if isinstance(config, Mapping) else None
    return not (isinstance(thinking, Mapping) and thinking.get("thinkingBudget") == 0)


def _thinks(plan: ReplyPlan) -> bool:
    return plan.options.get("thinks") is True


def _signature(plan: ReplyPlan) -> str:
    digest = hashlib.sha384(plan.response_id.encode()).digest()[:THOUGHT_SIGNATURE_BYTES]
    return base64.b64encode(digest).decode()


def _finish(plan: ReplyPlan) -> str:
    return "STOP" if plan.stop in ("stop", "tool_calls") else "MAX_TOKENS"


def _usage(plan: ReplyPlan, output_tokens: int) -> dict[str, JSONValue]:
    u = plan.usage
    usage: dict[str, JSONValue] = {
        "promptTokenCount": u.input_tokens,
        "candidatesTokenCount": output_tokens,
        "totalTokenCount": u.input_tokens + output_tokens,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": u.input_tokens}],
    }
    if _thinks(plan):
        usage["thoughtsTokenCount"] = THOUGHTS_TOKENS
        usage["totalTokenCount"] = u.input_tokens + output_tokens + THOUGHTS_TOKENS
    if u.cached_tokens:
        usage["cachedContentTokenCount"] = u.cached_tokens
    return usage


def _calls(plan: ReplyPlan) -> list[JSONValue]:
    parts: list[JSONValue] = []
    for n, c in enumerate(plan.tool_calls):
        part: dict[str, JSONValue] = {
            "functionCall": {"name": c.name, "args": json.loads(c.arguments_json)}
        }
        if n == 0 and _thinks(plan):
            part["thoughtSignature"] = _signature(plan)
        parts.append(part)
    return parts


def _response(
    plan: ReplyPlan, parts: list[JSONValue], output_tokens: int, *, final: bool
) -> JSONValue:
    candidate: dict[str, JSONValue] = {"content": {"parts": parts, "role": "model"}}
    if final:
        candidate["finishReason"] = _finish(plan)
    candidate["index"] = 0
    if final and plan.tool_calls:
        candidate["finishMessage"] = FUNCTION_CALL_FINISH_MESSAGE
    return {
        "candidates": [candidate],
        "usageMetadata": _usage(plan, output_tokens),
        "modelVersion": plan.model,
        "responseId": plan.response_id,
    }


def reply(plan: ReplyPlan) -> JSONValue:
    parts: list[JSONValue] = [{"text": plan.text}] if plan.text else []
    return _response(plan, parts + _calls(plan), plan.usage.output_tokens, final=True)


def text_chunks(text: str) -> list[str]:
    pieces = text_pieces(text)
    return [
        "".join(pieces[n : n + PIECES_PER_CHUNK]) for n in range(0, len(pieces), PIECES_PER_CHUNK)
    ]


def stream(plan: ReplyPlan) -> tuple[StreamEvent, ...]:
    """The chunks: the text a few words at a time, the function calls whole in the last
    chunk; ``candidatesTokenCount`` grows with the text sent, to the total at the end."""
    chunks = text_chunks(plan.text or "")
    total, sent = len(plan.text or ""), 0
    out = plan.usage.output_tokens
    events: list[StreamEvent] = []
    for n, chunk in enumerate(chunks):
        sent += len(chunk)
        final = n == len(chunks) - 1 and not plan.tool_calls
        so_far = out if final else out * sent // max(total, 1)
        events.append(StreamEvent(_response(plan, [{"text": chunk}], so_far, final=final)))
    if plan.tool_calls or not events:
        events.append(StreamEvent(_response(plan, _calls(plan), out, final=True)))
    return tuple(events)
