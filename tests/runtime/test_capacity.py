"""Spec 8 and decision 19.8: the pre-dispatch capacity check."""

import pytest

from harness.runtime import (
    ContextCapacityExceeded,
    HarnessError,
    ModelContextWindow,
    RuntimeProfile,
    ToolSpec,
    WindowSource,
    check_capacity,
    estimate_tool_schema_tokens,
    resolve_context_limits,
)
from tests.runtime.builders import sys, user

# sys("s"*12) -> 7, user("u"*36) -> 13: messages = 20 tokens
PREPARED = [sys("s" * 12), user("u" * 36)]


def test_request_that_fits_passes() -> None:
    """Decision 19.8: messages 20 + schemas 5 = 25 <= 100 -> the call may proceed."""
    check = check_capacity(PREPARED, 5, 100)
    assert (check.message_tokens, check.tool_schema_tokens, check.estimate) == (20, 5, 25)
    assert check.fits


def test_estimate_equal_to_the_window_fits() -> None:
    """Decision 19.8: the sum must be ``<=`` the window: 20 + 5 = 25 <= 25."""
    assert check_capacity(PREPARED, 5, 25).fits


def test_one_token_over_the_window_raises_before_sending() -> None:
    """Decision 19.8: 20 + 5 = 25 > 24 -> ``ContextCapacityExceeded``."""
    with pytest.raises(ContextCapacityExceeded):
        check_capacity(PREPARED, 5, 24)


def test_error_names_the_estimate_each_operand_and_the_window() -> None:
    """Decision 19.8: the error names the estimate, each operand and the window."""
    with pytest.raises(ContextCapacityExceeded) as caught:
        check_capacity(PREPARED, 5, 24)
    error = caught.value
    assert (error.estimate, error.message_tokens, error.tool_schema_tokens) == (25, 20, 5)
    assert error.model_context_window == 24
    text = str(error)
    for number in ("25", "20", "5", "24"):
        assert number in text


def test_capacity_error_is_a_harness_error() -> None:
    """Architecture habit 8: one rooted exception tree."""
    assert issubclass(ContextCapacityExceeded, HarnessError)


def test_images_are_priced_as_in_the_estimate() -> None:
    """Decision 19.8: prepared messages are priced as in spec 5: one image -> 1604 > 1603."""
    prepared = [user("[IMAGE:/tmp/a.png]")]
    assert check_capacity(prepared, 0, 1_604).fits
    with pytest.raises(ContextCapacityExceeded):
        check_capacity(prepared, 0, 1_603)


def test_tool_schema_estimate_is_an_operand() -> None:
    """Spec 8: + ``estimate_tool_schema_tokens(specs)``: "shell" + "run a command" +
    '{"type":"object"}' = 35 B -> 13; 20 + 13 = 33 fits 33, not 32."""
    schema = estimate_tool_schema_tokens([ToolSpec("shell", "run a command", {"type": "object"})])
    assert check_capacity(PREPARED, schema, 33).fits
    with pytest.raises(ContextCapacityExceeded):
        check_capacity(PREPARED, schema, 32)


def test_compat_stub_capacity_is_max_context_tokens() -> None:
    """Decision 19.7: unknown capacity with m = 50,000: the check uses 50,000, not 32,000
    (a 40,004-token request passes)."""
    limits = resolve_context_limits(
        RuntimeProfile(max_context_tokens=50_000),
        ModelContextWindow(32_000, WindowSource.COMPATIBILITY_FALLBACK),
    )
    prepared = [user("x" * 160_000)]  # 40,000 + 4
    assert check_capacity(prepared, 0, limits.model_context_window).fits


def test_check_does_not_depend_on_the_budget() -> None:
    """Decision 19.8: it runs even when ``max_context_tokens = 0``: the window stays
    32,000 and a 40,004-token request fails."""
    limits = resolve_context_limits(
        RuntimeProfile(max_context_tokens=0),
        ModelContextWindow(32_000, WindowSource.COMPATIBILITY_FALLBACK),
    )
    assert limits.context_token_budget == 0
    with pytest.raises(ContextCapacityExceeded):
        check_capacity([user("x" * 160_000)], 0, limits.model_context_window)
