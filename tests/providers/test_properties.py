"""Properties: translation keeps every tool call paired with its results on every wire;
replies parse back to the calls they carry; the image splitter agrees with the estimate;
the extended classifier's verdicts do not depend on the numbers in a message."""

from __future__ import annotations

import itertools
import json
import re
import string
from collections.abc import Callable
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from harness.providers import ProviderRequest, extended_is_overflow
from harness.providers.clients.anthropic import build_messages_request, parse_message
from harness.providers.clients.cohere import build_cohere_chat_request, parse_cohere_chat
from harness.providers.clients.gemini import build_generate_content_request, parse_generate_content
from harness.providers.clients.images import ImageMarker, split_image_markers
from harness.providers.clients.ollama import build_ollama_chat_request, parse_ollama_chat
from harness.providers.clients.openai_chat import build_chat_request, parse_chat_reply
from harness.providers.clients.openai_responses import build_responses_request, parse_response
from harness.runtime import (
    Attachment,
    ChatMessage,
    ToolCall,
    ToolResultMessage,
    native_tool_call_row,
    native_tool_result_row,
    prompt_tool_results_row,
    summarize_image_markers,
)
from harness.runtime.text import utf8_len
from tests.providers.catalogue import NEGATIVES, OVERFLOWS
from tests.providers.wire_readers import (
    Pairing,
    anthropic_results_follow_their_calls,
    canonical_pairing,
    read_anthropic,
    read_gemini,
    read_openai_style,
    read_responses,
)

REFS = st.sampled_from(
    [
        "data:image/png;base64,iVBORw0KGgo=",
        "https://img.test/a.png",
        "/local/b.png",
        "...",
        "<path>",
        "C:\\x.png",
    ]
)
TEXT = st.text(alphabet=string.ascii_letters + " .,[]:\n", max_size=20)
ARGS = st.dictionaries(
    st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=5),
    st.one_of(st.integers(-100, 100), st.text(max_size=6), st.booleans(), st.none()),
    max_size=3,
)
NAMES = st.sampled_from(["read_file", "list_dir", "shell", "screenshot"])


@st.composite
def user_text(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.one_of(TEXT, REFS.map(lambda r: f"[IMAGE:{r}]")), max_size=4))
    return "".join(pieces) or "hi"


@st.composite
def native_round(draw: st.DrawFn, prefix: str) -> list[ChatMessage]:
    count = draw(st.integers(1, 3))
    calls = [
        ToolCall(f"{prefix}_{i}{draw(st.text(string.ascii_letters, max_size=4))}", draw(NAMES),
                 json.dumps(draw(ARGS), separators=(",", ":")))
        for i in range(count)
    ]  # fmt: skip
    rows = [native_tool_call_row(draw(st.one_of(st.none(), TEXT)), calls)]
    for call in draw(st.permutations(calls)):
        images = draw(st.lists(REFS.map(lambda r: Attachment("image", r)), max_size=2))
        rows.append(native_tool_result_row(call.id, draw(TEXT), images))
    return rows


@st.composite
def prompt_round(draw: st.DrawFn) -> list[ChatMessage]:
    images = draw(st.lists(REFS.map(lambda r: Attachment("image", r)), max_size=2))
    results = [ToolResultMessage("x", draw(TEXT), draw(NAMES))]
    return [ChatMessage("assistant", draw(TEXT)), prompt_tool_results_row(results, images)]


@st.composite
def histories(draw: st.DrawFn) -> list[ChatMessage]:
    rows = [ChatMessage("system", draw(TEXT))]
    for turn in range(draw(st.integers(1, 3))):
        rows.append(ChatMessage("user", draw(user_text())))
        for index in range(draw(st.integers(0, 2))):
            if draw(st.booleans()):
                rows.extend(draw(native_round(f"t{turn}r{index}")))
            else:
                rows.extend(draw(prompt_round()))
        rows.append(ChatMessage("assistant", draw(TEXT) or "done"))
    return rows


WIRES: dict[str, tuple[Callable[[ProviderRequest], dict[str, Any]], Callable[[Any], Pairing]]] = {
    "openai-chat": (build_chat_request, read_openai_style),
    "openai-responses": (build_responses_request, read_responses),
    "anthropic": (build_messages_request, read_anthropic),
    "gemini": (build_generate_content_request, read_gemini),
    "ollama": (build_ollama_chat_request, read_openai_style),
    "cohere": (build_cohere_chat_request, read_openai_style),
}


@given(histories())
def test_every_wire_keeps_tool_call_ids_paired(history: list[ChatMessage]) -> None:
    expected = canonical_pairing(history)
    request = ProviderRequest("m", history)
    for name, (build, read) in WIRES.items():
        # Through real JSON text, as the bytes on the wire would be.
        payload = json.loads(json.dumps(build(request)))
        assert read(payload) == expected, name


@given(histories())
def test_anthropic_answers_every_tool_use_in_the_next_message(history: list[ChatMessage]) -> None:
    payload = build_messages_request(ProviderRequest("m", history))
    assert anthropic_results_follow_their_calls(payload)
    messages = payload["messages"]
    assert isinstance(messages, list)
    roles = [m["role"] for m in messages]
    assert all(a != b for a, b in itertools.pairwise(roles))


@given(histories())
def test_no_wire_sends_a_message_between_parallel_results(history: list[ChatMessage]) -> None:
    messages = build_chat_request(ProviderRequest("m", history))["messages"]
    assert isinstance(messages, list)
    for before, after in itertools.pairwise(messages):
        if before["role"] == "assistant" and before.get("tool_calls"):
            assert after["role"] == "tool"


CALLS = st.lists(
    st.tuples(st.text(string.ascii_letters + "_", min_size=1, max_size=8), NAMES, ARGS),
    max_size=4,
    unique_by=lambda c: c[0],
)


def _reply_bodies(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, object]:
    text_args = [(i, n, json.dumps(a)) for i, n, a in calls]
    fn = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
        for i, n, a in text_args
    ]
    return {
        "openai-chat": {"choices": [{"message": {"content": None, "tool_calls": fn}}]},
        "cohere": {"message": {"tool_calls": fn}},
        "ollama": {"message": {"content": "", "tool_calls": [
            {"id": i, "function": {"name": n, "arguments": a}} for i, n, a in calls]}},
        "openai-responses": {"output": [
            {"type": "function_call", "call_id": i, "name": n, "arguments": a}
            for i, n, a in text_args]},
        "anthropic": {"content": [
            {"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]},
        "gemini": {"candidates": [{"content": {"parts": [
            {"functionCall": {"id": i, "name": n, "args": a}} for i, n, a in calls]}}]},
    }  # fmt: skip


PARSERS = {
    "openai-chat": parse_chat_reply,
    "cohere": parse_cohere_chat,
    "ollama": parse_ollama_chat,
    "openai-responses": parse_response,
    "anthropic": parse_message,
    "gemini": parse_generate_content,
}


@given(CALLS)
def test_replies_parse_back_to_the_calls_they_carry(calls: list[Any]) -> None:
    for name, body in _reply_bodies(calls).items():
        reply = PARSERS[name](json.loads(json.dumps(body)), lambda: "generated")
        parsed = [(c.id, c.name, json.loads(c.arguments)) for c in reply.tool_calls]
        assert parsed == [(i, n, a) for i, n, a in calls], name


@given(st.lists(st.one_of(TEXT, REFS.map(lambda r: f"[IMAGE: {r}\n ]")), max_size=6))
def test_image_split_agrees_with_the_estimate(pieces: list[str]) -> None:
    content = "".join(pieces)
    segments = split_image_markers(content)
    summary = summarize_image_markers(content)
    markers = [s for s in segments if isinstance(s, ImageMarker)]
    assert len(markers) == summary.image_refs
    assert sum(utf8_len(s) for s in segments if isinstance(s, str)) == summary.text_bytes
    assert "".join(s.raw if isinstance(s, ImageMarker) else s for s in segments) == content


_NUMBER = re.compile(r"\d+")


def _renumber(body: str, numbers: list[int]) -> str:
    supply = iter(numbers)
    return _NUMBER.sub(lambda m: str(next(supply, int(m.group()))), body)


@given(st.sampled_from(NEGATIVES), st.lists(st.integers(0, 10**9), min_size=12, max_size=12))
def test_extended_never_flags_a_look_alike_whatever_its_numbers(
    case: Any, numbers: list[int]
) -> None:
    body = _renumber(case.body, numbers)
    assert not extended_is_overflow(case.provider, case.status, body)


@given(st.sampled_from(OVERFLOWS), st.lists(st.integers(0, 10**9), min_size=12, max_size=12))
def test_extended_recognises_an_overflow_whatever_its_numbers(
    case: Any, numbers: list[int]
) -> None:
    body = _renumber(case.body, numbers)
    assert extended_is_overflow(case.provider, case.status, body)
