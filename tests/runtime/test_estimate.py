"""Spec 5: the token estimate — bytes not characters, image markers, dispositions by
position, declared attachments, and the related system-floor and tool-schema estimates."""

import json

from harness.runtime import (
    IMAGE_TOKEN_ESTIMATE,
    ChatMessage,
    ToolSpec,
    estimate_history_tokens,
    estimate_system_floor_tokens,
    estimate_tool_schema_tokens,
)
from tests.runtime.builders import asst, call, carrier, raw, sys, tool, user

DATA_URI_600K = "data:image/png;base64," + "A" * 600_000


def cost(*rows: ChatMessage) -> int:
    return estimate_history_tokens(list(rows))


# --- 5.1 base formula ------------------------------------------------------------------------


def test_forty_ascii_chars_cost_fourteen() -> None:
    """Spec 5.1 example: 40 ASCII chars -> ceil(40/4) + 4 = 14."""
    assert cost(user("x" * 40)) == 14


def test_system_prompt_hello_world_cost_twenty_one() -> None:
    """Spec 5.1 example: "system prompt here" (18 B -> 5 + 4 = 9), "hello" (5 B -> 2 + 4 =
    6), "world" (6) -> 21."""
    assert cost(sys("system prompt here"), user("hello"), asst("world")) == 21


def test_forty_thousand_byte_tool_row_costs_10004() -> None:
    """Spec 5.1 example: a 40,000-byte tool row -> 10,000 + 4 = 10,004."""
    assert cost(raw("tool", "x" * 40_000)) == 10_004


def test_hello_world_costs_seven() -> None:
    """Spec 5.1 example: "hello world" (11 B) -> ceil(11/4) + 4 = 3 + 4 = 7."""
    assert cost(user("hello world")) == 7


def test_bytes_not_characters_are_counted() -> None:
    """Spec 5.1: UTF-8 bytes. "é"*4 is 4 chars but 8 B -> 2 + 4 = 6 (chars would give 5);
    three crabs are 12 B -> 3 + 4 = 7."""
    assert cost(user("é" * 4)) == 6
    assert cost(user("🦀" * 3)) == 7


def test_division_rounds_up() -> None:
    """Spec 5.1: ``div_ceil``: 1 B -> 1 + 4 = 5; 4 B -> 5; 5 B -> 2 + 4 = 6."""
    assert cost(user("a")) == 5
    assert cost(user("abcd")) == 5
    assert cost(user("abcde")) == 6


def test_empty_message_costs_the_framing_only() -> None:
    """Spec 5.1: 0 B -> 0 + 4 = 4."""
    assert cost(asst("")) == 4


def test_empty_history_costs_zero() -> None:
    """Spec 5.1: the empty list gives 0."""
    assert estimate_history_tokens([]) == 0


def test_costs_are_summed_with_no_per_request_overhead() -> None:
    """Spec 5.1: the sum of per-message costs (5 + 5 + 5 = 15) and nothing else."""
    assert cost(user("a"), asst("b"), user("c")) == 15


def test_native_tool_call_row_is_priced_as_its_whole_json() -> None:
    """Spec 5.1: the JSON content of a native call row is priced as bytes:
    '{"content":null,"tool_calls":[{"id":"c1","name":"shell","arguments":"{}"}]}' is 75 B
    -> 19 + 4 = 23."""
    assert cost(call("c1")) == 23


def test_older_native_tool_row_is_priced_as_its_whole_envelope() -> None:
    """Spec 5.1 / 5.3: a tool row outside the current turn is its whole envelope:
    '{"tool_call_id":"c1","content":"body","attachments":[{"kind":"image","target":
    "/tmp/a.png"}]}' is 93 B -> 24 + 4 = 28 (its declared image is not charged)."""
    history = [user("old"), call("c1"), tool("c1", "body", "/tmp/a.png"), user("new")]
    # "old" 3 B -> 5; call 23; tool 28; "new" 5
    assert estimate_history_tokens(history) == 5 + 23 + 28 + 5


# --- 5.2 markers in user rows ------------------------------------------------------------------


def test_image_path_marker_is_charged_per_image_not_per_byte() -> None:
    """Spec 5.2 / 5.3: "[IMAGE:/tmp/a.png]" in a user row: text 0 B -> 0 + 1600 + 4."""
    assert cost(user("[IMAGE:/tmp/a.png]")) == 1_604


def test_data_uri_marker_is_not_priced_as_bytes() -> None:
    """Spec 5.2: a 600 KB data URI is one image: 0 + 1600 + 4 = 1604."""
    assert cost(user(f"[IMAGE:{DATA_URI_600K}]")) == 1_604


def test_mixed_text_and_images_sum() -> None:
    """Spec 5.2 / 5.3: text_bytes = "see " (4) + " and " (5) + " ok" (3) = 12 -> 3;
    2 images -> 3200; + 4 = 3207."""
    assert cost(user("see [IMAGE:/a.png] and [IMAGE:/b.png] ok")) == 3_207


def test_http_and_https_refs_are_loadable() -> None:
    """Spec 5.2: refs starting ``http://`` or ``https://`` are loadable."""
    assert cost(user("[IMAGE:http://x/a.png]")) == 1_604
    assert cost(user("[IMAGE:https://x/a.png]")) == 1_604


def test_windows_drive_paths_are_loadable() -> None:
    """Spec 5.2: ``X:\\`` and ``X:/`` drive paths are loadable, any ASCII letter."""
    assert cost(user("[IMAGE:C:\\img.png]")) == 1_604
    assert cost(user("[IMAGE:d:/img.png]")) == 1_604


def test_drive_letter_must_be_an_ascii_letter() -> None:
    """Spec 5.2: "1:/x.png" (8 B) and "é:/x" are placeholders, priced as text:
    "[IMAGE:1:/x.png]" is 16 B -> 4 + 4 = 8; "[IMAGE:é:/x]" is 13 B -> 4 + 4 = 8."""
    assert cost(user("[IMAGE:1:/x.png]")) == 8
    assert cost(user("[IMAGE:é:/x]")) == 8


def test_drive_letter_without_separator_is_a_placeholder() -> None:
    """Spec 5.2: "C:img.png" is not ``X:\\`` or ``X:/``: "[IMAGE:C:img.png]" 17 B -> 9."""
    assert cost(user("[IMAGE:C:img.png]")) == 9


def test_unc_paths_are_loadable() -> None:
    """Spec 5.2: ``\\\\server\\share`` is loadable."""
    assert cost(user("[IMAGE:\\\\server\\share\\a.png]")) == 1_604


def test_unc_device_paths_are_placeholders() -> None:
    """Spec 5.2: not ``\\\\?`` or ``\\\\.``: "[IMAGE:\\\\?\\C:\\a.png]" is 20 B -> 5 + 4 = 9;
    "[IMAGE:\\\\.\\pipe\\x]" is 18 B -> 5 + 4 = 9."""
    assert cost(user("[IMAGE:\\\\?\\C:\\a.png]")) == 9
    assert cost(user("[IMAGE:\\\\.\\pipe\\x]")) == 9


def test_unc_path_needs_a_server_and_a_share() -> None:
    """Spec 5.2 (the shape ``\\\\server\\share``, backslash-separated — simplest reading):
    "[IMAGE:\\\\server]" 16 B -> 4 + 4 = 8; "[IMAGE:\\\\server\\]" 17 B -> 5 + 4 = 9."""
    assert cost(user("[IMAGE:\\\\server]")) == 8
    assert cost(user("[IMAGE:\\\\server\\]")) == 9


def test_unc_path_share_may_follow_a_forward_slash() -> None:
    """Spec 5.2 as the reference's ``is_windows_unc_path`` reads it: ``\\\\server/share``
    is loadable too. Text left: 0 B -> 0 + 1600 + 4 = 1,604."""
    assert cost(user("[IMAGE:\\\\server/share]")) == 1_604


def test_placeholder_refs_count_as_text() -> None:
    """Spec 5.2: "...", "<path>" and relative paths are placeholders: "[IMAGE:...]" 11 B ->
    3 + 4 = 7; "[IMAGE:<path>]" 14 B -> 4 + 4 = 8; "[IMAGE:rel/a.png]" 17 B -> 5 + 4 = 9."""
    assert cost(user("[IMAGE:...]")) == 7
    assert cost(user("[IMAGE:<path>]")) == 8
    assert cost(user("[IMAGE:rel/a.png]")) == 9


def test_empty_ref_is_a_placeholder() -> None:
    """Spec 5.2: an empty (or all-whitespace) ref is not loadable: "[IMAGE:  ]" 10 B -> 7."""
    assert cost(user("[IMAGE:  ]")) == 7


def test_ref_is_trimmed_before_testing() -> None:
    """Spec 5.2: the ref is trimmed: "[IMAGE:  /tmp/a.png  ]" is one image, text 0 B."""
    assert cost(user("[IMAGE:  /tmp/a.png  ]")) == 1_604


def test_cr_lf_inside_ref_is_removed_with_the_whitespace_after_it() -> None:
    """Spec 5.2: "/tmp/\\n   a.png" collapses to "/tmp/a.png" and "\\r\\n  /tmp/a.png" to
    "/tmp/a.png": both loadable, so the whole marker is one image."""
    assert cost(user("[IMAGE:/tmp/\n   a.png]")) == 1_604
    assert cost(user("[IMAGE:\r\n  /tmp/a.png]")) == 1_604


def test_cr_lf_removal_does_not_make_a_relative_ref_loadable() -> None:
    """Spec 5.2: "rel\\n /tmp" collapses to "rel/tmp", a placeholder:
    "[IMAGE:rel\\n /tmp]" is 17 B -> 5 + 4 = 9."""
    assert cost(user("[IMAGE:rel\n /tmp]")) == 9


def test_unterminated_marker_is_text() -> None:
    """Spec 5.2: without ``]`` everything from ``[IMAGE:`` onward is text:
    "see [IMAGE:/tmp/a.png" is 21 B -> 6 + 4 = 10."""
    assert cost(user("see [IMAGE:/tmp/a.png")) == 10


def test_unterminated_tail_after_a_marker_is_text() -> None:
    """Spec 5.2: "[IMAGE:/a.png]" is an image; " and [IMAGE:/b.png" (18 B) is text ->
    5 + 1600 + 4 = 1609."""
    assert cost(user("[IMAGE:/a.png] and [IMAGE:/b.png")) == 1_609


def test_placeholder_bytes_count_untrimmed() -> None:
    """Spec 5.2: text_bytes of "[IMAGE:/a.png]  [IMAGE:...]  " are "  [IMAGE:...]  " =
    2 + 11 + 2 = 15 -> 4; one image -> 4 + 1600 + 4 = 1608."""
    assert cost(user("[IMAGE:/a.png]  [IMAGE:...]  ")) == 1_608


def test_ref_runs_up_to_the_first_closing_bracket() -> None:
    """Spec 5.2: in "[IMAGE:/a]b.png]" the ref is "/a" (loadable); "b.png]" (6 B) is text
    -> 2 + 1600 + 4 = 1606."""
    assert cost(user("[IMAGE:/a]b.png]")) == 1_606


def test_marker_without_loadable_refs_keeps_the_plain_formula() -> None:
    """Spec 5.3: ``[IMAGE:`` present but ``image_refs == 0`` -> plain formula:
    "    [IMAGE:...]    " is 19 B -> 5 + 4 = 9."""
    assert cost(user("    [IMAGE:...]    ")) == 9


def test_image_limits_are_not_modelled() -> None:
    """Spec 5.3: ``multimodal.max_images`` is not modelled: 30 images -> 30 * 1600 + 4
    (markers joined by nothing: text 0 B)."""
    content = "".join(f"[IMAGE:/tmp/{i:02d}.png]" for i in range(30))
    assert cost(user(content)) == 30 * IMAGE_TOKEN_ESTIMATE + 4


# --- 5.3 dispositions ------------------------------------------------------------------------


def test_user_rows_of_older_turns_are_charged_per_image() -> None:
    """Spec 5.3: every non-carrier user row, old turns included: 1604 + "ok" (2 B -> 5) +
    "next" (4 B -> 5) = 1614."""
    assert cost(user("[IMAGE:/a.png]"), asst("ok"), user("next")) == 1_614


def test_system_and_assistant_markers_stay_text() -> None:
    """Spec 5.3: system and assistant rows always use the byte formula:
    "[IMAGE:/tmp/a.png]" is 18 B -> 5 + 4 = 9 each."""
    assert cost(sys("[IMAGE:/tmp/a.png]")) == 9
    assert cost(asst("[IMAGE:/tmp/a.png]")) == 9


def test_older_carriers_are_priced_as_message_bytes() -> None:
    """Spec 5.3 [INFERRED]: an older carrier is the plain formula over its whole content;
    its marker text is never charged per image. Prompt carrier "[Tool results]\\n[Tool
    attachments: 1]\\n[IMAGE:/tmp/a.png]\\nout" is 59 B -> 15 + 4 = 19."""
    history = [user("go"), asst("run"), carrier("out", "/tmp/a.png"), user("next")]
    # "go" 5, "run" 5, carrier 19, "next" 5
    assert estimate_history_tokens(history) == 5 + 5 + 19 + 5


def test_stale_tool_marker_text_is_priced_as_bytes() -> None:
    """Spec 5.3: '{"tool_call_id":"c1","content":"[IMAGE:/tmp/x.png]","attachments":[]}'
    (69 B -> 18 + 4 = 22) in an older turn."""
    history = [user("go"), call("c1"), tool("c1", "[IMAGE:/tmp/x.png]"), user("next")]
    assert estimate_history_tokens(history) == 5 + 23 + 22 + 5


def test_current_native_carrier_charges_declared_images_and_body_bytes() -> None:
    """Spec 5.3 / 19.9: body "body" (4 B -> 1) + 1 image + 4 = 1605, not the envelope."""
    history = [user("go"), call("c1"), tool("c1", "body", "/tmp/a.png")]
    assert estimate_history_tokens(history) == 5 + 23 + 1_605


def test_current_prompt_carrier_charges_declared_images_and_body_bytes() -> None:
    """Spec 5.3 / 19.9: body "out" (3 B -> 1), header and marker lines excluded:
    1 + 1600 + 4 = 1605."""
    history = [user("go"), asst("run"), carrier("out", "/tmp/a.png")]
    assert estimate_history_tokens(history) == 5 + 5 + 1_605


def test_marker_text_in_a_current_carrier_body_is_not_charged() -> None:
    """Spec 5.3: body markers do not count; the body is priced as bytes. Body
    "see [IMAGE:/tmp/x.png]" (22 B -> 6) + 1 declared image + 4 = 1610."""
    history = [user("go"), call("c1"), tool("c1", "see [IMAGE:/tmp/x.png]", "/tmp/a.png")]
    assert estimate_history_tokens(history) == 5 + 23 + 1_610


def test_declared_data_uri_targets_are_not_priced_as_bytes() -> None:
    """Spec 5.3 (IDX-HT five-image test): five declared 600 KB data-URI images: body
    "five images" (11 B -> 3) + 5 * 1600 + 4 = 8007."""
    row = tool("c1", "five images", *([DATA_URI_600K] * 5))
    assert estimate_history_tokens([user("go"), call("c1"), row]) == 5 + 23 + 8_007


def test_five_images_in_a_prompt_carrier_are_not_priced_as_bytes() -> None:
    """Spec 5.3: same rule for a prompt-mode carrier: 3 + 8000 + 4 = 8007."""
    row = carrier("five images", *([DATA_URI_600K] * 5))
    assert estimate_history_tokens([user("go"), asst("run"), row]) == 5 + 5 + 8_007


def test_carrier_declaring_an_empty_array_is_priced_plain() -> None:
    """Spec 5.3: a carrier that declares nothing (empty array) gets the plain formula over
    its whole content, body markers included: 69 B -> 22."""
    history = [user("go"), call("c1"), tool("c1", "[IMAGE:/tmp/x.png]")]
    assert estimate_history_tokens(history) == 5 + 23 + 22


def test_legacy_native_envelope_is_priced_plain() -> None:
    """Spec 1.1 / 5.3: no ``attachments`` key -> legacy:
    '{"tool_call_id":"c1","content":"x"}' is 35 B -> 9 + 4 = 13."""
    assert cost(raw("tool", '{"tool_call_id":"c1","content":"x"}')) == 13


def test_non_array_attachments_value_is_legacy() -> None:
    """Spec 1.1: a native ``attachments`` value that is not an array is legacy:
    '{"tool_call_id":"c1","content":"x","attachments":"nope"}' is 56 B -> 14 + 4 = 18."""
    assert cost(raw("tool", '{"tool_call_id":"c1","content":"x","attachments":"nope"}')) == 18


def test_malformed_attachment_items_are_skipped_and_the_carrier_stays_declared() -> None:
    """Spec 1.1: bad items are skipped; one good image remains: body "b" (1 B -> 1) +
    1600 + 4 = 1605."""
    envelope = {
        "tool_call_id": "c1",
        "content": "b",
        "attachments": [
            {"kind": "image", "target": "/tmp/a.png"},
            {"kind": "unexpected", "target": "/tmp/b.png"},
            "not an object",
        ],
    }
    assert cost(raw("tool", json.dumps(envelope))) == 1_605


def test_declared_non_image_attachments_add_nothing() -> None:
    """Spec 5.3 (simplest reading, listed in the report): a current carrier that declares
    only non-image attachments has declared something, so it is priced as body bytes plus
    1600 per *image* (here none): body "doc" (3 B -> 1) + 0 + 4 = 5."""
    envelope = {
        "tool_call_id": "c1",
        "content": "doc",
        "attachments": [{"kind": "document", "target": DATA_URI_600K}],
    }
    assert cost(raw("tool", json.dumps(envelope))) == 5


def test_prompt_carrier_without_count_line_is_legacy() -> None:
    """Spec 1.1: no count line -> legacy, whole text is the body, priced plain:
    "[Tool results]\\n[IMAGE:/tmp/a.png]" is 33 B -> 9 + 4 = 13."""
    assert cost(user("[Tool results]\n[IMAGE:/tmp/a.png]")) == 13


def test_prompt_carrier_with_a_short_marker_run_is_legacy() -> None:
    """Spec 1.1: the count promises 2 marker lines, only 1 follows -> legacy:
    "[Tool results]\\n[Tool attachments: 2]\\n[IMAGE:/a.png]\\nbody" is 56 B -> 18."""
    assert cost(user("[Tool results]\n[Tool attachments: 2]\n[IMAGE:/a.png]\nbody")) == 18


def test_prompt_carrier_with_a_non_marker_line_is_legacy() -> None:
    """Spec 1.1: "[Tool results]\\n[Tool attachments: 1]\\nnot a marker\\nbody" is 54 B ->
    14 + 4 = 18."""
    assert cost(user("[Tool results]\n[Tool attachments: 1]\nnot a marker\nbody")) == 18


def test_when_no_plain_user_row_exists_every_carrier_is_current() -> None:
    """Spec 5.3: no non-carrier user row -> every carrier counts as current."""
    history = [call("c1"), tool("c1", "body", "/tmp/a.png")]
    assert estimate_history_tokens(history) == 23 + 1_605


def test_current_turn_starts_at_the_last_non_carrier_user_row() -> None:
    """Spec 5.3: carriers at or after the last plain user row are current; earlier ones
    are older (28, whole envelope) — only the current one is charged 1605."""
    history = [
        user("old"),  # 5
        call("c1"),  # 23
        tool("c1", "body", "/tmp/a.png"),  # older: 93 B -> 28
        user("new"),  # 5
        call("c2"),  # 23
        tool("c2", "body", "/tmp/a.png"),  # current: 1605
    ]
    assert estimate_history_tokens(history) == 5 + 23 + 28 + 5 + 23 + 1_605


def test_prompt_carriers_do_not_start_the_current_turn() -> None:
    """Spec 5.3: the anchor is the last user row that is *not* a prompt-mode carrier, so
    both carriers after "go" are current (1605 each)."""
    history = [user("go"), asst("a"), carrier("out", "/a.png"), asst("b"), carrier("out", "/b.png")]
    assert estimate_history_tokens(history) == 5 + 5 + 1_605 + 5 + 1_605


def test_leading_space_tool_results_row_is_priced_as_a_carrier() -> None:
    """Spec 17.3 / 19.3: carrier detection trims leading whitespace, so
    "  [Tool results]\\n..." is a carrier: it is not the current-turn anchor (the tool row
    before it stays current: 1605), and its own marker is not a user image. Its line 1 is
    not exactly ``[Tool results]``, so it declares nothing and is priced plain:
    "  [Tool results]\\n[Tool attachments: 1]\\n[IMAGE:/a.png]\\nbody" is 58 B -> 15 + 4."""
    spaced = user("  [Tool results]\n[Tool attachments: 1]\n[IMAGE:/a.png]\nbody")
    history = [user("go"), call("c1"), tool("c1", "body", "/tmp/a.png"), spaced]
    assert estimate_history_tokens(history) == 5 + 23 + 1_605 + 19


# --- 5.4 related estimates -------------------------------------------------------------------


def test_system_floor_counts_only_system_rows() -> None:
    """Spec 5.4: "You are helpful." (16 B -> 4 + 4 = 8); user and assistant rows ignored."""
    history = [sys("You are helpful."), user("What is Rust?"), asst("A language.")]
    assert estimate_system_floor_tokens(history) == 8


def test_system_floor_includes_late_system_rows() -> None:
    """Spec 5.4: the sum over ``system`` rows, wherever they are: 8 + "late" (4 B) 5 = 13."""
    history = [sys("You are helpful."), user("q"), sys("late")]
    assert estimate_system_floor_tokens(history) == 13


def test_system_floor_prices_markers_as_text() -> None:
    """Spec 5.4: plain formula: "[IMAGE:/tmp/a.png]" 18 B -> 5 + 4 = 9."""
    assert estimate_system_floor_tokens([sys("[IMAGE:/tmp/a.png]")]) == 9


def test_system_floor_of_no_system_rows_is_zero() -> None:
    """Spec 5.4: empty sum."""
    assert estimate_system_floor_tokens([]) == 0
    assert estimate_system_floor_tokens([user("hi"), asst("yo")]) == 0


def test_tool_schema_estimate_of_no_specs_is_zero() -> None:
    """Spec 5.4: 0 for none."""
    assert estimate_tool_schema_tokens([]) == 0


def test_tool_schema_estimate_uses_name_description_and_compact_json() -> None:
    """Spec 5.4: "shell" (5) + "run a command" (13) + '{"type":"object"}' (17) = 35 B ->
    ceil(35/4) + 4 = 9 + 4 = 13."""
    spec = ToolSpec("shell", "run a command", {"type": "object"})
    assert estimate_tool_schema_tokens([spec]) == 13


def test_tool_schema_estimate_sums_over_specs() -> None:
    """Spec 5.4: 13 + ("ls" 2 + "" 0 + "{}" 2 = 4 B -> 1 + 4 = 5) = 18."""
    specs = [ToolSpec("shell", "run a command", {"type": "object"}), ToolSpec("ls", "", {})]
    assert estimate_tool_schema_tokens(specs) == 18


def test_tool_schema_lengths_are_bytes() -> None:
    """Spec 5.4 (Rust ``len``): "é" is 2 B: "t" 1 + "é" 2 + "{}" 2 = 5 B -> 2 + 4 = 6."""
    assert estimate_tool_schema_tokens([ToolSpec("t", "é", {})]) == 6
