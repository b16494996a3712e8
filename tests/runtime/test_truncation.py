"""Spec 16: ``max_tool_result_chars`` truncation (``truncate_tool_result`` and
``truncate_tool_message``)."""

import json

from harness.runtime import (
    DEFAULT_MAX_TOOL_RESULT_CHARS,
    native_tool_result_content,
    truncate_tool_message,
    truncate_tool_result,
)


def marker(elided: int) -> str:
    return f"\n\n[... {elided} characters truncated ...]\n\n"


def test_two_hundred_a_with_max_100() -> None:
    """Spec 16 example: head floor(200/3) = 66, tail 34, tail_start 200 - 34 = 166,
    elided 166 - 66 = 100 -> 66 a + marker(100) + 34 a."""
    assert truncate_tool_result("a" * 200, 100) == "a" * 66 + marker(100) + "a" * 34


def test_alphabet_with_max_5() -> None:
    """Spec 16 example: head floor(10/3) = 3, tail 2, tail_start 24, elided 21."""
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    assert truncate_tool_result(alphabet, 5) == "abc\n\n[... 21 characters truncated ...]\n\nyz"


def test_crab_emoji_cuts_land_on_char_boundaries() -> None:
    """Spec 16 example: 100 crabs (400 B), max 50: head_len 33 -> largest boundary 32
    (8 crabs); tail_len 17 -> 383 -> smallest boundary 384 (4 crabs); elided 352."""
    assert truncate_tool_result("🦀" * 100, 50) == "🦀" * 8 + marker(352) + "🦀" * 4


def test_zero_max_disables_truncation() -> None:
    """Spec 16: 0 disables truncation."""
    assert truncate_tool_result("a" * 200, 0) == "a" * 200


def test_output_within_max_bytes_is_unchanged() -> None:
    """Spec 16: ``len_bytes(output) <= max`` -> unchanged (100 <= 100)."""
    assert truncate_tool_result("a" * 100, 100) == "a" * 100


def test_length_is_measured_in_bytes_not_characters() -> None:
    """Spec 16: 60 "é" are 60 chars but 120 B > 100 -> truncated: head 66 B = 33 "é",
    tail 34 B from 86 = 17 "é", elided 86 - 66 = 20."""
    assert truncate_tool_result("é" * 60, 100) == "é" * 33 + marker(20) + "é" * 17


def test_output_is_longer_than_max_because_of_the_marker() -> None:
    """Spec 16: marker(100) is "\\n\\n" 2 + "[... " 5 + "100" 3 + " characters truncated ...]"
    26 + "\\n\\n" 2 = 38 B, so the output is 66 + 38 + 34 = 138 > 100."""
    assert len(truncate_tool_result("a" * 200, 100)) == 138


def test_head_cut_moves_back_to_the_marker_open_bracket() -> None:
    """Spec 16: "a"*60 + "[IMAGE:/tmp/x.png]" (18 B, bytes 60..78) + "b"*100 = 178 B,
    max 100: head 66 is inside the marker -> 60; tail_start 178 - 34 = 144; elided 84."""
    text = "a" * 60 + "[IMAGE:/tmp/x.png]" + "b" * 100
    assert truncate_tool_result(text, 100) == "a" * 60 + marker(84) + "b" * 34


def test_tail_cut_moves_to_just_after_the_marker_close_bracket() -> None:
    """Spec 16: "a"*100 + marker (bytes 100..118) + "b"*20 = 138 B, max 100: head 66;
    tail_start 138 - 34 = 104 is inside the marker -> 118; elided 118 - 66 = 52."""
    text = "a" * 100 + "[IMAGE:/tmp/x.png]" + "b" * 20
    assert truncate_tool_result(text, 100) == "a" * 66 + marker(52) + "b" * 20


def test_cut_exactly_at_a_marker_boundary_is_not_moved() -> None:
    """Spec 16: a cut at the marker's ``[`` or just after its ``]`` splits nothing:
    "a"*66 + "[IMAGE:/x]" (10 B) + "b"*124 = 200 B, max 100: head 66 = marker start."""
    text = "a" * 66 + "[IMAGE:/x]" + "b" * 124
    assert truncate_tool_result(text, 100) == "a" * 66 + marker(100) + "b" * 34


def test_cut_inside_nested_openers_moves_to_the_marker_of_the_5_2_grammar() -> None:
    """Spec 16 with the 5.2 marker grammar (a ref runs to the first ``]``), the simplest
    reading: "a"*50 + "[IMAGE:x [IMAGE:/b.png]" (23 B, bytes 50..73, inner opener at 59)
    + "b"*127 = 200 B, max 100: head 66 splits the marker that opens at 50 -> 50;
    tail_start 166; elided 116. (The reference code backs off to the *last* opener, 59.)"""
    text = "a" * 50 + "[IMAGE:x [IMAGE:/b.png]" + "b" * 127
    assert truncate_tool_result(text, 100) == "a" * 50 + marker(116) + "b" * 34


def test_unterminated_marker_does_not_move_the_cuts() -> None:
    """Spec 16: only a marker the cut would split (``[IMAGE:`` … ``]``) moves a cut."""
    text = "a" * 60 + "[IMAGE:/tmp/x.png" + "b" * 123  # 200 B, no closing bracket
    assert truncate_tool_result(text, 100) == text[:66] + marker(100) + text[166:]


def test_default_max_tool_result_chars_is_50000() -> None:
    """Spec 16 / 18: the default is 50,000."""
    assert DEFAULT_MAX_TOOL_RESULT_CHARS == 50_000


def test_tool_message_truncates_only_the_inner_content_of_a_native_envelope() -> None:
    """Spec 16: a JSON object with ``tool_call_id`` and a string ``content``: only the
    inner content is truncated, the object is re-serialised."""
    envelope = native_tool_result_content("c1", "a" * 200)
    out = json.loads(truncate_tool_message(envelope, 100))
    assert out == {
        "tool_call_id": "c1",
        "content": "a" * 66 + marker(100) + "a" * 34,
        "attachments": [],
    }


def test_tool_message_falls_back_to_plain_truncation_for_non_json() -> None:
    """Spec 16: otherwise it falls back to the plain function."""
    assert truncate_tool_message("a" * 200, 100) == "a" * 66 + marker(100) + "a" * 34


def test_tool_message_without_tool_call_id_falls_back_to_plain() -> None:
    """Spec 16: the object needs a ``tool_call_id`` key: '{"content":"' (12 B) + 188 a +
    '"}' (2 B) = 202 B, max 100: head 66, tail 34 from 168, elided 102."""
    content = '{"content":"' + "a" * 188 + '"}'
    expected = content[:66] + marker(102) + content[168:]
    assert truncate_tool_message(content, 100) == expected


def test_tool_message_with_non_string_content_falls_back_to_plain() -> None:
    """Spec 16: the inner ``content`` must be a string. '{"tool_call_id":"c1","content":['
    (32 B) + "1,"*90 (180 B) + '1]}' (3 B) = 215 B, max 100: head 66, tail 34 from 181,
    elided 181 - 66 = 115."""
    content = '{"tool_call_id":"c1","content":[' + "1," * 90 + "1]}"
    assert truncate_tool_message(content, 100) == content[:66] + marker(115) + content[181:]


def test_tool_message_zero_max_or_short_content_is_unchanged() -> None:
    """Spec 16: 0 disables; within max nothing changes."""
    envelope = native_tool_result_content("c1", "a" * 200)
    assert truncate_tool_message(envelope, 0) == envelope
    assert truncate_tool_message(envelope, 10_000) == envelope
