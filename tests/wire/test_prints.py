"""Row prints carry the runtime's own measures of each row, and nothing of its text."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from harness.runtime import (
    BREADCRUMB,
    ChatMessage,
    ToolCall,
    estimate_history_tokens,
    is_turn_boundary,
    native_tool_call_row,
)
from harness.runtime.hygiene import assistant_tool_call_ids, tool_call_id_of
from harness.wire.prints import (
    PackedPrints,
    RowPrint,
    digest,
    estimate_prints,
    print_row,
    print_rows,
)
from tests.wire.strategies import Conversation, conversations

ROLES = st.sampled_from(["system", "user", "assistant", "tool"])
TEXTS = st.one_of(
    st.text(max_size=60),
    st.sampled_from(
        [
            "[Tool results]\n[Tool attachments: 1]\n[IMAGE:/a.png]\nbody",
            "[Tool results]\nplain",
            "look\n[IMAGE:https://x/y.png]",
            " [Tool results] leading space",
        ]
    ),
)
ROWS = st.builds(ChatMessage, ROLES, TEXTS)


@given(st.lists(ROWS, max_size=12))
def test_the_prints_estimate_is_the_runtimes_estimate(rows: list[ChatMessage]) -> None:
    rows = [r for r in rows if not (r.role == "user" and r.content.startswith(BREADCRUMB))]
    assert estimate_prints(print_rows(rows)) == estimate_history_tokens(rows)


@given(conversations())
def test_the_prints_estimate_of_a_conversation_is_the_runtimes(conv: Conversation) -> None:
    assert estimate_prints(print_rows(conv.rows)) == estimate_history_tokens(conv.rows)


@given(ROWS)
def test_a_print_opens_a_turn_as_the_runtime_says(row: ChatMessage) -> None:
    assert print_row(row).opens_turn == is_turn_boundary(row)


@given(conversations())
def test_tool_call_ids_and_the_ids_results_answer_are_kept_as_digests(conv: Conversation) -> None:
    for row in conv.rows:
        found = print_row(row)
        calls = assistant_tool_call_ids(row.content) if row.role == "assistant" else None
        assert found.calls == tuple(digest(i) for i in calls or ())
        answered = tool_call_id_of(row.content) if row.role == "tool" else None
        assert found.answers == (None if answered is None else digest(answered))


@given(ROLES, TEXTS, ROLES, TEXTS)
def test_equal_rows_have_equal_keys_and_different_rows_different_ones(
    role: str, text: str, other_role: str, other_text: str
) -> None:
    same = (role, text) == (other_role, other_text)
    first, second = (
        print_row(ChatMessage(role, text)),
        print_row(ChatMessage(other_role, other_text)),
    )
    assert (first.key == second.key) == same


def test_role_and_content_are_joined_unambiguously() -> None:
    assert digest("user", "ab") != digest("usera", "b")


def test_a_breadcrumb_merged_with_the_next_user_row_is_two_prints() -> None:
    merged = print_rows([ChatMessage("user", BREADCRUMB + "next question")])
    assert [p.is_breadcrumb for p in merged] == [True, False]
    assert merged[1].key == print_row(ChatMessage("user", "next question")).key


def test_an_image_only_user_row_after_a_tool_result_opens_no_turn() -> None:
    result = ChatMessage("tool", '{"tool_call_id":"t","content":"x","attachments":[]}')
    images = ChatMessage("user", "[IMAGE:https://example.com/a.png]")
    assert [p.opens_turn for p in print_rows([result, images])] == [False, False]
    assert print_rows([images])[0].opens_turn


def test_a_print_holds_no_text() -> None:
    found = print_row(ChatMessage("user", "a secret prompt"))
    assert "secret" not in repr(found)
    assert not hasattr(found, "__dict__")


@given(conversations(), st.lists(ROWS, max_size=6))
def test_packed_prints_read_back_as_the_prints(conv: Conversation, more: list[ChatMessage]) -> None:
    prints = print_rows([*conv.rows, *more])
    packed = PackedPrints(prints)
    assert tuple(packed) == prints
    assert packed[:] == prints
    assert packed[1:-1] == prints[1:-1]
    assert len(packed) == len(prints)
    assert [packed[-i] for i in range(1, len(prints) + 1)] == list(reversed(prints))


SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
JSON_VALUES = (
    SCALARS
    | st.lists(SCALARS, max_size=3)
    | st.dictionaries(st.text(max_size=5), st.lists(SCALARS, max_size=2) | SCALARS, max_size=3)
)


@given(
    arguments=st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4),
    spaced=st.booleans(),
    reordered=st.booleans(),
)
def test_a_tool_call_row_is_the_same_row_whatever_spacing_and_key_order_its_arguments_take(
    arguments: dict[str, object], spaced: bool, reordered: bool
) -> None:
    """Runtimes parse the model's arguments and serialise them again (LangChain writes
    ``{"a": 1}`` for ``{"a":1}``): the row a request carries back is the answer's row."""
    sent = native_tool_call_row(
        None, [ToolCall("c1", "read", json.dumps(arguments, separators=(",", ":")))]
    )
    keys = sorted(arguments, reverse=reordered)
    again_text = json.dumps(
        {k: arguments[k] for k in keys}, separators=(", ", ": ") if spaced else (",", ":")
    )
    again = native_tool_call_row(None, [ToolCall("c1", "read", again_text)])
    assert print_row(sent).key == print_row(again).key


def test_a_tool_call_with_other_arguments_or_an_other_id_is_another_row() -> None:
    base = native_tool_call_row(None, [ToolCall("c1", "read", '{"path":"a"}')])
    other_args = native_tool_call_row(None, [ToolCall("c1", "read", '{"path":"b"}')])
    other_id = native_tool_call_row(None, [ToolCall("c2", "read", '{"path":"a"}')])
    not_json = native_tool_call_row(None, [ToolCall("c1", "read", "{path: a}")])
    keys = {print_row(row).key for row in (base, other_args, other_id, not_json)}
    assert len(keys) == 4


def test_packed_prints_keep_wide_estimates_unknown_roles_and_many_calls() -> None:
    """The columns narrow to 2-byte estimates when they can; a row past 65,535 tokens
    widens them, past 4 bytes (or of an unknown role, or with over 255 calls) it is
    kept whole; tool ids read back in order around it."""
    calls = tuple(range(300))
    prints = (
        RowPrint("system", 1, 10, 10, 0),
        RowPrint("assistant", 2, 70_000, 70_000, 0, calls=(7, 8)),
        RowPrint("tool", 3, 5, 9, 0, answers=7),
        RowPrint("critic", 4, 3, 3, 0),
        RowPrint("tool", 5, 2**33, 2**33, 0, answers=8),
        RowPrint("assistant", 6, 1, 1, 0, calls=calls),
        RowPrint("user", 7, 4, 4, 3),
    )
    for count in range(1, len(prints) + 1):
        packed = PackedPrints(prints[:count])
        assert tuple(packed) == prints[:count]
        assert [packed[i] for i in range(count)] == list(prints[:count])
        assert packed[1:] == prints[1:count]
    assert PackedPrints(prints[:1])._tokens.typecode == "H"  # the column width
    assert PackedPrints(prints[:2])._tokens.typecode == "I"
