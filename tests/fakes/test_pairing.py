"""Tool pairing enforced as the real APIs enforce it, in both directions, on every mount."""

from __future__ import annotations

from typing import Any

import pytest

from fakes import FakeProvider
from tests.fakes.conftest import Connect

pytestmark = pytest.mark.anyio

ORPHAN_TOOL = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
    "message with 'tool_calls'."
)


def _oa_call(call_id: str = "call_1") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": "read", "arguments": '{"path":"a"}'},
            }
        ],
    }


def _oa_result(call_id: str = "call_1") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "file body"}


USER = {"role": "user", "content": "read a"}


async def _post(connect: Connect, provider: str, path: str, body: dict[str, Any]) -> Any:
    client, _ = await connect(FakeProvider(provider, "m", context_window=10_000))
    return await client.post(path, json={"model": "m", **body})


async def test_openai_tool_message_without_a_preceding_call_is_rejected(connect: Connect) -> None:
    response = await _post(
        connect, "openai", "/v1/chat/completions", {"messages": [USER, _oa_result()]}
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "message": ORPHAN_TOOL,
            "type": "invalid_request_error",
            "param": "messages.[1].role",
            "code": None,
        }
    }


async def test_openai_call_without_its_tool_message_is_rejected(connect: Connect) -> None:
    response = await _post(
        connect,
        "openai",
        "/v1/chat/completions",
        {"messages": [USER, _oa_call(), {"role": "user", "content": "?"}]},
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        "call_1"
    )


async def test_openai_trailing_call_without_result_is_rejected(connect: Connect) -> None:
    response = await _post(
        connect, "groq", "/openai/v1/chat/completions", {"messages": [USER, _oa_call()]}
    )
    assert response.status_code == 400
    assert "did not have response messages: call_1" in response.json()["error"]["message"]


async def test_openai_paired_call_and_result_are_accepted(connect: Connect) -> None:
    response = await _post(
        connect, "openai", "/v1/chat/completions", {"messages": [USER, _oa_call(), _oa_result()]}
    )
    assert response.status_code == 200


async def test_ollama_does_not_check_pairing(connect: Connect) -> None:
    response = await _post(
        connect, "ollama", "/v1/chat/completions", {"messages": [USER, _oa_result()]}
    )
    assert response.status_code == 200


async def test_responses_output_without_call_is_rejected(connect: Connect) -> None:
    body = {
        "input": [
            {"role": "user", "content": "hi"},
            {"type": "function_call_output", "call_id": "call_9", "output": "x"},
        ]
    }
    response = await _post(connect, "openai", "/v1/responses", body)
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "No tool call found for function call output with call_id call_9."
    )


async def test_responses_call_without_output_is_rejected(connect: Connect) -> None:
    body = {
        "input": [
            {"role": "user", "content": "hi"},
            {"type": "function_call", "call_id": "call_9", "name": "f", "arguments": "{}"},
        ]
    }
    response = await _post(connect, "openai", "/v1/responses", body)
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "No tool output found for function call call_9."


def _an_use(use_id: str = "toolu_1") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": use_id, "name": "read", "input": {"path": "a"}}],
    }


def _an_result(use_id: str = "toolu_1") -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": use_id, "content": "file body"}],
    }


async def test_anthropic_tool_use_without_result_is_rejected(connect: Connect) -> None:
    body = {
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "read a"},
            _an_use(),
            {"role": "user", "content": "go on"},
        ],
    }
    response = await _post(connect, "anthropic", "/v1/messages", body)
    assert response.status_code == 400
    assert response.json()["error"] == {
        "type": "invalid_request_error",
        "message": (
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
            "toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the "
            "next message."
        ),
    }


async def test_anthropic_result_without_tool_use_is_rejected(connect: Connect) -> None:
    body = {
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "ok"},
            _an_result(),
        ],
    }
    response = await _post(connect, "anthropic", "/v1/messages", body)
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith(
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1."
    )


async def test_anthropic_paired_blocks_are_accepted(connect: Connect) -> None:
    body = {
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "read a"}, _an_use(), _an_result()],
    }
    response = await _post(connect, "anthropic", "/v1/messages", body)
    assert response.status_code == 200


def _gm_call() -> dict[str, Any]:
    return {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {"p": 1}}}]}


def _gm_response() -> dict[str, Any]:
    return {
        "role": "user",
        "parts": [{"functionResponse": {"name": "read", "response": {"content": "x"}}}],
    }


async def test_gemini_response_without_call_is_rejected(connect: Connect) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}, _gm_response()]}
    response = await _post(connect, "gemini", "/v1beta/models/m:generateContent", body)
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "code": 400,
            "status": "INVALID_ARGUMENT",
            "message": (
                "Please ensure that function response turn comes immediately after a function call "
                "turn."
            ),
        }
    }


async def test_gemini_call_without_response_is_rejected(connect: Connect) -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            _gm_call(),
            {"role": "user", "parts": [{"text": "and?"}]},
        ]
    }
    response = await _post(connect, "gemini", "/v1beta/models/m:generateContent", body)
    assert response.status_code == 400
    assert "number of function response parts is equal" in response.json()["error"]["message"]


async def test_gemini_paired_turns_are_accepted(connect: Connect) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}, _gm_call(), _gm_response()]}
    response = await _post(connect, "gemini", "/v1beta/models/m:generateContent", body)
    assert response.status_code == 200


async def test_bedrock_wraps_claudes_pairing_error(connect: Connect) -> None:
    body = {
        "messages": [
            {"role": "user", "content": [{"text": "hi"}]},
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": "f", "input": {}}}],
            },
            {"role": "user", "content": [{"text": "and?"}]},
        ]
    }
    response = await _post(connect, "bedrock", "/model/m/converse", body)
    assert response.status_code == 400
    assert response.headers["x-amzn-ErrorType"] == "ValidationException"
    assert response.json()["message"].startswith(
        "The model returned the following errors: messages.1: `tool_use` ids were found "
        "without `tool_result` blocks immediately after: tooluse_1."
    )
