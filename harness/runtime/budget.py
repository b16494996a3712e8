"""Budget and capacity resolution (spec 6, 7, 11, 19.7).

Raw configuration (``RuntimeProfile``, ``ProviderProfile``) is resolved once per served
route into a frozen ``ResolvedContextLimits``. Precedence, in the order it is applied:

1. window operand: the route's configured window when > 0, else 32,000; but when the window
   is the compatibility fallback and ``max_context_tokens = m > 0``, the operand is ``m``;
2. ``max_context_tokens == 0`` gives budget 0 (proactive trimming off), nothing else applies;
3. a ratio in (0, 1] gives ``max(1, trunc(operand * ratio))``, capped by ``max_context_tokens``;
   without a valid ratio the budget is ``max_context_tokens`` or 32,000;
4. an enabled ``history_pruning.max_tokens > 0`` lowers (never raises) the budget;
5. the budget never exceeds the window operand.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from harness.runtime.constants import (
    DEFAULT_MAX_HISTORY_MESSAGES,
    DEFAULT_MAX_TOOL_ITERATIONS,
    DEFAULT_MAX_TOOL_RESULT_CHARS,
    INTERACTIVE_RECOVERY_DENOMINATOR,
    INTERACTIVE_RECOVERY_NUMERATOR,
    LEGACY_DEFAULT_CONTEXT_BUDGET,
    UNCONFIGURED_CONTEXT_WINDOW_FALLBACK,
)
from harness.runtime.text import rust_trim


@dataclass(frozen=True, slots=True)
class HistoryPruning:
    enabled: bool = False
    max_tokens: int = 0


@dataclass(frozen=True, slots=True)
class RuntimeProfile:
    """``runtime_profiles.<name>``: every field is optional in the reference's schema."""

    max_context_tokens: int | None = None
    context_compact_ratio: float | None = None
    history_pruning: HistoryPruning = field(default_factory=HistoryPruning)
    max_history_messages: int | None = None
    max_tool_iterations: int = DEFAULT_MAX_TOOL_ITERATIONS
    max_tool_result_chars: int = DEFAULT_MAX_TOOL_RESULT_CHARS


@dataclass(frozen=True, slots=True)
class ProviderProfile:
    """``providers.models.<type>.<alias>``: the model it serves and its window, if known."""

    model: str | None = None
    context_window: int | None = None


class WindowSource(StrEnum):
    CONFIGURED = "configured"
    COMPATIBILITY_FALLBACK = "compatibility_fallback"


@dataclass(frozen=True, slots=True)
class ModelContextWindow:
    tokens: int
    source: WindowSource


FALLBACK_WINDOW = ModelContextWindow(
    UNCONFIGURED_CONTEXT_WINDOW_FALLBACK, WindowSource.COMPATIBILITY_FALLBACK
)


def _trimmed(name: str | None) -> str:
    # Rust's `str::trim`: Python's `str.strip()` would also strip U+001C..U+001F, so a
    # name Rust reports as a mismatch (unknown capacity) would wrongly match here.
    return rust_trim(name or "")


def resolved_model_context_window_for_route(
    providers: Mapping[str, Mapping[str, ProviderProfile]],
    model_provider_ref: str,
    selected_model: str | None,
) -> ModelContextWindow:
    """Look ``<type>.<alias>`` up; a model mismatch means the capacity is unknown."""
    provider_type, dot, alias = model_provider_ref.partition(".")
    profile = providers.get(provider_type, {}).get(alias) if dot else None
    if profile is None or not profile.context_window or profile.context_window <= 0:
        return FALLBACK_WINDOW
    selected, declared = _trimmed(selected_model), _trimmed(profile.model)
    if selected and declared and selected != declared:
        return FALLBACK_WINDOW
    return ModelContextWindow(profile.context_window, WindowSource.CONFIGURED)


class BudgetRule(StrEnum):
    """Which step of the precedence decided the budget (reported on ``BudgetResolved``)."""

    ZERO_SENTINEL = "zero_sentinel"
    LEGACY_DEFAULT = "legacy_default"
    ABSOLUTE = "absolute"
    RATIO = "ratio"
    RATIO_CAPPED_BY_MAX_CONTEXT_TOKENS = "ratio_capped_by_max_context_tokens"
    HISTORY_PRUNING = "history_pruning"
    WINDOW_CAP = "window_cap"


@dataclass(frozen=True, slots=True)
class ResolvedContextLimits:
    model_context_window: int
    model_context_window_source: WindowSource
    context_token_budget: int
    rule: BudgetRule = BudgetRule.LEGACY_DEFAULT

    @property
    def configured_model_context_window(self) -> int | None:
        """The window for wire frames: ``None`` when the capacity is unknown."""
        if self.model_context_window_source is WindowSource.CONFIGURED:
            return self.model_context_window
        return None

    @classmethod
    def legacy_fallback(cls, budget: int) -> ResolvedContextLimits:
        """Limits for a route that cannot be resolved."""
        window = UNCONFIGURED_CONTEXT_WINDOW_FALLBACK
        if budget == 0:
            return cls(window, WindowSource.COMPATIBILITY_FALLBACK, 0, BudgetRule.ZERO_SENTINEL)
        capped = min(budget, window)
        rule = BudgetRule.WINDOW_CAP if capped < budget else BudgetRule.ABSOLUTE
        return cls(window, WindowSource.COMPATIBILITY_FALLBACK, capped, rule)


def valid_compact_ratio(ratio: float | None) -> float | None:
    """A ratio counts only inside (0, 1]; 0, negatives, > 1 and NaN are unset."""
    if ratio is None or math.isnan(ratio) or not 0.0 < ratio <= 1.0:
        return None
    return ratio


def _window_operand(profile: RuntimeProfile, window: ModelContextWindow) -> int:
    explicit = profile.max_context_tokens
    if (
        window.source is WindowSource.COMPATIBILITY_FALLBACK
        and explicit is not None
        and explicit > 0
    ):
        return explicit  # the compatibility stub yields to an explicit absolute budget
    return window.tokens if window.tokens > 0 else UNCONFIGURED_CONTEXT_WINDOW_FALLBACK


def _budget_and_rule(profile: RuntimeProfile, operand: int) -> tuple[int, BudgetRule]:
    explicit = profile.max_context_tokens
    ratio = valid_compact_ratio(profile.context_compact_ratio)
    if ratio is not None:
        budget, rule = max(1, math.trunc(operand * ratio)), BudgetRule.RATIO
        if explicit is not None and explicit < budget:
            budget, rule = explicit, BudgetRule.RATIO_CAPPED_BY_MAX_CONTEXT_TOKENS
    elif explicit is not None:
        budget, rule = explicit, BudgetRule.ABSOLUTE
    else:
        budget, rule = LEGACY_DEFAULT_CONTEXT_BUDGET, BudgetRule.LEGACY_DEFAULT
    pruning = profile.history_pruning
    if pruning.enabled and 0 < pruning.max_tokens < budget:
        budget, rule = pruning.max_tokens, BudgetRule.HISTORY_PRUNING
    if operand < budget:
        budget, rule = operand, BudgetRule.WINDOW_CAP
    return budget, rule


def resolve_context_limits(
    profile: RuntimeProfile, window: ModelContextWindow
) -> ResolvedContextLimits:
    """The served route's window, its source and the proactive budget, resolved together.

    The window reported back is the operand the budget used, so the capacity check and the
    budget agree (decision 19.7); its source stays ``compatibility_fallback``, so wire
    frames still omit it.
    """
    operand = _window_operand(profile, window)
    if profile.max_context_tokens == 0:
        return ResolvedContextLimits(operand, window.source, 0, BudgetRule.ZERO_SENTINEL)
    budget, rule = _budget_and_rule(profile, operand)
    return ResolvedContextLimits(operand, window.source, budget, rule)


def effective_context_budget(profile: RuntimeProfile, window: ModelContextWindow) -> int:
    return resolve_context_limits(profile, window).context_token_budget


def effective_max_history_messages(profile: RuntimeProfile) -> int:
    """Turn-limit cap: an explicit value is authoritative, including 0; default 50."""
    if profile.max_history_messages is None:
        return DEFAULT_MAX_HISTORY_MESSAGES
    return profile.max_history_messages


def interactive_context_recovery_budget(model_context_window: int) -> int:
    """Legacy outer-loop recovery target: ``floor(window * 9 / 10)`` (spec 17.1)."""
    return model_context_window * INTERACTIVE_RECOVERY_NUMERATOR // INTERACTIVE_RECOVERY_DENOMINATOR
