"""Spec 3.5: ``trim_to_reported_budget`` (post-call enforcement from reported usage).

Shared fixture, as in ``test_trim_budget``: estimate 79; probes 55 (drop one turn) and 31
(newest turn only).
"""

from harness.runtime import ChatMessage, trim_to_reported_budget
from tests.runtime.builders import asst, crumb, sys, user


def three_turns() -> list[ChatMessage]:
    return [
        sys("s" * 12),  # 7
        user("u" * 36),  # 13
        asst("a" * 28),  # 11
        user("v" * 36),
        asst("b" * 28),
        user("w" * 36),
        asst("c" * 28),
    ]


def test_budget_zero_is_untouched_with_reported_tokens() -> None:
    """Spec 3.5: budget 0 -> untouched; ``tokens_before = tokens_after = reported``."""
    history = three_turns()
    result = trim_to_reported_budget(history, 0, 5_000, 79, 0)
    assert not result.trimmed
    assert result.history == history
    assert result.tokens_before == result.tokens_after == 5_000


def test_reported_at_or_under_budget_is_untouched() -> None:
    """Spec 3.5: ``reported <= budget`` -> untouched (200 <= 200)."""
    result = trim_to_reported_budget(three_turns(), 200, 200, 79, 0)
    assert not result.trimmed
    assert result.tokens_before == result.tokens_after == 200


def test_zero_estimated_population_is_untouched() -> None:
    """Spec 3.5: ``estimated == 0`` -> untouched (no division by zero)."""
    result = trim_to_reported_budget(three_turns(), 100, 200, 0, 0)
    assert not result.trimmed
    assert result.tokens_before == result.tokens_after == 200


def test_target_is_the_budget_scaled_by_estimated_over_reported() -> None:
    """Spec 3.5: target_total = floor(100 * 110 / 200) = 55 -> drop one turn (probe 55);
    tokens_after = round(55 * 200/110) = round(100.0) = 100."""
    history = three_turns()
    result = trim_to_reported_budget(history, 100, 200, 110, 0)
    assert result.trimmed
    assert result.history == [history[0], *history[3:]]
    assert result.dropped_messages == 2
    assert result.dropped_turns == 1
    assert result.kept_turns == 2
    assert result.tokens_before == 200
    assert result.tokens_after == 100


def test_target_uses_integer_floor_division() -> None:
    """Spec 3.5: floor(549 * 79 / 790) = floor(54.9) = 54 < 55 -> two turns dropped (a
    rounded 55 would drop one); tokens_after = round(31 * 790/79) = round(310.0) = 310."""
    history = three_turns()
    result = trim_to_reported_budget(history, 549, 790, 79, 0)
    assert result.history == [history[0], *history[5:]]
    assert result.dropped_turns == 2
    assert result.tokens_after == 310


def test_tool_schema_tokens_are_reserved_inside_the_target() -> None:
    """Spec 3.5: target_total = floor(100 * 158 / 200) = 79; scaled = 79 - 24 = 55 -> drop
    one turn; tokens_after = round((55 + 24) * 200/158) = round(100.0) = 100."""
    history = three_turns()
    result = trim_to_reported_budget(history, 100, 200, 158, 24)
    assert result.dropped_turns == 1
    assert result.tokens_after == 100


def test_scaled_target_saturates_at_one() -> None:
    """Spec 3.5: scaled = max(1, 55 - 1000) = 1 -> newest turn only (31);
    tokens_after = round((31 + 1000) * 200/110) = round(1874.54...) = 1875."""
    history = three_turns()
    result = trim_to_reported_budget(history, 100, 200, 110, 1_000)
    assert result.history == [history[0], *history[5:]]
    assert result.tokens_after == 1_875


def test_target_total_is_at_least_one() -> None:
    """Spec 3.5: target_total = max(1, floor(1 * 1 / 1000)) = max(1, 0) = 1 -> newest turn;
    tokens_after = round(31 * 1000/1) = 31,000."""
    result = trim_to_reported_budget(three_turns(), 1, 1_000, 1, 0)
    assert result.kept_turns == 1
    assert result.tokens_after == 31_000


def test_tokens_after_rounds_half_away_from_zero() -> None:
    """Spec 3.5: Rust ``f64::round``. target_total = max(1, floor(2*2/3)) = 1 -> newest
    turn (31); tokens_after = round(31 * 3/2) = round(46.5) = 47 (half-to-even gives 46)."""
    result = trim_to_reported_budget(three_turns(), 2, 3, 2, 0)
    assert result.tokens_after == 47


def test_tokens_after_rounds_below_half_down() -> None:
    """Spec 3.5: target_total = floor(100 * 79 / 300) = 26 -> newest turn (31);
    tokens_after = round(31 * 300/79) = round(117.72...) = 118; and with reported 301,
    round(31 * 301/79) = round(118.11...) = 118."""
    assert trim_to_reported_budget(three_turns(), 100, 300, 79, 0).tokens_after == 118
    assert trim_to_reported_budget(three_turns(), 100, 301, 79, 0).tokens_after == 118


def test_tokens_after_is_scaled_even_when_nothing_can_be_dropped() -> None:
    """Spec 3.5: the budget trim's result is returned with the scaled ``tokens_after``,
    including an untouched single turn: est 7 + 24 = 31; round((31 + 5) * 400/31) =
    round(464.516...) = 465."""
    history = [sys("s" * 12), user("u" * 36), asst("a" * 28)]
    result = trim_to_reported_budget(history, 100, 400, 31, 5)
    assert not result.trimmed
    assert result.history == history
    assert result.tokens_before == 400
    assert result.tokens_after == 465


def test_crumb_flag_is_passed_to_the_budget_trim() -> None:
    """Spec 3.5: ``trim_to_recent_turns_with_crumb(history, scaled, crumb)``: the flagged
    breadcrumb is kept and not counted. Estimate 79 + 17 = 96; target floor(100*96/200) =
    48 = prefix 24 + newest turn 24."""
    history = [sys("s" * 12), crumb(), *three_turns()[1:]]
    result = trim_to_reported_budget(history, 100, 200, 96, 0, crumb_present=True)
    assert result.history == [history[0], history[1], *history[6:]]
    assert result.dropped_messages == 4
    assert result.kept_turns == 1
    assert result.tokens_after == 100  # round(48 * 200/96)
