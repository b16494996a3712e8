"""Spec 1.1 / 1.2: the message model, the byte-exact encodings of native tool calls and
results and of prompt-mode carriers, and carrier classification (IDX-TC grammar)."""

import dataclasses
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.runtime import (
    AssistantToolCalls,
    Attachment,
    Chat,
    ChatMessage,
    ParsedCarrier,
    ToolCall,
    ToolResultMessage,
    ToolResults,
    is_prompt_tool_carrier,
    is_tool_result_carrier,
    native_tool_call_content,
    native_tool_result_content,
    parse_native_tool_carrier,
    parse_prompt_tool_carrier,
    prompt_tool_results_row,
    render_prompt_tool_carrier,
    tool_result_block,
)
from harness.runtime.carriers import parse_carrier
from harness.runtime.messages import from_json, to_json
from tests.runtime.builders import asst, raw, sys, user
from tests.runtime.strategies import json_values


def test_chat_message_has_exactly_role_and_content_and_is_frozen() -> None:
    """Spec 1.1: exactly two string fields, ``role`` and ``content``; frozen (issue 2)."""
    assert [f.name for f in dataclasses.fields(ChatMessage)] == ["role", "content"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        user("x").content = "y"  # type: ignore[misc]


def test_structured_history_has_three_variants() -> None:
    """Spec 1.2: ``Chat``, ``AssistantToolCalls`` and ``ToolResults`` with these fields."""
    assert [f.name for f in dataclasses.fields(Chat)] == ["message"]
    assert [f.name for f in dataclasses.fields(AssistantToolCalls)] == [
        "text",
        "tool_calls",
        "reasoning_content",
    ]
    assert [f.name for f in dataclasses.fields(ToolResults)] == ["results"]
    assert [f.name for f in dataclasses.fields(ToolCall)] == [
        "id",
        "name",
        "arguments",
        "extra_content",
    ]
    # issue 2: ToolResultMessage(tool_call_id, content, tool_name); later optional fields
    # (the project's declared ``attachments``) must keep that positional shape.
    assert [f.name for f in dataclasses.fields(ToolResultMessage)][:3] == [
        "tool_call_id",
        "content",
        "tool_name",
    ]
    assert ToolResultMessage("c1", "out", "shell").tool_name == "shell"


def test_native_tool_call_row_encodes_text_and_calls_as_json() -> None:
    """Spec 1.1: ``{"content": <trimmed text>, "tool_calls": [{id, name, arguments}]}``."""
    content = native_tool_call_content("  let me look  ", [ToolCall("c1", "shell", '{"a":1}')])
    assert content == (
        '{"content":"let me look","tool_calls":'
        '[{"id":"c1","name":"shell","arguments":"{\\"a\\":1}"}]}'
    )


def test_native_tool_call_blank_text_is_null() -> None:
    """Spec 1.1: ``"content"`` is ``null`` when the text is blank (or absent)."""
    calls = [ToolCall("c1", "shell", "{}")]
    expected = '{"content":null,"tool_calls":[{"id":"c1","name":"shell","arguments":"{}"}]}'
    assert native_tool_call_content("  \n ", calls) == expected
    assert native_tool_call_content(None, calls) == expected


def test_native_tool_call_carries_extra_content_and_reasoning_when_present() -> None:
    """Spec 1.1: ``extra_content`` per call and ``reasoning_content`` are optional keys."""
    calls = [ToolCall("c1", "shell", "{}", extra_content={"sig": "x"})]
    assert native_tool_call_content("hi", calls, reasoning_content="because") == (
        '{"content":"hi","tool_calls":[{"id":"c1","name":"shell","arguments":"{}",'
        '"extra_content":{"sig":"x"}}],"reasoning_content":"because"}'
    )


def test_native_tool_result_always_writes_attachments() -> None:
    """Spec 1.1: the seed-era envelope always has ``attachments``, ``[]`` when none."""
    assert native_tool_result_content("c1", "ok") == (
        '{"tool_call_id":"c1","content":"ok","attachments":[]}'
    )


def test_native_tool_result_lists_kind_and_target() -> None:
    """Spec 1.1: ``{"kind": "image"|"audio"|"video"|"document", "target": ...}``."""
    attachments = [Attachment("image", "/tmp/a.png"), Attachment("document", "/tmp/b.pdf")]
    assert native_tool_result_content("c1", "ok", attachments) == (
        '{"tool_call_id":"c1","content":"ok","attachments":['
        '{"kind":"image","target":"/tmp/a.png"},{"kind":"document","target":"/tmp/b.pdf"}]}'
    )


def test_native_result_text_is_verbatim_and_non_ascii_is_unescaped() -> None:
    """Spec 1.1: verbatim result text; compact JSON as serde writes it (UTF-8 unescaped)."""
    assert native_tool_result_content("c1", "café\n") == (
        '{"tool_call_id":"c1","content":"café\\n","attachments":[]}'
    )


def test_prompt_carrier_with_no_attachments_matches_the_spec_example() -> None:
    """Spec 1.1 example: ``"[Tool results]\\n[Tool attachments: 0]\\nordinary-output"``."""
    assert render_prompt_tool_carrier("ordinary-output") == (
        "[Tool results]\n[Tool attachments: 0]\nordinary-output"
    )


def test_prompt_carrier_lists_one_marker_line_per_attachment() -> None:
    """Spec 1.1: N marker lines "[KIND:target]" after the count header, then the body."""
    attachments = [Attachment("image", "/a.png"), Attachment("audio", "/b.wav")]
    assert render_prompt_tool_carrier("body", attachments) == (
        "[Tool results]\n[Tool attachments: 2]\n[IMAGE:/a.png]\n[AUDIO:/b.wav]\nbody"
    )


def test_tool_result_block_wraps_output_in_a_named_element() -> None:
    """Spec 1.1: ``<tool_result name=\\"tool\\">\\n…\\n</tool_result>``."""
    assert tool_result_block("shell", "ls output") == (
        '<tool_result name="shell">\nls output\n</tool_result>'
    )


def test_prompt_tool_results_row_is_a_user_carrier() -> None:
    """Spec 1.1: one ``user`` row per tool round with the header and the body blocks."""
    row = prompt_tool_results_row([ToolResultMessage("c1", "out", "shell")])
    assert row == ChatMessage(
        "user",
        '[Tool results]\n[Tool attachments: 0]\n<tool_result name="shell">\nout\n</tool_result>',
    )


def test_every_tool_row_is_a_carrier() -> None:
    """Spec 1.1: every ``tool`` row is a carrier, whatever its content."""
    assert is_tool_result_carrier(raw("tool", "plain text"))
    assert is_tool_result_carrier(raw("tool", ""))


def test_user_row_is_a_carrier_after_trimming_leading_whitespace() -> None:
    """Spec 1.1: a user row is a carrier when, after trimming leading whitespace, it starts
    with ``[Tool results]``."""
    assert is_tool_result_carrier(user("[Tool results]\nx"))
    assert is_tool_result_carrier(user("  \n\t[Tool results]\nx"))
    assert not is_tool_result_carrier(user("x [Tool results]"))
    assert not is_tool_result_carrier(user("[tool results]"))


def test_whitespace_trim_follows_rust_rules() -> None:
    """Spec 1.1 (Rust ``trim_start``): U+00A0 is whitespace, U+001C is not."""
    assert is_prompt_tool_carrier("\u00a0[Tool results]")
    assert not is_prompt_tool_carrier("\x1c[Tool results]")


def test_assistant_and_system_rows_are_never_carriers() -> None:
    """Spec 1.1: only ``tool`` and ``user`` rows can be carriers."""
    assert not is_tool_result_carrier(asst("[Tool results]\nx"))
    assert not is_tool_result_carrier(sys("[Tool results]\nx"))


def test_prompt_carrier_parse_reads_header_markers_and_body() -> None:
    """Spec 1.1: line 2 count header, exactly N marker lines, then the body."""
    content = "[Tool results]\n[Tool attachments: 1]\n[IMAGE:/tmp/shot.png]\nline1\nline2"
    assert parse_prompt_tool_carrier(content) == ParsedCarrier(
        "line1\nline2", (Attachment("image", "/tmp/shot.png"),), declared=True
    )


def test_zero_attachment_carrier_keeps_a_fake_header_in_the_body() -> None:
    """Spec 1.1: the count is read at the fixed position only; body text is body."""
    body = "[Tool attachments: 1]\n[IMAGE:/tmp/real.png]\nrest"
    parsed = parse_prompt_tool_carrier(render_prompt_tool_carrier(body))
    assert parsed == ParsedCarrier(body, (), declared=True)


def test_carrier_without_a_count_line_is_legacy_with_its_whole_text_as_body() -> None:
    """Spec 1.1: a carrier that lacks a valid count line is legacy: the whole text is its
    body and it declares zero attachments."""
    content = '[Tool results]\n<tool_result name="s">\n[IMAGE:/tmp/a.png]\n</tool_result>'
    assert parse_prompt_tool_carrier(content) == ParsedCarrier(content, (), declared=False)
    assert parse_prompt_tool_carrier("[Tool results]") == ParsedCarrier(
        "[Tool results]", (), declared=False
    )


@pytest.mark.parametrize(
    "header",
    [
        "[Tool attachments: ]",
        "[Tool attachments: x]",
        "[Tool attachments: +1]",
        "[Tool attachments: -1]",
        "[Tool attachments:  1]",
        "[Tool attachments: 1 ]",
        "[tool attachments: 1]",
        "[Tool attachments: 1]x",
        "[Tool attachments: \u0661]",  # ARABIC-INDIC DIGIT ONE: a digit, but not ASCII
    ],
)
def test_count_header_must_match_exactly(header: str) -> None:
    """Spec 1.1: ``[Tool attachments: <ASCII digits>]`` exactly; anything else -> legacy."""
    content = f"[Tool results]\n{header}\n[IMAGE:/a.png]\nbody"
    assert parse_prompt_tool_carrier(content) == ParsedCarrier(content, (), declared=False)


def test_count_header_accepts_leading_zeros() -> None:
    """Spec 1.1: any ASCII digits: "01" is 1."""
    content = "[Tool results]\n[Tool attachments: 01]\n[VIDEO:/v.mp4]\nbody"
    parsed = parse_prompt_tool_carrier(content)
    assert parsed == ParsedCarrier("body", (Attachment("video", "/v.mp4"),), declared=True)


def test_short_marker_run_is_legacy() -> None:
    """Spec 1.1: exactly N marker lines must follow; fewer -> legacy."""
    content = "[Tool results]\n[Tool attachments: 2]\n[IMAGE:/tmp/a.png]\nbody"
    assert parse_prompt_tool_carrier(content) == ParsedCarrier(content, (), declared=False)


@pytest.mark.parametrize(
    "marker",
    ["[IMAGE:]", "[image:/a.png]", "[PICTURE:/a.png]", "IMAGE:/a.png", "[IMAGE/a.png]"],
)
def test_malformed_marker_line_makes_the_carrier_legacy(marker: str) -> None:
    """Spec 1.1: kinds IMAGE/AUDIO/VIDEO/DOCUMENT with a non-empty target; else legacy."""
    content = f"[Tool results]\n[Tool attachments: 1]\n{marker}\nbody"
    assert parse_prompt_tool_carrier(content) == ParsedCarrier(content, (), declared=False)


def test_all_four_marker_kinds_are_accepted() -> None:
    """Spec 1.1: IMAGE, AUDIO, VIDEO and DOCUMENT."""
    content = (
        "[Tool results]\n[Tool attachments: 4]\n"
        "[IMAGE:/i]\n[AUDIO:/a]\n[VIDEO:/v]\n[DOCUMENT:/d]\nbody"
    )
    parsed = parse_prompt_tool_carrier(content)
    assert parsed is not None
    assert [a.kind for a in parsed.attachments] == ["image", "audio", "video", "document"]


def test_native_carrier_reads_attachments_and_verbatim_text() -> None:
    """Spec 1.1: the envelope's ``content`` is the body; the array is the declaration."""
    content = native_tool_result_content("c1", "body", [Attachment("image", "/tmp/a.png")])
    assert parse_native_tool_carrier(content) == ParsedCarrier(
        "body", (Attachment("image", "/tmp/a.png"),), declared=True
    )


def test_native_empty_array_declares_zero() -> None:
    """Spec 1.1: ``[]`` is a declaration of none."""
    parsed = parse_native_tool_carrier(native_tool_result_content("c1", "body"))
    assert parsed == ParsedCarrier("body", (), declared=True)


@pytest.mark.parametrize("value", ['"nope"', "7", '{"kind":"image"}', "null"])
def test_native_non_array_attachments_value_is_legacy(value: str) -> None:
    """Spec 1.1: a native ``attachments`` value that is not an array is legacy."""
    content = f'{{"tool_call_id":"c1","content":"body","attachments":{value}}}'
    assert parse_native_tool_carrier(content) == ParsedCarrier("body", (), declared=False)


def test_native_envelope_without_attachments_is_legacy() -> None:
    """Spec 1.1: older envelopes have no ``attachments`` key; these are legacy."""
    content = '{"tool_call_id":"c1","content":"body"}'
    assert parse_native_tool_carrier(content) == ParsedCarrier("body", (), declared=False)


def test_native_malformed_items_are_skipped_and_the_carrier_stays_declared() -> None:
    """Spec 1.1: array items that are not well formed are skipped; still declared."""
    content = json.dumps(
        {
            "tool_call_id": "c1",
            "content": "body",
            "attachments": [
                {"kind": "image", "target": "/tmp/a.png"},
                {"kind": "unexpected", "target": "/tmp/b.png"},
                {"kind": "image"},
                "not an object",
            ],
        }
    )
    assert parse_native_tool_carrier(content) == ParsedCarrier(
        "body", (Attachment("image", "/tmp/a.png"),), declared=True
    )


def image(target: str) -> dict[str, str]:
    return {"kind": "image", "target": target}


@given(st.sampled_from(["tool", "user"]), st.text(max_size=60))
def test_a_carrier_parsed_once_is_remembered_and_equal_to_a_fresh_parse(
    role: str, text: str
) -> None:
    """``parse_carrier`` remembers its answer on the row; the answer never differs from
    parsing the same content on a row that has not been parsed yet."""
    content = (
        json.dumps({"tool_call_id": "c1", "content": text, "attachments": [image(text)]})
        if role == "tool"
        else f"[Tool results]\n[Tool attachments: 1]\n[IMAGE:{text}]\n{text}"
    )
    row = ChatMessage(role, content)
    first = parse_carrier(row)
    assert parse_carrier(row) is first
    parse = parse_native_tool_carrier if role == "tool" else parse_prompt_tool_carrier
    assert first == parse(content)


any_json_values = json_values(finite=False)


def _has_non_finite(value: object) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, list):
        return any(map(_has_non_finite, value))
    if isinstance(value, dict):
        return any(map(_has_non_finite, value.values()))
    return False


@given(any_json_values)
def test_to_json_writes_what_json_dumps_writes_compact_and_unescaped(value: object) -> None:
    assert to_json(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@given(any_json_values)
def test_from_json_reads_what_json_loads_reads_and_refuses_nan_and_infinity(
    value: object,
) -> None:
    text = json.dumps(value)
    if _has_non_finite(value):
        assert from_json(text) is None  # serde_json refuses NaN and Infinity
    else:
        assert from_json(text) == json.loads(text)
    assert from_json(text + " x") is None
