"""Prometheus metric families: the decisions' (``METRICS``), the run marker and the cost
families registered only with a price table (``COST_METRICS``). Part of
``harness.telemetry.names`` (re-exported there)."""

from __future__ import annotations

from typing import Final

from harness.telemetry.names.labels import (
    LABEL_CACHE,
    LABEL_EDIT,
    LABEL_ERROR_TYPE,
    LABEL_EXTENDED_VERDICT,
    LABEL_FITS,
    LABEL_GEN_AI_MODEL,
    LABEL_GEN_AI_OPERATION,
    LABEL_GEN_AI_PROVIDER,
    LABEL_GEN_AI_TOKEN_TYPE,
    LABEL_MODEL,
    LABEL_OUTCOME,
    LABEL_PART,
    LABEL_PROVIDER,
    LABEL_PURPOSE,
    LABEL_REASON,
    LABEL_RECOVERED,
    LABEL_REFERENCE_VERDICT,
    LABEL_RULE,
    LABEL_TOKEN_TYPE,
    LABEL_TOOL,
    LABEL_TRIGGER,
    LABEL_WINDOW_SOURCE,
)
from harness.telemetry.names.metric_spec import (
    DROPPED_MESSAGES_BUCKETS,
    DROPPED_TURNS_BUCKETS,
    ESTIMATE_ACCURACY_BUCKETS,
    GEN_AI_DURATION_BUCKETS,
    GEN_AI_TOKEN_USAGE_BUCKETS,
    UTILIZATION_BUCKETS,
    MetricSpec,
)
from harness.telemetry.names.providers import LABEL_ROUTE
from harness.telemetry.names.wire import LABEL_SOURCE, WIRE_METRICS

# --- Prometheus metrics ---------------------------------------------------------------------

RUN_INTERRUPTED: Final = "trimscope_run_interrupted"
"""Gauge set to 1, labelled with the signal, when SIGINT or SIGTERM stopped the run: a
metrics file or scrape of a stopped run says so. Not in ``METRICS`` (dashboards chart
decisions; this marks a run), and only registered when it happens."""
LABEL_SIGNAL: Final = "signal"

_ROUTE = (LABEL_PROVIDER, LABEL_MODEL)
_SOURCED_ROUTE = (*_ROUTE, LABEL_SOURCE)
# gen_ai_provider_name: the conventions' value (openai); trimscope_provider: the route alias
_GEN_AI = (LABEL_GEN_AI_OPERATION, LABEL_GEN_AI_PROVIDER, LABEL_GEN_AI_MODEL, LABEL_ROUTE)
# What trims feed: by trigger, provider and who reported the trim.
_TRIGGER = (LABEL_TRIGGER, LABEL_PROVIDER, LABEL_SOURCE)

TRIMS: Final = MetricSpec(
    "trimscope_history_trims_total",
    "counter",
    "History trims, one per HistoryTrimmed event.",
    (LABEL_REASON, LABEL_TRIGGER, LABEL_PROVIDER, LABEL_SOURCE),
)
DROPPED_MESSAGES: Final = MetricSpec(
    "trimscope_history_dropped_messages",
    "histogram",
    "Messages dropped by one trim.",
    _TRIGGER,
    DROPPED_MESSAGES_BUCKETS,
)
DROPPED_TURNS: Final = MetricSpec(
    "trimscope_history_dropped_turns",
    "histogram",
    "Whole user turns dropped by one trim.",
    _TRIGGER,
    DROPPED_TURNS_BUCKETS,
)
BUDGET_TOKENS: Final = MetricSpec(
    "trimscope_context_budget_tokens", "gauge", "Proactive trim budget of the route.", _ROUTE
)
WINDOW_TOKENS: Final = MetricSpec(
    "trimscope_context_window_tokens", "gauge", "Context window the route resolved.", _ROUTE
)
BUDGET_DECISIONS: Final = MetricSpec(
    "trimscope_budget_decisions_total",
    "counter",
    "Budget resolutions (one per BudgetResolved) by the precedence rule that decided.",
    (*_ROUTE, LABEL_RULE, LABEL_WINDOW_SOURCE),
)
UTILIZATION: Final = MetricSpec(
    "trimscope_context_utilization_ratio",
    "histogram",
    "Peak request size of one call (max of estimate and reported input) over the window.",
    _SOURCED_ROUTE,
    UTILIZATION_BUCKETS,
)
CAPACITY_CHECKS: Final = MetricSpec(
    "trimscope_capacity_checks_total",
    "counter",
    "Pre-dispatch capacity checks (one per CapacityChecked).",
    (*_ROUTE, LABEL_PURPOSE, LABEL_FITS),
)
CAPACITY_REFUSALS: Final = MetricSpec(
    "trimscope_capacity_refusals_total",
    "counter",
    "Requests refused before dispatch because the estimate exceeded the window.",
    (*_ROUTE, LABEL_PURPOSE),
)
OVERFLOWS: Final = MetricSpec(
    "trimscope_provider_overflows_total",
    "counter",
    "Provider context overflows, counted when their recovery is settled.",
    (LABEL_PROVIDER, LABEL_ERROR_TYPE, LABEL_RECOVERED, LABEL_SOURCE),
)
OVERFLOW_VERDICTS: Final = MetricSpec(
    "trimscope_overflow_classifications_total",
    "counter",
    "Provider errors classified as overflow, by what each classifier said.",
    (
        LABEL_PROVIDER,
        LABEL_ERROR_TYPE,
        LABEL_REFERENCE_VERDICT,
        LABEL_EXTENDED_VERDICT,
        LABEL_SOURCE,
    ),
)
RECOVERIES: Final = MetricSpec(
    "trimscope_overflow_recoveries_total",
    "counter",
    "Reactive recovery attempts (one per RecoveryAttempted) by outcome.",
    (LABEL_PROVIDER, LABEL_OUTCOME),
)
ESTIMATE_ACCURACY: Final = MetricSpec(
    "trimscope_reported_to_estimated_tokens_ratio",
    "histogram",
    "Input tokens the provider reported over the harness's estimate for the same request.",
    _SOURCED_ROUTE,
    ESTIMATE_ACCURACY_BUCKETS,
)
PROVIDER_CALLS: Final = MetricSpec(
    "trimscope_provider_calls_total",
    "counter",
    "Finished provider calls by outcome.",
    (*_ROUTE, LABEL_OUTCOME, LABEL_SOURCE),
)
TURNS: Final = MetricSpec(
    "trimscope_turns_total", "counter", "Finished agent turns by outcome.", (LABEL_OUTCOME,)
)
TOOL_CALLS: Final = MetricSpec(
    "trimscope_tool_calls_total",
    "counter",
    "Finished tool calls by outcome (ok, error).",
    (LABEL_TOOL, LABEL_OUTCOME),
)
TOOL_RESULTS_TRUNCATED: Final = MetricSpec(
    "trimscope_tool_results_truncated_total",
    "counter",
    "Tool results cut to the recorded-result limit.",
    (LABEL_TOOL,),
)
CACHE_READ: Final = "read"
CACHE_WRITE: Final = "write"
CACHE_UNCACHED: Final = "uncached"
INPUT_TOKENS: Final = MetricSpec(
    "trimscope_provider_input_tokens_total",
    "counter",
    "Input tokens providers reported, by cache: read (hits), write, uncached (the rest).",
    (*_ROUTE, LABEL_CACHE, LABEL_SOURCE),
)
CACHE_LOSS: Final = MetricSpec(
    "trimscope_cache_loss_tokens_total",
    "counter",
    "Tokens of the route's last request a trimmed history no longer shares as a prefix.",
    _TRIGGER,
)
TRIMMED_TOKENS: Final = MetricSpec(
    "trimscope_history_trimmed_tokens_total",
    "counter",
    "Estimated tokens client-side trims removed (tokens_before - tokens_after).",
    _TRIGGER,
)
PROVIDER_EDIT_APPLIED: Final = "applied"
"""``outcome`` label of a clearing edit; a compaction's is ``compacted`` or ``failed``."""
PROVIDER_EDITS: Final = MetricSpec(
    "trimscope_provider_context_edits_total",
    "counter",
    "Provider-side context edits, one per ProviderContextEdited event.",
    (LABEL_EDIT, LABEL_OUTCOME, LABEL_PROVIDER, LABEL_SOURCE),
)
PROVIDER_CLEARED_TOKENS: Final = MetricSpec(
    "trimscope_provider_cleared_input_tokens_total",
    "counter",
    "Input tokens the provider reports clearing, by edit kind.",
    (LABEL_EDIT, LABEL_PROVIDER, LABEL_SOURCE),
)
PROVIDER_COMPACTION_TOKENS: Final = MetricSpec(
    "trimscope_provider_compaction_tokens_total",
    "counter",
    "Tokens the provider's compaction step read (input) and wrote (output), as its usage"
    " iterations report them: billed besides the call's own usage.",
    (LABEL_TOKEN_TYPE, LABEL_PROVIDER, LABEL_SOURCE),
)
GEN_AI_TOKEN_USAGE: Final = MetricSpec(
    "gen_ai_client_token_usage",
    "histogram",
    "Tokens used per GenAI call (gen_ai.client.token.usage).",
    (*_GEN_AI, LABEL_GEN_AI_TOKEN_TYPE, LABEL_SOURCE),
    GEN_AI_TOKEN_USAGE_BUCKETS,
)
GEN_AI_DURATION: Final = MetricSpec(
    "gen_ai_client_operation_duration_seconds",
    "histogram",
    "Duration of GenAI calls (gen_ai.client.operation.duration).",
    (*_GEN_AI, LABEL_ERROR_TYPE, LABEL_SOURCE),
    GEN_AI_DURATION_BUCKETS,
)

METRICS: Final = (
    TRIMS,
    DROPPED_MESSAGES,
    DROPPED_TURNS,
    BUDGET_TOKENS,
    WINDOW_TOKENS,
    BUDGET_DECISIONS,
    UTILIZATION,
    CAPACITY_CHECKS,
    CAPACITY_REFUSALS,
    OVERFLOWS,
    OVERFLOW_VERDICTS,
    RECOVERIES,
    ESTIMATE_ACCURACY,
    PROVIDER_CALLS,
    TURNS,
    TOOL_CALLS,
    TOOL_RESULTS_TRUNCATED,
    INPUT_TOKENS,
    CACHE_LOSS,
    GEN_AI_TOKEN_USAGE,
    GEN_AI_DURATION,
    TRIMMED_TOKENS,
    PROVIDER_EDITS,
    PROVIDER_CLEARED_TOKENS,
    PROVIDER_COMPACTION_TOKENS,
    *WIRE_METRICS,
)

# --- cost (issue 16): only with a price table (``telemetry.cost``), so not in ``METRICS`` ---

PART_INPUT: Final = "input"
PART_CACHED_INPUT: Final = "cached_input"
PART_CACHE_WRITE: Final = "cache_write"
PART_OUTPUT: Final = "output"
COST_PARTS: Final = (PART_INPUT, PART_CACHED_INPUT, PART_CACHE_WRITE, PART_OUTPUT)
"""``part`` label values, in the order of ``harness.pricing.formula.Usage.parts``."""

COST: Final = MetricSpec(
    "trimscope_cost_usd_total",
    "counter",
    "What successful provider calls cost at the price table's rates, by part of the usage.",
    (*_ROUTE, LABEL_PART, LABEL_SOURCE),
)
CACHE_SAVED: Final = MetricSpec(
    "trimscope_cache_saved_usd_total",
    "counter",
    "What cache reads cost less than the same input uncached.",
    _SOURCED_ROUTE,
)
CACHE_WRITE_PREMIUM: Final = MetricSpec(
    "trimscope_cache_write_premium_usd_total",
    "counter",
    "What cache writes cost more than the same input uncached (saved minus this is net).",
    _SOURCED_ROUTE,
)
CACHE_LOSS_COST: Final = MetricSpec(
    "trimscope_cache_loss_usd_total",
    "counter",
    "Cache loss tokens priced as sent again uncached (input minus cached input).",
    _TRIGGER,
)
COST_METRICS: Final = (COST, CACHE_SAVED, CACHE_WRITE_PREMIUM, CACHE_LOSS_COST)
"""Registered by the cost observer only when a price table is given: no table, no series."""

NO_ERROR: Final = ""
"""``error_type`` label of a successful call: empty, so PromQL ``error_type=""`` selects it."""

EXEMPLAR_TRACE_ID: Final = "trace_id"
