"""Prometheus label names, bounded label values and the helpers that map onto them. Part of
``harness.telemetry.names`` (re-exported there)."""

from __future__ import annotations

from typing import Final

from harness.runtime.budget import WindowSource
from harness.runtime.constants import REASON_BUDGET, REASON_TURN_LIMIT

# --- Prometheus labels ----------------------------------------------------------------------

LABEL_PROVIDER: Final = "provider"
LABEL_MODEL: Final = "model"
LABEL_REASON: Final = "reason"
LABEL_TRIGGER: Final = "trigger"
LABEL_EDIT: Final = "edit"
LABEL_SIDE: Final = "side"
LABEL_RULE: Final = "rule"
LABEL_WINDOW_SOURCE: Final = "window_source"
LABEL_PURPOSE: Final = "purpose"
LABEL_FITS: Final = "fits"
LABEL_ERROR_TYPE: Final = "error_type"
LABEL_RECOVERED: Final = "recovered"
LABEL_OUTCOME: Final = "outcome"
LABEL_TOOL: Final = "tool"
LABEL_REFERENCE_VERDICT: Final = "reference_verdict"
LABEL_EXTENDED_VERDICT: Final = "extended_verdict"
LABEL_CACHE: Final = "cache"
LABEL_PART: Final = "part"
LABEL_TOKEN_TYPE: Final = "token_type"
LABEL_GEN_AI_OPERATION: Final = "gen_ai_operation_name"
LABEL_GEN_AI_PROVIDER: Final = "gen_ai_provider_name"
LABEL_GEN_AI_MODEL: Final = "gen_ai_request_model"
LABEL_GEN_AI_TOKEN_TYPE: Final = "gen_ai_token_type"

UNKNOWN: Final = "unknown"
"""Label value for a missing provider or model (an empty value would drop the label)."""
OTHER: Final = "other"

TRIM_REASON_LABELS: Final[dict[str, str]] = {
    REASON_BUDGET: "token_budget",
    REASON_TURN_LIMIT: "turn_limit",
}
"""The reference's reason strings mapped to short label values; any other reason is ``other``."""

WINDOW_SOURCE_COMPATIBILITY: Final = WindowSource.COMPATIBILITY_FALLBACK.value
"""``window_source`` of a budget decided on the compatibility window (unknown capacity)."""

RECOVERY_OUTCOMES: Final = frozenset(
    {"retrying", "context_floor_exceeds_budget", "only_one_turn_left"}
)
RECOVERY_RETRYING: Final = "retrying"
CALL_RATE_LIMITED: Final = "rate_limited"
"""``ProviderCallFinished.outcome`` of an attempt the loop may retry under the same call id."""


def trim_reason_label(reason: str) -> str:
    return TRIM_REASON_LABELS.get(reason, OTHER)


def bool_label(value: bool) -> str:
    return "true" if value else "false"
