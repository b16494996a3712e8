"""Spec 6, 11, 18 and decision 19.7: the effective context budget, the compatibility stub,
``legacy_fallback``, the turn-limit default and the interactive recovery target."""

import math

import pytest

from harness.runtime import (
    HistoryPruning,
    ModelContextWindow,
    ResolvedContextLimits,
    RuntimeProfile,
    WindowSource,
    effective_context_budget,
    effective_max_history_messages,
    interactive_context_recovery_budget,
    resolve_context_limits,
)

CONFIGURED = WindowSource.CONFIGURED
FALLBACK = WindowSource.COMPATIBILITY_FALLBACK


def configured(tokens: int) -> ModelContextWindow:
    return ModelContextWindow(tokens, CONFIGURED)


UNKNOWN = ModelContextWindow(32_000, FALLBACK)


def budget(window: ModelContextWindow, **profile: object) -> int:
    return effective_context_budget(RuntimeProfile(**profile), window)  # type: ignore[arg-type]


# --- the worked examples of spec 6 ---------------------------------------------------------


def test_configured_window_with_nothing_set_gives_the_legacy_default() -> None:
    """Spec 6 example: a configured 200k window with nothing set -> 32,000."""
    assert budget(configured(200_000)) == 32_000


def test_ratio_applies_to_the_configured_window() -> None:
    """Spec 6 example: ratio 0.8 on 200k -> trunc(160,000.0) = 160,000."""
    assert budget(configured(200_000), context_compact_ratio=0.8) == 160_000


def test_ratio_with_an_absolute_cap_takes_the_lower() -> None:
    """Spec 6 step 6 example: ratio 0.8 (160,000) with a 50k cap -> 50,000."""
    window = configured(200_000)
    assert budget(window, context_compact_ratio=0.8, max_context_tokens=50_000) == 50_000


def test_unknown_window_with_ratio_and_cap_uses_the_cap_as_window_operand() -> None:
    """Spec 6 step 3 example: unknown window, 0.8 and 50k -> operand 50,000 -> 40,000."""
    assert budget(UNKNOWN, context_compact_ratio=0.8, max_context_tokens=50_000) == 40_000


def test_zero_ratio_is_treated_as_unset() -> None:
    """Spec 6 step 4 example: ratio 0.0 -> legacy default 32,000."""
    assert budget(configured(200_000), context_compact_ratio=0.0) == 32_000


def test_zero_sentinel_disables_the_budget_even_with_a_ratio() -> None:
    """Spec 6 step 2 example: ``max_context_tokens = 0`` with ratio 0.9 -> 0."""
    assert budget(configured(200_000), max_context_tokens=0, context_compact_ratio=0.9) == 0


def test_small_configured_window_caps_the_default() -> None:
    """Spec 6 step 8 example: an 8k configured window with nothing set -> 8,000."""
    assert budget(configured(8_000)) == 8_000


def test_absolute_budget_is_capped_by_the_window() -> None:
    """Spec 6 step 8 example: 128k absolute on an 8k window -> 8,000."""
    assert budget(configured(8_000), max_context_tokens=128_000) == 8_000


def test_history_pruning_is_capped_by_the_window() -> None:
    """Spec 6 example: pruning 12k on an 8k window -> min(32,000, 12,000, 8,000) = 8,000."""
    pruning = HistoryPruning(enabled=True, max_tokens=12_000)
    assert budget(configured(8_000), history_pruning=pruning) == 8_000


def test_ratio_point_nine_on_200k_8k_and_unknown_windows() -> None:
    """Spec 6 examples: 0.9 on 200k -> 180,000; on 8k -> 7,200; unknown (32k) -> 28,800."""
    assert budget(configured(200_000), context_compact_ratio=0.9) == 180_000
    assert budget(configured(8_000), context_compact_ratio=0.9) == 7_200
    assert budget(UNKNOWN, context_compact_ratio=0.9) == 28_800


def test_ratio_product_is_truncated_toward_zero() -> None:
    """Spec 6 step 5 example: 100,001 x 0.5 = 50,000.5 -> 50,000."""
    assert budget(configured(100_001), context_compact_ratio=0.5) == 50_000


# --- the rules of spec 6 ------------------------------------------------------------------


def test_window_of_zero_uses_the_32000_operand() -> None:
    """Spec 6 step 1: window = model_context_window if > 0, otherwise 32,000 (0.5 ->
    16,000)."""
    assert budget(configured(0), context_compact_ratio=0.5) == 16_000
    assert resolve_context_limits(RuntimeProfile(), configured(0)).model_context_window == 32_000


def test_ratio_of_exactly_one_is_valid() -> None:
    """Spec 6 step 4: ``0 < r <= 1``: ratio 1.0 on 200k -> 200,000."""
    assert budget(configured(200_000), context_compact_ratio=1.0) == 200_000


@pytest.mark.parametrize("ratio", [-0.5, 1.000001, 2.0, math.nan, math.inf, -math.inf])
def test_invalid_ratios_are_treated_as_unset(ratio: float) -> None:
    """Spec 6 step 4: 0, negative, > 1 and NaN are treated as unset -> 32,000."""
    assert budget(configured(200_000), context_compact_ratio=ratio) == 32_000


def test_ratio_budget_is_at_least_one() -> None:
    """Spec 6 step 5: ``max(1, trunc(1 * 0.5))`` = max(1, 0) = 1."""
    assert budget(configured(1), context_compact_ratio=0.5) == 1


def test_absolute_budget_without_a_ratio() -> None:
    """Spec 6 step 5: without a ratio, ``budget = max_context_tokens`` (50k on 200k)."""
    assert budget(configured(200_000), max_context_tokens=50_000) == 50_000


def test_explicit_cap_above_the_ratio_budget_does_not_raise_it() -> None:
    """Spec 6 step 6: ``min(budget, m)``: 0.5 on 200k = 100,000; cap 150k -> 100,000."""
    window = configured(200_000)
    assert budget(window, context_compact_ratio=0.5, max_context_tokens=150_000) == 100_000


def test_history_pruning_lowers_the_budget() -> None:
    """Spec 6 step 7: enabled pruning 12k on 200k -> min(32,000, 12,000) = 12,000."""
    pruning = HistoryPruning(enabled=True, max_tokens=12_000)
    assert budget(configured(200_000), history_pruning=pruning) == 12_000


def test_history_pruning_also_caps_a_ratio_budget() -> None:
    """Spec 6 step 7: 0.8 on 200k = 160,000; pruning 100k -> 100,000."""
    pruning = HistoryPruning(enabled=True, max_tokens=100_000)
    window = configured(200_000)
    assert budget(window, context_compact_ratio=0.8, history_pruning=pruning) == 100_000


def test_history_pruning_never_raises_the_budget() -> None:
    """Spec 6 step 7: pruning 50k with the 32,000 default -> 32,000."""
    pruning = HistoryPruning(enabled=True, max_tokens=50_000)
    assert budget(configured(200_000), history_pruning=pruning) == 32_000


def test_disabled_or_zero_history_pruning_is_ignored() -> None:
    """Spec 6 step 7: only ``enabled && max_tokens > 0`` applies."""
    window = configured(200_000)
    assert budget(window, history_pruning=HistoryPruning(False, 12_000)) == 32_000
    assert budget(window, history_pruning=HistoryPruning(True, 0)) == 32_000


def test_zero_sentinel_ignores_pruning_and_window() -> None:
    """Spec 6 step 2: 0 is the sentinel; nothing else applies."""
    pruning = HistoryPruning(enabled=True, max_tokens=12_000)
    assert budget(configured(8_000), max_context_tokens=0, history_pruning=pruning) == 0


def test_compat_stub_keeps_an_absolute_budget_above_32000() -> None:
    """Decision 19.7 / spec 6 step 3: unknown capacity and m = 100,000 -> operand 100,000
    -> budget min(100,000, 100,000) = 100,000 (the P9535 clamp to 32,000 is superseded)."""
    assert budget(UNKNOWN, max_context_tokens=100_000) == 100_000


def test_compat_stub_reports_m_as_the_capacity_and_keeps_the_fallback_source() -> None:
    """Decision 19.7: the capacity used by the pre-dispatch check is m as well; the source
    stays ``compatibility_fallback``, so wire frames still omit the window."""
    limits = resolve_context_limits(RuntimeProfile(max_context_tokens=50_000), UNKNOWN)
    assert limits.model_context_window == 50_000
    assert limits.model_context_window_source is FALLBACK
    assert limits.context_token_budget == 50_000
    assert limits.configured_model_context_window is None


def test_compat_stub_does_not_apply_to_a_configured_window() -> None:
    """Spec 6 step 3: only for ``CompatibilityFallback``: 100k on a configured 8k -> 8,000."""
    assert budget(configured(8_000), max_context_tokens=100_000) == 8_000


def test_unknown_window_with_nothing_set_is_32000() -> None:
    """Spec 6 steps 1, 5: unknown capacity, no settings -> window 32,000, budget 32,000."""
    limits = resolve_context_limits(RuntimeProfile(), UNKNOWN)
    assert limits.model_context_window == 32_000
    assert limits.context_token_budget == 32_000


def test_zero_sentinel_on_an_unknown_window_keeps_the_32000_window() -> None:
    """Spec 6 step 3: the stub needs m > 0; with m = 0 the operand stays 32,000."""
    limits = resolve_context_limits(RuntimeProfile(max_context_tokens=0), UNKNOWN)
    assert (limits.model_context_window, limits.context_token_budget) == (32_000, 0)


def test_configured_model_context_window_only_for_configured_sources() -> None:
    """Spec 7 wire rule: ``Some(window)`` only when the source is ``Configured``."""
    limits = resolve_context_limits(RuntimeProfile(), configured(200_000))
    assert limits.configured_model_context_window == 200_000
    assert limits.model_context_window_source is CONFIGURED
    assert resolve_context_limits(RuntimeProfile(), UNKNOWN).configured_model_context_window is None


def test_legacy_fallback_for_an_unresolvable_route() -> None:
    """Spec 6 ``legacy_fallback(budget)``: window 32,000, source fallback, budget 0 if 0 else
    min(budget, 32,000)."""
    zero = ResolvedContextLimits.legacy_fallback(0)
    assert (zero.model_context_window, zero.model_context_window_source) == (32_000, FALLBACK)
    assert zero.context_token_budget == 0
    assert ResolvedContextLimits.legacy_fallback(50_000).context_token_budget == 32_000
    assert ResolvedContextLimits.legacy_fallback(10_000).context_token_budget == 10_000
    assert ResolvedContextLimits.legacy_fallback(10_000).configured_model_context_window is None


def test_window_source_values() -> None:
    """Issue 2: ``WindowSource`` is ``"configured"`` / ``"compatibility_fallback"``."""
    assert CONFIGURED.value == "configured"
    assert FALLBACK.value == "compatibility_fallback"


# --- spec 11 --------------------------------------------------------------------------------


def test_turn_limit_defaults_to_fifty() -> None:
    """Spec 11: ``effective_max_history_messages`` = ``unwrap_or(50)``."""
    assert effective_max_history_messages(RuntimeProfile()) == 50


def test_explicit_zero_turn_limit_is_authoritative() -> None:
    """Spec 11: an explicit value is authoritative, including 0."""
    assert effective_max_history_messages(RuntimeProfile(max_history_messages=0)) == 0
    assert effective_max_history_messages(RuntimeProfile(max_history_messages=7)) == 7


def test_turn_limit_default_does_not_derive_from_tool_iterations() -> None:
    """Spec 11: the pre-seed ``max(50, 2*max_tool_iterations+2)`` is dropped: 100
    iterations would have given 202; the seed gives 50."""
    assert effective_max_history_messages(RuntimeProfile(max_tool_iterations=100)) == 50


def test_runtime_profile_defaults() -> None:
    """Issue 2 / spec 18: the raw profile's defaults."""
    profile = RuntimeProfile()
    assert profile.max_context_tokens is None
    assert profile.context_compact_ratio is None
    assert profile.history_pruning == HistoryPruning(enabled=False, max_tokens=0)
    assert profile.max_history_messages is None
    assert profile.max_tool_iterations == 10
    assert profile.max_tool_result_chars == 50_000


# --- spec 17.1 / 19.1 ------------------------------------------------------------------------


def test_interactive_recovery_target_is_nine_tenths_of_the_window_floored() -> None:
    """Spec 18 / 19.1: ``floor(window * 9 / 10)``: 8,000 -> 7,200; 32,001 -> floor(28,800.9)
    = 28,800; 7 -> floor(6.3) = 6."""
    assert interactive_context_recovery_budget(8_000) == 7_200
    assert interactive_context_recovery_budget(32_001) == 28_800
    assert interactive_context_recovery_budget(7) == 6
