"""Spec 3.4: ``drop_oldest_whole_turn`` (the harness returns ``(history, dropped)``)."""

from harness.runtime import drop_oldest_whole_turn
from tests.runtime.builders import asst, call, crumb, sys, tool, user


def test_removes_the_oldest_turn_and_returns_the_number_of_rows_removed() -> None:
    """Spec 3.4: removes ``body[0 : second_boundary]`` and returns its length."""
    history = [sys(), user("1"), call("c1"), tool("c1"), asst("a1"), user("2"), asst("a2")]
    out, dropped = drop_oldest_whole_turn(history, crumb_present=False)
    assert out == [sys(), user("2"), asst("a2")]
    assert dropped == 4


def test_removes_only_one_turn() -> None:
    """Spec 3.4: one whole turn per call."""
    history = [user("1"), asst("a1"), user("2"), asst("a2"), user("3")]
    out, dropped = drop_oldest_whole_turn(history, crumb_present=False)
    assert out == [user("2"), asst("a2"), user("3")]
    assert dropped == 2


def test_pre_turn_rows_are_removed_with_the_oldest_turn() -> None:
    """Spec 3.4: the removed range includes any pre-turn rows."""
    history = [sys(), asst("pre"), user("1"), asst("a1"), user("2")]
    out, dropped = drop_oldest_whole_turn(history, crumb_present=False)
    assert out == [sys(), user("2")]
    assert dropped == 3


def test_fewer_than_two_turns_is_the_unsatisfiable_floor() -> None:
    """Spec 3.4: fewer than 2 boundaries -> returns 0, history unchanged."""
    for history in ([], [sys()], [sys(), asst("x")], [sys(), user("only"), asst("a")]):
        out, dropped = drop_oldest_whole_turn(history, crumb_present=False)
        assert dropped == 0
        assert out == history


def test_flagged_breadcrumb_is_skipped_and_kept() -> None:
    """Spec 3.4: the body starts after the system prefix and the flagged breadcrumb."""
    history = [sys(), crumb(), user("1"), asst("a1"), user("2"), asst("a2")]
    out, dropped = drop_oldest_whole_turn(history, crumb_present=True)
    assert out == [sys(), crumb(), user("2"), asst("a2")]
    assert dropped == 2


def test_flagged_breadcrumb_with_a_single_real_turn_is_the_floor() -> None:
    """Spec 3.4: the flagged breadcrumb is not a boundary, so one real turn is left alone."""
    history = [sys(), crumb(), user("1"), asst("a1")]
    out, dropped = drop_oldest_whole_turn(history, crumb_present=True)
    assert (out, dropped) == (history, 0)


def test_input_list_is_not_mutated() -> None:
    """Issue 2: functions never mutate their inputs (the reference mutates in place)."""
    history = [user("1"), asst("a1"), user("2")]
    snapshot = list(history)
    drop_oldest_whole_turn(history, crumb_present=False)
    assert history == snapshot
