"""Fake-independent readers of wire requests: which tool calls a request carries, and which
results answer them, in order. They read each wire format as its documentation describes,
without any code of the clients, so a round-trip property can compare them with the
canonical rows they were built from."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness.runtime import ChatMessage


@dataclass(frozen=True)
class Pairing:
    calls: list[tuple[str, str, Any]]  # (id, name, decoded arguments), in order
    results: list[str]  # tool_call ids of the results, in order


def canonical_pairing(messages: list[ChatMessage] | tuple[ChatMessage, ...]) -> Pairing:
    calls: list[tuple[str, str, Any]] = []
    results: list[str] = []
    for row in messages:
        if row.role == "assistant":
            try:
                value = json.loads(row.content)
            except ValueError:
                continue
            if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
                calls.extend(
                    (c["id"], c["name"], json.loads(c["arguments"])) for c in value["tool_calls"]
                )
        elif row.role == "tool":
            results.append(json.loads(row.content)["tool_call_id"])
    return Pairing(calls, results)


def read_openai_style(payload: dict[str, Any]) -> Pairing:
    """Chat Completions, Cohere v2 and Ollama native share the tool_calls / role=tool shape."""
    calls: list[tuple[str, str, Any]] = []
    results: list[str] = []
    for message in payload["messages"]:
        for call in message.get("tool_calls") or []:
            arguments = call["function"]["arguments"]
            decoded = json.loads(arguments) if isinstance(arguments, str) else arguments
            calls.append((call["id"], call["function"]["name"], decoded))
        if message["role"] == "tool":
            results.append(message["tool_call_id"])
    return Pairing(calls, results)


def read_responses(payload: dict[str, Any]) -> Pairing:
    calls = [
        (item["call_id"], item["name"], json.loads(item["arguments"]))
        for item in payload["input"]
        if item.get("type") == "function_call"
    ]
    results = [i["call_id"] for i in payload["input"] if i.get("type") == "function_call_output"]
    return Pairing(calls, results)


def read_anthropic(payload: dict[str, Any]) -> Pairing:
    calls: list[tuple[str, str, Any]] = []
    results: list[str] = []
    for message in payload["messages"]:
        for block in message["content"]:
            if block["type"] == "tool_use":
                calls.append((block["id"], block["name"], block["input"]))
            elif block["type"] == "tool_result":
                results.append(block["tool_use_id"])
    return Pairing(calls, results)


def read_gemini(payload: dict[str, Any]) -> Pairing:
    calls: list[tuple[str, str, Any]] = []
    results: list[str] = []
    for content in payload["contents"]:
        for part in content["parts"]:
            if "functionCall" in part:
                call = part["functionCall"]
                calls.append((call["id"], call["name"], call["args"]))
            elif "functionResponse" in part:
                results.append(part["functionResponse"]["id"])
    return Pairing(calls, results)


def anthropic_results_follow_their_calls(payload: dict[str, Any]) -> bool:
    """Each assistant message's tool_use ids are all answered in the very next message."""
    messages = payload["messages"]
    for index, message in enumerate(messages):
        used = {b["id"] for b in message["content"] if b["type"] == "tool_use"}
        if not used:
            continue
        following = messages[index + 1]["content"] if index + 1 < len(messages) else []
        answered = {b["tool_use_id"] for b in following if b["type"] == "tool_result"}
        if not used <= answered:
            return False
    return True
