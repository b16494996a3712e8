"""The provider wrapper's own overflow truncation (spec 9, ``reliable.rs::truncate_for_context``).

The first five tests are the reference's own tests of the function, by name and data; the
properties state its rules (docs/decisions.md) over generated histories.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from harness.runtime import ChatMessage, truncate_for_context
from harness.runtime.constants import PRUNED_CONTEXT_SEPARATOR
from harness.runtime.hygiene import assistant_tool_call_ids, tool_call_id_of
from harness.runtime.wrapper_truncation import opens_context_turn
from tests.runtime.builders import asst, call, crumb, raw, sys, tool, user
from tests.runtime.strategies import histories


def _contents(rows: list[ChatMessage]) -> list[str]:
    return [row.content for row in rows]


def test_truncate_for_context_drops_oldest_non_system() -> None:
    rows = [sys("sys"), user("msg1"), asst("resp1"), user("msg2"), asst("resp2"), user("msg3")]
    result = truncate_for_context(rows)
    assert result.dropped == 2  # 5 non-system rows, the oldest half at a turn opening
    assert _contents(result.history) == ["sys", "msg2", "resp2", "msg3"]


def test_truncate_for_context_preserves_system_and_last_message() -> None:
    for rows in ([sys("sys"), user("only")], [user("only")]):
        result = truncate_for_context(rows)
        assert (result.dropped, result.history) == (0, rows)


def _native_tool_history() -> list[ChatMessage]:
    return [
        sys("sys"),
        user("old request"),
        asst("old response"),
        user("run both tools"),
        call("call_1", "call_2"),
        tool("call_1"),
        tool("call_2"),
        asst("tool summary"),
        user("recent request"),
        asst("recent response"),
        user("current question"),
    ]


def test_truncate_for_context_drops_complete_parallel_native_tool_turn() -> None:
    result = truncate_for_context(_native_tool_history())
    assert result.dropped == 7
    assert _contents(result.history) == [
        "sys",
        "recent request",
        "recent response",
        "current question",
    ]


def test_truncate_for_context_retains_complete_latest_parallel_native_tool_turn() -> None:
    rows = [*_native_tool_history()[:7]]
    result = truncate_for_context(rows)
    assert result.dropped == 2
    assert [row.role for row in result.history] == ["system", "user", "assistant", "tool", "tool"]
    assert result.history[1].content == "run both tools"


def test_truncate_for_context_does_not_split_only_native_tool_turn() -> None:
    rows = [sys("sys"), user("current request"), call("call_1", "call_2")]
    rows += [tool("call_1"), tool("call_2")]
    result = truncate_for_context(rows)
    assert (result.dropped, result.history) == (0, rows)


def test_truncate_for_context_treats_prompt_tool_results_as_part_of_turn() -> None:
    rows = [
        sys("sys"),
        user("old request"),
        asst("old response"),
        user("run a prompt tool"),
        asst("<tool_call>...</tool_call>"),
        user("[Tool results]\n<tool_result>ok</tool_result>"),
        asst("tool summary"),
        user("current question"),
    ]
    result = truncate_for_context(rows)
    assert result.dropped == 6
    assert _contents(result.history) == ["sys", "current question"]


def test_carrier_after_leading_whitespace_and_separator_open_no_turn() -> None:
    """Its own boundary rule: unlike spec 2.1, leading whitespace is trimmed before the
    carrier test, and the pruned-context separator is not a turn. The breadcrumb is."""
    assert not opens_context_turn(user("  [Tool results]\nout"))
    assert not opens_context_turn(user(f" {PRUNED_CONTEXT_SEPARATOR}\n"))
    assert opens_context_turn(crumb())
    assert not opens_context_turn(raw("assistant", "hi"))


def test_late_system_rows_are_kept_where_they_stand() -> None:
    rows = [sys("a"), user("u1"), sys("late"), asst("r1"), user("u2"), asst("r2"), user("u3")]
    result = truncate_for_context(rows)
    assert _contents(result.history) == ["a", "late", "u2", "r2", "u3"]
    assert result.dropped == 2


@given(histories(max_turns=6))
def test_rules_hold_on_any_history(drawn: tuple[list[ChatMessage], bool]) -> None:
    rows, _ = drawn
    result = truncate_for_context(rows)
    kept = result.history
    non_system = [row for row in rows if row.role != "system"]
    kept_non_system = [row for row in kept if row.role != "system"]
    # every system row kept, in order; the non-system rows kept are a suffix
    assert [r for r in kept if r.role == "system"] == [r for r in rows if r.role == "system"]
    assert kept_non_system == non_system[len(non_system) - len(kept_non_system) :]
    assert result.dropped == len(non_system) - len(kept_non_system)
    openings = sum(map(opens_context_turn, non_system))
    if result.dropped == 0:
        assert kept == rows
        return
    assert openings >= 2
    first = kept_non_system[0]
    assert opens_context_turn(first)  # cut at a turn opening: no tool pair is split
    assert sum(map(opens_context_turn, kept_non_system)) >= 1  # the newest turn stays
    # about half: the cut is the first opening at or after half, else the last one
    half = len(non_system) // 2
    later = [i for i, r in enumerate(non_system) if opens_context_turn(r)][1:]
    assert result.dropped == next((i for i in later if i >= half), later[-1])


@given(histories(min_turns=2, max_turns=6))
def test_tool_calls_keep_all_their_results(drawn: tuple[list[ChatMessage], bool]) -> None:
    kept = truncate_for_context(drawn[0]).history
    called = {
        i for r in kept if r.role == "assistant" for i in assistant_tool_call_ids(r.content) or []
    }
    answered = {tool_call_id_of(r.content) for r in kept if r.role == "tool"}
    assert answered <= called


@given(st.integers(min_value=0, max_value=30))
def test_plain_turns_lose_the_oldest_half_of_their_turns_rounded_up(n_turns: int) -> None:
    rows = [sys("s")]
    for n in range(n_turns):
        rows += [user(f"u{n}"), asst(f"a{n}")]
    result = truncate_for_context(rows)
    dropped_turns = 0 if n_turns <= 1 else -(-n_turns // 2)
    assert result.dropped == 2 * dropped_turns
    assert result.history[1:] == rows[1 + 2 * dropped_turns :]
