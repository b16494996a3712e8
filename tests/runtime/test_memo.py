"""Memo slots (``harness.runtime.memo``): remembered measurements never change what a row
is, or what the rules compute from it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.runtime import ChatMessage, estimate_history_tokens
from harness.runtime.memo import OLDER_TOKENS, OPENS_TURN, Memo
from harness.runtime.turns import is_turn_boundary, opening_flags
from tests.runtime.strategies import histories


def test_only_declared_slots_can_be_memos() -> None:
    with pytest.raises(ValueError, match="no memo slot"):
        Memo[int]("_not_a_slot")


def test_a_slot_never_written_reads_as_missing_then_holds_its_value() -> None:
    row = ChatMessage("user", "hello")
    with pytest.raises(AttributeError):
        OPENS_TURN.read(row)
    OPENS_TURN.write(row, True)
    assert OPENS_TURN.read(row) is True
    with pytest.raises(AttributeError):
        OLDER_TOKENS.read_all([row, ChatMessage("user", "x")])


def test_remembered_values_are_invisible_to_equality_hash_and_repr() -> None:
    row, twin = ChatMessage("user", "hello"), ChatMessage("user", "hello")
    OLDER_TOKENS.write(row, 99)
    assert row == twin
    assert hash(row) == hash(twin)
    assert repr(row) == repr(twin)


@given(histories())
def test_warm_rows_measure_exactly_as_cold_ones(drawn: tuple[list[ChatMessage], bool]) -> None:
    rows, _ = drawn
    cold = [ChatMessage(r.role, r.content) for r in rows]  # fresh rows: nothing remembered
    first = (estimate_history_tokens(rows), opening_flags(rows))
    second = (estimate_history_tokens(rows), opening_flags(rows))  # read from the memos
    assert first == second == (estimate_history_tokens(cold), opening_flags(cold))


@given(histories(), st.integers(min_value=0, max_value=40))
def test_openings_from_a_start_are_those_of_the_tail_cold_or_warm(
    drawn: tuple[list[ChatMessage], bool], start: int
) -> None:
    rows, _ = drawn
    tail = [ChatMessage(r.role, r.content) for r in rows[start:]]  # fresh: nothing remembered
    expected = [is_turn_boundary(row) for row in tail]
    assert opening_flags(rows, start) == expected  # cold: measured from ``start`` on
    assert opening_flags(rows, start) == expected  # warm: read from the memos
    assert opening_flags(tail) == expected
