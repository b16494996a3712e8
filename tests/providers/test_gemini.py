"""Gemini generateContent: exact wire, reply parsing, usage, error list form."""

import pytest

from harness.providers import ContextWindowExceeded, ProviderReply, ProviderRequest, Usage
from harness.providers.clients.gemini import generate_content_path
from harness.runtime import ChatMessage, ToolCall, native_tool_result_row
from tests.providers.catalogue import GEMINI_ERROR
from tests.providers.support import CARRIER_TEXT, CAT_URL, PNG_B64, answer, run

pytestmark = pytest.mark.anyio

PNG_PART = {"inlineData": {"mimeType": "image/png", "data": PNG_B64}}


def _call(call_id: str, name: str, args: dict[str, object]) -> dict[str, object]:
    return {"functionCall": {"id": call_id, "name": name, "args": args}}


def _response(call_id: str, name: str, text: str) -> dict[str, object]:
    return {"functionResponse": {"id": call_id, "name": name, "response": {"content": text}}}


EXPECTED = {
    "contents": [
        {
            "role": "user",
            "parts": [
                {"text": "What is in "},
                {"fileData": {"mimeType": "image/png", "fileUri": CAT_URL}},
                {"text": " and [IMAGE:/home/u/local.png]?"},
            ],
        },
        {
            "role": "model",
            "parts": [
                {"text": "Let me look."},
                _call("c1", "read_file", {"path": "a.txt"}),
                _call("c2", "list_dir", {"path": "."}),
            ],
        },
        {
            "role": "user",
            "parts": [_response("c1", "read_file", "alpha"), _response("c2", "list_dir", "beta")],
        },
        {"role": "model", "parts": [{"text": "Both read."}]},
        {"role": "user", "parts": [{"text": "Now with the screenshot"}]},
        {"role": "model", "parts": [_call("c3", "screenshot", {})]},
        {"role": "user", "parts": [_response("c3", "screenshot", "captured"), PNG_PART]},
        {"role": "model", "parts": [{"text": "prompt mode next"}]},
        {"role": "user", "parts": [{"text": CARRIER_TEXT}, PNG_PART]},
    ],
    "systemInstruction": {"parts": [{"text": "You are terse."}, {"text": "Second system row."}]},
    "tools": [
        {
            "functionDeclarations": [
                {
                    "name": "read_file",
                    "description": "Read a file",
                    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
                }
            ]
        }
    ],
    "generationConfig": {"maxOutputTokens": 256},
}
RESPONSE = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "thinking...", "thought": True},
                    {"text": "Reading."},
                    {"functionCall": {"name": "read_file", "args": {"path": "x"}}},
                    {"functionCall": {"id": "fc-2", "name": "read_file", "args": {"path": "y"}}},
                ],
            },
            "finishReason": "STOP",
        }
    ],
    "usageMetadata": {
        "promptTokenCount": 1500,
        "cachedContentTokenCount": 1000,
        "candidatesTokenCount": 20,
        "thoughtsTokenCount": 5,
        "totalTokenCount": 1525,
    },
    "modelVersion": "gemini-test",
}


async def test_wire_json_for_the_standard_history() -> None:
    _, recorder = await run("gemini", answer(200, RESPONSE))
    request = recorder.requests[-1]
    assert str(request.url) == "https://api.test/v1beta/models/test-model:generateContent"
    assert request.headers["x-goog-api-key"] == "sk-test"
    assert recorder.sent_json == EXPECTED


async def test_reply_parsing_generates_missing_ids_and_counts_thoughts_as_output() -> None:
    reply, _ = await run("gemini", answer(200, RESPONSE))
    assert reply == ProviderReply(
        text="Reading.",
        tool_calls=(
            ToolCall("gen_0", "read_file", '{"path":"x"}'),
            ToolCall("fc-2", "read_file", '{"path":"y"}'),
        ),
        usage=Usage(input_tokens=1500, output_tokens=25, cache_read_input_tokens=1000),
        finish_reason="STOP",
        model="gemini-test",
    )


async def test_blocked_prompt_is_a_reply_with_the_block_reason() -> None:
    body = {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 9}}
    reply, _ = await run("gemini", answer(200, body))
    assert reply == ProviderReply(text=None, usage=Usage(input_tokens=9), finish_reason="SAFETY")


async def test_error_inside_a_list_is_classified() -> None:
    error, _ = await run("gemini", answer(400, [{"error": GEMINI_ERROR}]))
    assert isinstance(error, ContextWindowExceeded)
    assert error.error_type == "INVALID_ARGUMENT"
    assert (error.reference_verdict, error.extended_verdict) == (False, True)


async def test_orphan_result_has_no_name_to_borrow() -> None:
    request = ProviderRequest("m", [ChatMessage("user", "hi"), native_tool_result_row("zz", "x")])
    _, recorder = await run("gemini", answer(200, RESPONSE), request)
    sent = recorder.sent_json
    assert isinstance(sent, dict)
    assert sent["contents"] == [
        {"role": "user", "parts": [{"text": "hi"}, _response("zz", "", "x")]}
    ]


def test_model_names_are_path_quoted() -> None:
    assert generate_content_path("models/gemini-2.0-flash") == (
        "/v1beta/models/gemini-2.0-flash:generateContent"
    )
    assert generate_content_path("a/b c") == "/v1beta/models/a%2Fb%20c:generateContent"
