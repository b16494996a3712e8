"""Decoding canonical rows (spec 1.1) and image markers (spec 5.2) for the wire."""

import pytest

from harness.providers.clients.canonical import (
    AssistantRow,
    ImagePart,
    SystemRow,
    TextPart,
    ToolRow,
    UserRow,
    decode_rows,
)
from harness.providers.clients.images import (
    ImageMarker,
    InlineImage,
    UrlImage,
    parse_data_uri,
    split_image_markers,
)
from harness.runtime import (
    Attachment,
    ChatMessage,
    ToolCall,
    native_tool_call_row,
    native_tool_result_row,
    render_prompt_tool_carrier,
)
from tests.providers.support import PNG_B64, PNG_DATA_URI

# ---------------------------------------------------------------- images

PLAIN = "data:,hi%20there"
GIF = "data:image/gif;charset=x;BASE64,R0lG"


def test_split_keeps_placeholders_and_unterminated_tails_as_text() -> None:
    content = "a [IMAGE:...] b [IMAGE:<path>] c [IMAGE:/x.png] d [IMAGE:https://u"
    assert split_image_markers(content) == (
        "a [IMAGE:...] b [IMAGE:<path>] c ",
        ImageMarker("[IMAGE:/x.png]", "/x.png"),
        " d [IMAGE:https://u",
    )


def test_marker_ref_is_normalised_like_the_estimate() -> None:
    (marker,) = split_image_markers("[IMAGE:  data:image/png;base64,iVBO\r\n   RwKGgo=  ]")
    assert isinstance(marker, ImageMarker)
    assert marker.ref == "data:image/png;base64,iVBORwKGgo="


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        (PNG_DATA_URI, InlineImage(PNG_DATA_URI, "image/png", PNG_B64)),
        (PLAIN, InlineImage(PLAIN, "application/octet-stream", "aGkgdGhlcmU=")),
        (GIF, InlineImage(GIF, "image/gif", "R0lG")),
        ("data:image/png;base64", None),
        ("data:image/png;base64,@@@", None),
    ],
)  # fmt: skip
def test_parse_data_uri(uri: str, expected: InlineImage | None) -> None:
    assert parse_data_uri(uri) == expected


@pytest.mark.parametrize(
    "ref", ["/abs/x.png", "C:\\pics\\x.png", "D:/x.png", "\\\\server\\share\\x.png"]
)
def test_local_paths_stay_text_markers_and_the_disk_is_never_read(ref: str) -> None:
    (row,) = decode_rows([ChatMessage("user", f"see [IMAGE:{ref}]")])
    assert row == UserRow((TextPart(f"see [IMAGE:{ref}]"),))


def test_malformed_data_uri_stays_a_text_marker() -> None:
    (row,) = decode_rows([ChatMessage("user", "[IMAGE:data:image/png;base64,@@]")])
    assert row == UserRow((TextPart("[IMAGE:data:image/png;base64,@@]"),))


def test_user_images_in_old_turns_are_still_sent() -> None:
    rows = decode_rows(
        [ChatMessage("user", "[IMAGE:https://a.test/x.png]"), ChatMessage("user", "later")]
    )
    assert rows[0] == UserRow(
        (ImagePart(UrlImage("https://a.test/x.png"), "[IMAGE:https://a.test/x.png]"),)
    )


# ---------------------------------------------------------------- rows


def test_system_rows_and_plain_rows() -> None:
    rows = decode_rows(
        [ChatMessage("system", "s"), ChatMessage("user", "u"), ChatMessage("assistant", "a")]
    )
    assert rows == (SystemRow("s"), UserRow((TextPart("u"),)), AssistantRow("a"))


def test_native_call_row_decodes_calls_and_reencodes_object_arguments() -> None:
    content = (
        '{"content":null,"tool_calls":[{"id":"a","name":"f","arguments":{"x":1}},'
        '{"name":"no-id"},{"id":"b","name":"g","arguments":"{}"}],"reasoning_content":"r"}'
    )
    (row,) = decode_rows([ChatMessage("assistant", content)])
    assert row == AssistantRow(None, (ToolCall("a", "f", '{"x":1}'), ToolCall("b", "g", "{}")))


def test_assistant_json_without_tool_calls_is_plain_text() -> None:
    (row,) = decode_rows([ChatMessage("assistant", '{"answer": 42}')])
    assert row == AssistantRow('{"answer": 42}')


def test_call_row_with_no_valid_call_is_its_text() -> None:
    (row,) = decode_rows([ChatMessage("assistant", '{"content":"hi","tool_calls":[]}')])
    assert row == AssistantRow("hi")


def test_old_native_result_keeps_its_attachments_as_marker_lines() -> None:
    history = [
        native_tool_call_row(None, [ToolCall("a", "f", "{}")]),
        native_tool_result_row("a", "out", [Attachment("image", PNG_DATA_URI)]),
        ChatMessage("user", "next turn"),
    ]
    assert decode_rows(history)[1] == ToolRow("a", f"out\n[IMAGE:{PNG_DATA_URI}]")


def test_current_native_result_sends_images_and_names_other_attachments() -> None:
    attachments = [
        Attachment("image", PNG_DATA_URI),
        Attachment("document", "/tmp/r.pdf"),
        Attachment("image", "/tmp/local.png"),
    ]
    (_, row) = decode_rows(
        [ChatMessage("user", "go"), native_tool_result_row("a", "out", attachments)]
    )
    assert row == ToolRow(
        "a",
        "out\n[DOCUMENT:/tmp/r.pdf]\n[IMAGE:/tmp/local.png]",
        (ImagePart(InlineImage(PNG_DATA_URI, "image/png", PNG_B64), f"[IMAGE:{PNG_DATA_URI}]"),),
    )


def test_old_prompt_carrier_is_sent_verbatim() -> None:
    carrier = render_prompt_tool_carrier("body", [Attachment("image", PNG_DATA_URI)])
    rows = decode_rows([ChatMessage("user", carrier), ChatMessage("user", "next turn")])
    assert rows[0] == UserRow((TextPart(carrier),))


def test_legacy_prompt_carrier_is_text() -> None:
    (row,) = decode_rows([ChatMessage("user", "[Tool results]\nno header")])
    assert row == UserRow((TextPart("[Tool results]\nno header"),))


@pytest.mark.parametrize(
    "content", ["not json", '{"content":"x"}', '{"tool_call_id":"a","content":3}']
)
def test_tool_row_without_an_envelope_is_user_text(content: str) -> None:
    (row,) = decode_rows([ChatMessage("tool", content)])
    assert row == UserRow((TextPart(content),))


def test_unknown_role_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown role"):
        decode_rows([ChatMessage("developer", "x")])
