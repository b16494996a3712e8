"""Spec 15 (orphan sweep, both passes, and the companion strip) and spec 2.2
(``normalize_system_messages``)."""

import json

from hypothesis import given
from hypothesis import strategies as st

from harness.runtime import (
    ChatMessage,
    normalize_system_messages,
    remove_orphaned_tool_messages,
    strip_orphaned_tool_calls_from_assistants,
    trim_to_recent_turns,
)
from harness.runtime.hygiene import (
    _drop_orphan_tool_rows,
    assistant_tool_call_ids,
    tool_call_id_of,
)
from tests.runtime.builders import asst, call, raw, sys, tool, user

# --- pass 2: orphan tool rows ----------------------------------------------------------------


def test_valid_tool_pair_is_kept() -> None:
    """Spec 15 pass 2: a tool row whose id is among its assistant's ids is kept."""
    history = [sys(), user("go"), call("c1"), tool("c1"), asst("done")]
    out, removed, orphan_ids = remove_orphaned_tool_messages(history)
    assert (out, removed, orphan_ids) == (history, 0, ())


def test_walk_back_passes_over_earlier_tool_rows_of_the_same_batch() -> None:
    """Spec 15 pass 2: walk back over consecutive assistant and tool rows to the nearest
    assistant row."""
    history = [user("go"), call("c1", "c2", "c3"), tool("c1"), tool("c2"), tool("c3")]
    assert remove_orphaned_tool_messages(history).removed == 0


def test_tool_row_at_the_start_is_an_orphan() -> None:
    """Spec 15 pass 2: no assistant row before it (start of the list) -> orphan."""
    history = [tool("c1"), tool("c2"), user("thanks"), asst("done")]
    out, removed, orphan_ids = remove_orphaned_tool_messages(history)
    assert out == [user("thanks"), asst("done")]
    assert removed == 2
    assert orphan_ids == ("c1", "c2")


def test_tool_row_after_a_user_or_system_row_is_an_orphan() -> None:
    """Spec 15 pass 2: a user or system row comes before any assistant -> orphan."""
    history = [sys(), tool("c0"), user("q"), call("c1"), user("interrupt"), tool("c1")]
    out, removed, orphan_ids = remove_orphaned_tool_messages(history)
    assert out == [sys(), user("q"), call("c1"), user("interrupt")]
    assert removed == 2
    assert orphan_ids == ("c0", "c1")


def test_tool_row_after_a_plain_text_assistant_is_an_orphan() -> None:
    """Spec 15 pass 2: the nearest assistant has no parseable tool_calls -> orphan."""
    history = [user("q"), asst("[Tool result: truncated...]"), tool("old"), user("next")]
    out, removed, _ = remove_orphaned_tool_messages(history)
    assert out == [user("q"), asst("[Tool result: truncated...]"), user("next")]
    assert removed == 1


def test_tool_row_with_an_unknown_id_is_an_orphan() -> None:
    """Spec 15 pass 2: its own id parses and is not among the assistant's ids -> orphan."""
    history = [user("go"), call("c1"), tool("c1"), tool("GONE"), asst("done")]
    out, removed, orphan_ids = remove_orphaned_tool_messages(history)
    assert out == [user("go"), call("c1"), tool("c1"), asst("done")]
    assert (removed, orphan_ids) == (1, ("GONE",))


def test_tool_row_with_an_unparseable_id_is_kept_when_the_assistant_has_tool_calls() -> None:
    """Spec 15 pass 2: a tool row whose id cannot be parsed is kept when the assistant
    has tool_calls."""
    history = [user("go"), call("c1"), raw("tool", "plain text result"), asst("done")]
    assert remove_orphaned_tool_messages(history).removed == 0


def test_tool_row_with_an_unparseable_id_and_no_owner_is_an_orphan() -> None:
    """Spec 15 pass 2: with no owning assistant it is an orphan (no id to report)."""
    out, removed, orphan_ids = remove_orphaned_tool_messages([raw("tool", "plain"), user("q")])
    assert (out, removed, orphan_ids) == ([user("q")], 1, ())


def test_ids_are_read_from_the_json_structure_not_from_prose() -> None:
    """Spec 15: an id that appears in an assistant's prose does not count."""
    summary = asst("Earlier turns invoked shell with tool_calls id toolu_01Orphan.")
    history = [sys(), summary, tool("toolu_01Orphan"), user("new question")]
    out, removed, orphan_ids = remove_orphaned_tool_messages(history)
    assert out == [sys(), summary, user("new question")]
    assert (removed, orphan_ids) == (1, ("toolu_01Orphan",))


def test_assistant_with_an_empty_tool_calls_array_owns_no_results() -> None:
    """Spec 15: tool_calls must be a non-empty array of string ids to count."""
    empty = raw("assistant", '{"content":"x","tool_calls":[]}')
    out, removed, _ = remove_orphaned_tool_messages([user("q"), empty, tool("c1")])
    assert out == [user("q"), empty]
    assert removed == 1


# --- pass 1: unresolved back-to-back dispatch ------------------------------------------------


def test_dispatch_directly_after_an_unresolved_dispatch_is_removed_with_its_results() -> None:
    """Spec 15 pass 1 (HEAD test ``back_to_back_unresolved_tool_calls_strips_later_
    dispatch``): the later dispatch and its following tool rows go; the earlier stranded
    dispatch stays (pass 2 removes only tool rows)."""
    history = [sys(), user("do"), call("LOST"), call("DEAD"), tool("DEAD"), asst("summary")]
    out, removed, orphan_ids = remove_orphaned_tool_messages(history)
    assert out == [sys(), user("do"), call("LOST"), asst("summary")]
    assert removed == 2
    assert orphan_ids == ("DEAD",)


def test_pass_one_also_removes_following_tool_rows_with_unparseable_ids() -> None:
    """Spec 15 pass 1: following tool rows whose id belongs to the removed ids *or cannot
    be parsed* go too; the first row with another parseable id stops the run (and pass 2
    keeps it: its id belongs to the surviving dispatch)."""
    history = [user("do"), call("A"), call("B"), tool("B"), raw("tool", "no json"), tool("A")]
    out, removed, orphan_ids = remove_orphaned_tool_messages(history)
    assert out == [user("do"), call("A"), tool("A")]
    assert removed == 3
    assert orphan_ids == ("B",)


def test_text_preamble_then_dispatch_is_kept() -> None:
    """Spec 15 pass 1: only a dispatch following another assistant row *with tool_calls*
    is considered (HEAD test ``preamble_then_tool_calls_is_kept_intact``)."""
    history = [sys(), user("do"), asst("Let me check."), call("LIVE"), tool("LIVE"), asst("ok")]
    assert remove_orphaned_tool_messages(history).removed == 0


def test_dispatch_after_a_fully_answered_dispatch_is_kept() -> None:
    """Spec 15 pass 1: a dispatch separated from the previous one by its answers is not a
    back-to-back dispatch."""
    history = [user("do"), call("c1"), tool("c1"), call("c2"), tool("c2"), asst("done")]
    assert remove_orphaned_tool_messages(history).removed == 0


def test_whole_turn_trimming_never_creates_orphans() -> None:
    """Spec 15 (IDX-HT ``trimmed_history_has_no_orphan_tool_calls``)."""
    history = [
        sys(),
        user("turn1 " + "q" * 3_000),
        call("call_1"),
        tool("call_1"),
        asst("summary1"),
        user("turn2"),
        call("call_2"),
        tool("call_2"),
        asst("summary2"),
    ]
    result = trim_to_recent_turns(history, 200)
    assert result.trimmed
    assert remove_orphaned_tool_messages(result.history).removed == 0


# --- companion: strip_orphaned_tool_calls_from_assistants -----------------------------------


def test_fully_answered_assistant_is_unchanged() -> None:
    """Spec 15 companion: nothing to strip when every call is answered later."""
    history = [user("go"), call("c1", "c2"), tool("c1"), tool("c2")]
    out, stripped = strip_orphaned_tool_calls_from_assistants(history)
    assert (out, stripped) == (history, 0)


def test_unanswered_entries_are_removed_from_a_partially_answered_assistant() -> None:
    """Spec 15 companion: only the unanswered entries are removed from the JSON."""
    history = [user("go"), call("c1", "c2", text="working"), tool("c1")]
    out, stripped = strip_orphaned_tool_calls_from_assistants(history)
    assert stripped == 1
    assert out[1].role == "assistant"
    assert json.loads(out[1].content) == {
        "content": "working",
        "tool_calls": [{"id": "c1", "name": "shell", "arguments": "{}"}],
    }
    assert out[2] == tool("c1")


def test_wholly_unanswered_assistant_becomes_its_trimmed_text() -> None:
    """Spec 15 companion: none answered -> the row becomes its trimmed text content."""
    row = raw("assistant", '{"content":"  let me look  ","tool_calls":[{"id":"c1","name":"s"}]}')
    out, stripped = strip_orphaned_tool_calls_from_assistants([user("go"), row])
    assert out == [user("go"), asst("let me look")]
    assert stripped == 1


def test_wholly_unanswered_assistant_without_text_is_deleted() -> None:
    """Spec 15 companion: none answered and no text -> the row is deleted."""
    history = [user("go"), call("c1"), user("max iterations reached")]
    out, stripped = strip_orphaned_tool_calls_from_assistants(history)
    assert out == [user("go"), user("max iterations reached")]
    assert stripped == 1


def test_only_later_tool_rows_answer_a_call() -> None:
    """Spec 15 companion: walks newest to oldest collecting result ids, so an answer that
    sits *before* an assistant does not answer it."""
    history = [user("1"), call("c1"), tool("c1"), user("2"), call("c1")]
    out, stripped = strip_orphaned_tool_calls_from_assistants(history)
    assert out == history[:4]
    assert stripped == 1


def test_assistant_rows_without_tool_calls_are_untouched() -> None:
    """Spec 15 companion: plain text (even mentioning tool_calls) is left alone."""
    history = [user("go"), asst("I will not use tool_calls today"), raw("assistant", "{}")]
    assert strip_orphaned_tool_calls_from_assistants(history) == (history, 0)


# --- spec 2.2: normalize_system_messages -----------------------------------------------------


def test_all_system_rows_merge_into_one_leading_row() -> None:
    """Spec 2.2: every system row, wherever it is, joined with "\\n\\n", leading."""
    history = [sys("A"), user("1"), sys("B"), asst("a"), sys("C")]
    assert normalize_system_messages(history) == [sys("A\n\nB\n\nC"), user("1"), asst("a")]


def test_empty_system_contents_are_left_out_of_the_join() -> None:
    """Spec 2.2: only non-empty contents are joined."""
    history = [sys(""), user("1"), sys("B"), sys(""), sys("C")]
    assert normalize_system_messages(history) == [sys("B\n\nC"), user("1")]


def test_no_system_row_remains_when_every_system_content_is_empty() -> None:
    """Spec 2.2: if every system content is empty, no system row remains."""
    assert normalize_system_messages([sys(""), user("1"), sys("")]) == [user("1")]


def test_whitespace_only_system_content_is_not_empty() -> None:
    """Spec 2.2: "non-empty" is literal: a blank-but-not-empty content is joined."""
    assert normalize_system_messages([sys(" "), sys("B")]) == [sys(" \n\nB")]


def test_non_system_rows_keep_their_order() -> None:
    """Spec 2.2: only system rows move."""
    history = [user("1"), asst("a"), sys("late"), user("2")]
    assert normalize_system_messages(history) == [sys("late"), user("1"), asst("a"), user("2")]


def test_history_without_system_rows_is_unchanged() -> None:
    """Spec 2.2: nothing to merge."""
    history = [user("1"), asst("a")]
    assert normalize_system_messages(history) == history


# --- pass 1 against its row-by-row definition ------------------------------------------------


def _pass_one_by_definition(rows: list[ChatMessage], orphan_ids: list[str]) -> int:
    """Pass 1 as first written: each row asks again whether the row before it is a
    dispatch (the sweep now carries that along)."""
    removed, i = 0, 0
    while i < len(rows):
        doomed = assistant_tool_call_ids(rows[i].content) if rows[i].role == "assistant" else None
        before = rows[i - 1] if i > 0 else None
        previous_is_dispatch = (
            before is not None
            and before.role == "assistant"
            and assistant_tool_call_ids(before.content) is not None
        )
        if doomed is None or not previous_is_dispatch:
            i += 1
            continue
        orphan_ids.extend(doomed)
        del rows[i]
        removed += 1
        while i < len(rows) and rows[i].role == "tool":
            result_id = tool_call_id_of(rows[i].content)
            if result_id is not None and result_id not in doomed:
                break
            del rows[i]
            removed += 1
    return removed


_ids = st.sampled_from(["c1", "c2", "c3"])
_dispatches = st.lists(_ids, min_size=1, max_size=3).map(lambda ids: call(*ids))
_sweep_rows = st.one_of(
    _dispatches,  # thrice as likely as the others: runs of back-to-back dispatches
    _dispatches,
    _dispatches,
    _ids.map(tool),
    _ids.map(tool),
    st.just(ChatMessage("assistant", '{"tool_calls": []}')),  # JSON, but no call ids
    st.just(ChatMessage("tool", "not json")),
    st.just(user("go")),
    st.just(asst("done")),
    st.just(sys()),
)


@given(st.lists(_sweep_rows, max_size=14))
def test_the_sweep_is_its_row_by_row_definition(history: list[ChatMessage]) -> None:
    """Back-to-back dispatches (runs of them), their results, stray results and rows of
    every other kind: the sweep gives what the definition of its two passes gives."""
    rows, orphan_ids = list(history), list[str]()
    removed = _pass_one_by_definition(rows, orphan_ids)
    removed += _drop_orphan_tool_rows(rows, orphan_ids)
    assert remove_orphaned_tool_messages(history) == (rows, removed, tuple(orphan_ids))
