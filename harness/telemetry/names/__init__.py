"""Every span name, attribute key, metric name, label name and bucket list the project emits.

Observers, dashboards and tests import these; no other module spells a telemetry name.

GenAI names are our own constants (the ``opentelemetry.semconv._incubating`` module is
deprecated; the conventions moved to their own repository, status Development). A test
checks each against the 0.66b2 module so a rename there is noticed, not copied silently.

Prometheus metrics use prometheus-client directly (exact names, exemplars, multiprocess).
Harness metrics carry the ``trimscope_`` prefix; the two GenAI client histograms use the
names the OpenTelemetry Prometheus exporter would give them, so GenAI dashboards and ours
read the same series. Every label is bounded: identifiers (session, turn, call, trace)
belong in spans and exemplars, never in labels.
"""

from __future__ import annotations

from typing import Final

from harness.runtime.budget import WindowSource
from harness.runtime.constants import REASON_BUDGET, REASON_TURN_LIMIT

# Span events and trimscope.* span attributes (span_names), gen_ai.provider.name values
# (provider_names), MetricSpec and the buckets
# (metric_spec), the source label and the wire observer's names (wire_names) live in modules
# of their own (module size); re-exported here so that observers, dashboards and tests keep
# one import.
from harness.telemetry.names.metric_spec import *  # noqa: F403
from harness.telemetry.names.metric_spec import (
    DROPPED_MESSAGES_BUCKETS,
    DROPPED_TURNS_BUCKETS,
    ESTIMATE_ACCURACY_BUCKETS,
    GEN_AI_DURATION_BUCKETS,
    GEN_AI_TOKEN_USAGE_BUCKETS,
    UTILIZATION_BUCKETS,
    MetricSpec,
)
from harness.telemetry.names.providers import *  # noqa: F403
from harness.telemetry.names.providers import LABEL_ROUTE
from harness.telemetry.names.spans import *  # noqa: F403
from harness.telemetry.names.wire import *  # noqa: F403
from harness.telemetry.names.wire import LABEL_SOURCE, SPAN_WIRE_FINDING, WIRE_METRICS

# --- instrumentation scope ------------------------------------------------------------------

INSTRUMENTATION_NAME: Final = "trimscope"
SEMCONV_SCHEMA_URL: Final = "https://opentelemetry.io/schemas/1.44.0"
"""The semantic-conventions version of opentelemetry-semantic-conventions 0.66b2."""
SERVICE_NAME: Final = "trimscope"

# --- GenAI semantic-convention attributes (our own constants) -------------------------------

GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
GEN_AI_PROVIDER_NAME: Final = "gen_ai.provider.name"
GEN_AI_REQUEST_MODEL: Final = "gen_ai.request.model"
GEN_AI_RESPONSE_FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
GEN_AI_USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
GEN_AI_USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: Final = "gen_ai.usage.cache_read.input_tokens"
GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS: Final = "gen_ai.usage.cache_creation.input_tokens"
GEN_AI_CONVERSATION_ID: Final = "gen_ai.conversation.id"
GEN_AI_AGENT_NAME: Final = "gen_ai.agent.name"
GEN_AI_TOOL_NAME: Final = "gen_ai.tool.name"
GEN_AI_TOOL_TYPE: Final = "gen_ai.tool.type"
GEN_AI_TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
GEN_AI_TOKEN_TYPE: Final = "gen_ai.token.type"
GEN_AI_CONVERSATION_COMPACTED: Final = "gen_ai.conversation.compacted"
"""Newer than 0.66b2 (semantic-conventions-genai PR #162): set only ``true``, on an
inference span whose request used a trimmed history."""
ERROR_TYPE: Final = "error.type"
ERROR_TYPE_OTHER: Final = "_OTHER"
HTTP_RESPONSE_STATUS_CODE: Final = "http.response.status_code"

OPERATION_CHAT: Final = "chat"
OPERATION_INVOKE_AGENT: Final = "invoke_agent"
OPERATION_EXECUTE_TOOL: Final = "execute_tool"
TOOL_TYPE_FUNCTION: Final = "function"
TOKEN_TYPE_INPUT: Final = "input"
TOKEN_TYPE_OUTPUT: Final = "output"

# --- span names -----------------------------------------------------------------------------


def agent_span_name(agent_name: str) -> str:
    """``invoke_agent {gen_ai.agent.name}``: one INTERNAL span per turn."""
    return f"{OPERATION_INVOKE_AGENT} {agent_name}"


def inference_span_name(operation: str, model: str | None) -> str:
    """``{gen_ai.operation.name} {gen_ai.request.model}``, e.g. ``chat gpt-test``."""
    return f"{operation} {model}" if model else operation


def tool_span_name(tool_name: str) -> str:
    """``execute_tool {gen_ai.tool.name}``."""
    return f"{OPERATION_EXECUTE_TOOL} {tool_name}"


SPAN_TRIM: Final = "trimscope.trim"
"""A short span for a trim outside any turn (a seeding trim)."""

OUTSIDE_TURN_SPANS: Final[dict[str, str]] = {
    "HistoryTrimmed": SPAN_TRIM,
    "BudgetResolved": "trimscope.budget",
    "CapacityChecked": "trimscope.capacity",
    "OverflowDetected": "trimscope.overflow",
    "RecoveryAttempted": "trimscope.recovery",
    "ProviderContextEdited": "trimscope.provider_edit",
    "WireFindingObserved": SPAN_WIRE_FINDING,
}
"""Span names for decision events that arrive with no open span to carry them."""

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
"""``part`` label values, in the order of ``telemetry.pricing.Usage.parts``."""

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
