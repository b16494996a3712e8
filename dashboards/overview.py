"""The overview dashboard: how often history is trimmed, why, and how close requests run
to the window; overflows and whether recovery works; provider latency and tokens."""

from __future__ import annotations

from grafana_foundation_sdk.models.dashboard import Dashboard

from dashboards import promql as q
from dashboards.panels import (
    Panel,
    Query,
    Section,
    assemble,
    heatmap_panel,
    stat_panel,
    timeseries_panel,
)
from harness.telemetry import names as n

UID = "trimscope-overview"
TITLE = "trimscope: history trimming overview"
ROUTE = (n.LABEL_PROVIDER, n.LABEL_MODEL)
TRIGGERS_HELP = (
    "One per HistoryTrimmed event. Triggers: proactive (before a call), reported_usage "
    "(provider counted more than the budget), reactive (after an overflow), turn_limit "
    "(too many turns)."
)


def _trimming() -> Section:
    sel = q.selector()
    trigger = (n.LABEL_TRIGGER,)
    return (
        "Trimming",
        [
            timeseries_panel(
                "History trims / s by reason and trigger",
                TRIGGERS_HELP,
                "ops",
                Query(
                    q.rate(n.TRIMS.name, sel, (n.LABEL_REASON, n.LABEL_TRIGGER)),
                    "{{reason}} / {{trigger}}",
                ),
            ),
            timeseries_panel(
                "Dropped turns",
                "Whole user turns dropped per second, and per trim (p95), by trigger.",
                "short",
                Query(q.rate(q.sum_of(n.DROPPED_TURNS), sel, trigger), "{{trigger}}/s"),
                Query(q.quantile(0.95, n.DROPPED_TURNS, sel, trigger), "p95 {{trigger}}"),
            ),
            timeseries_panel(
                "Dropped messages per trim (p50, p95)",
                "Messages removed by one trim, by trigger.",
                "short",
                Query(q.quantile(0.5, n.DROPPED_MESSAGES, sel, trigger), "p50 {{trigger}}"),
                Query(q.quantile(0.95, n.DROPPED_MESSAGES, sel, trigger), "p95 {{trigger}}"),
            ),
            timeseries_panel(
                "Tokens removed / s: client trims vs provider edits",
                "Both sides of the trimming. Client: tokens_before - tokens_after of each "
                "HistoryTrimmed (the runtime's estimate), by trigger. Provider: "
                "cleared_input_tokens the provider reports in applied_edits, by edit kind.",
                "short",
                Query(q.rate(n.TRIMMED_TOKENS.name, sel, trigger), "client {{trigger}}"),
                Query(
                    q.rate(n.PROVIDER_CLEARED_TOKENS.name, sel, (n.LABEL_EDIT,)),
                    "provider {{edit}}",
                ),
            ),
            timeseries_panel(
                "Provider-side edits / s by kind and outcome",
                "One per ProviderContextEdited event: clear_tool_uses and clear_thinking "
                "(applied), compaction (compacted or failed). A failed compaction leaves the "
                "context whole; expect an overflow next.",
                "ops",
                Query(
                    q.rate(n.PROVIDER_EDITS.name, sel, (n.LABEL_EDIT, n.LABEL_OUTCOME)),
                    "{{edit}} ({{outcome}})",
                ),
            ),
            timeseries_panel(
                "Provider compaction step: tokens / s read and written",
                "What the provider's compaction step itself used (Anthropic usage.iterations, "
                "type compaction): the prompt it summarised (input) and the summary (output). "
                "Billed besides each call's own usage, which leaves the step out.",
                "short",
                Query(
                    q.rate(n.PROVIDER_COMPACTION_TOKENS.name, sel, (n.LABEL_TOKEN_TYPE,)),
                    "{{token_type}}",
                ),
            ),
            timeseries_panel(
                "Budget decisions / s by rule",
                "Which step of the budget precedence decided each route's budget.",
                "ops",
                Query(
                    q.rate(n.BUDGET_DECISIONS.name, sel, (n.LABEL_RULE, n.LABEL_WINDOW_SOURCE)),
                    "{{rule}} ({{window_source}})",
                ),
            ),
        ],
    )  # fmt: skip


def _context() -> Section:
    sel = q.selector()
    return (
        "Context window",
        [
            heatmap_panel(
                "Context utilisation (peak request ÷ window, per call)",
                "One observation per provider call: the larger of the estimate and the "
                "reported input tokens, over the window. Refused calls are above 1.",
                q.increase(q.bucket(n.UTILIZATION), sel, ("le",), window=q.RATE_INTERVAL),
            ),
            timeseries_panel(
                "Budget vs window per model",
                "The proactive trim budget and the resolved context window of each route.",
                "short",
                Query(q.latest(n.BUDGET_TOKENS, sel, ROUTE), "budget {{provider}}/{{model}}"),
                Query(q.latest(n.WINDOW_TOKENS, sel, ROUTE), "window {{provider}}/{{model}}"),
            ),
            timeseries_panel(
                "Capacity refusals / s",
                "Requests refused before dispatch: the estimate exceeded the window.",
                "ops",
                Query(
                    q.rate(n.CAPACITY_REFUSALS.name, sel, (*ROUTE, n.LABEL_PURPOSE)),
                    "{{provider}}/{{model}} {{purpose}}",
                ),
            ),
        ],
    )


def _recovery_success() -> Panel:
    recovered = q.selector(f'{n.LABEL_RECOVERED}="true"')
    return stat_panel(
        "Overflow recovery success",
        "Share of overflows after which the next call succeeded, over the range.",
        "percentunit",
        Query(
            q.ratio(
                q.increase(n.OVERFLOWS.name, recovered), q.increase(n.OVERFLOWS.name, q.selector())
            ),
            instant=True,
        ),
    )


def _overflows() -> Section:
    sel = q.selector()
    return (
        "Overflows and recovery",
        [
            timeseries_panel(
                "Provider overflows / s",
                "Context overflows reported by providers, by error type and whether the "
                "recovery that followed succeeded.",
                "ops",
                Query(
                    q.rate(
                        n.OVERFLOWS.name,
                        sel,
                        (n.LABEL_PROVIDER, n.LABEL_ERROR_TYPE, n.LABEL_RECOVERED),
                    ),
                    "{{provider}} {{error_type}} recovered={{recovered}}",
                ),
            ),
            _recovery_success(),
            timeseries_panel(
                "Recovery attempts / s by outcome",
                "retrying, or why recovery gave up.",
                "ops",
                Query(q.rate(n.RECOVERIES.name, sel, (n.LABEL_OUTCOME,)), "{{outcome}}"),
                width=6,
            ),
        ],
    )


def _provider() -> Section:
    sel = q.gen_ai_selector()
    by = (n.LABEL_GEN_AI_PROVIDER, n.LABEL_ROUTE, n.LABEL_GEN_AI_MODEL)
    return (
        "Provider",
        [
            timeseries_panel(
                "Provider latency (p50, p95)",
                "gen_ai.client.operation.duration by provider, route and model.",
                "s",
                Query(q.quantile(0.5, n.GEN_AI_DURATION, sel, by), "p50 {{gen_ai_request_model}}"),
                Query(q.quantile(0.95, n.GEN_AI_DURATION, sel, by), "p95 {{gen_ai_request_model}}"),
            ),
            timeseries_panel(
                "Tokens / s by type",
                "gen_ai.client.token.usage: input and output tokens per second.",
                "short",
                Query(
                    q.rate(q.sum_of(n.GEN_AI_TOKEN_USAGE), sel, (*by, n.LABEL_GEN_AI_TOKEN_TYPE)),
                    "{{gen_ai_request_model}} {{gen_ai_token_type}}",
                ),
            ),
        ],
    )  # fmt: skip


def _cache() -> Section:
    sel = q.selector()
    route = (n.LABEL_PROVIDER, n.LABEL_MODEL)
    read = q.selector(f'{n.LABEL_CACHE}="{n.CACHE_READ}"')
    return (
        "Prompt cache",
        [
            timeseries_panel(
                "Cache hit ratio",
                "Share of reported input tokens read from the provider's prompt cache, by route.",
                "percentunit",
                Query(
                    q.ratio(q.rate(n.INPUT_TOKENS.name, read, route),
                            q.rate(n.INPUT_TOKENS.name, sel, route)),
                    "{{provider}} {{model}}",
                ),
                width=8,
            ),
            timeseries_panel(
                "Cache loss / s by trigger",
                "Tokens of the last request that each trim's history no longer shares as a "
                "prefix (the cached prefix a trim throws away), per second, by trigger.",
                "short",
                Query(q.rate(n.CACHE_LOSS.name, sel, (n.LABEL_TRIGGER,)), "{{trigger}}"),
                width=8,
            ),
            timeseries_panel(
                "Input tokens / s by cache",
                "Reported input split into cache reads, cache writes and uncached tokens: "
                "with a price table, the cost rate is each line times its price.",
                "short",
                Query(q.rate(n.INPUT_TOKENS.name, sel, (n.LABEL_CACHE,)), "{{cache}}"),
                width=8,
            ),
        ],
    )  # fmt: skip


COST_HELP = (
    "Needs a price table (trimscope run/load --prices FILE with metrics on): without one no "
    "cost series exists. Priced by the same formula as the load summary's cost section."
)


def _cost() -> Section:
    sel = q.selector()
    return (
        "Cost (with --prices)",
        [
            timeseries_panel(
                "Cost rate by route (USD / h)",
                "What successful calls cost per hour at the table's rates, by route. " + COST_HELP,
                "currencyUSD",
                Query(q.per_hour(q.rate(n.COST.name, sel, ROUTE)), "{{provider}} {{model}}"),
                width=8,
            ),
            timeseries_panel(
                "Cost rate by part (USD / h)",
                "The cost rate split into uncached input, cached input (reads), cache writes "
                "and output. " + COST_HELP,
                "currencyUSD",
                Query(q.per_hour(q.rate(n.COST.name, sel, (n.LABEL_PART,))), "{{part}}"),
                width=8,
            ),
            timeseries_panel(
                "Cache saved vs cache loss (USD / h)",
                "Saved: what cache reads cost less than uncached input, minus what cache "
                "writes cost more (net; below zero when writes outweigh reads). Loss: each "
                "trim's cache loss tokens priced as sent again uncached, by trigger (an upper "
                "bound: the provider may not have cached all of it). " + COST_HELP,
                "currencyUSD",
                Query(q.per_hour(f"{q.rate(n.CACHE_SAVED.name, sel)} - "
                                 f"{q.rate(n.CACHE_WRITE_PREMIUM.name, sel)}"),
                      "cache saved (net)"),
                Query(q.per_hour(q.rate(n.CACHE_LOSS_COST.name, sel, (n.LABEL_TRIGGER,))),
                      "lost {{trigger}}"),
                width=8,
                floor_at_zero=False,  # the net saving goes below zero when writes outweigh reads
            ),
        ],
    )  # fmt: skip


def _turns() -> Section:
    job = q.job_selector()
    return (
        "Turns and tools",
        [
            timeseries_panel(
                "Turns / s by outcome",
                "ok, error, cancelled, max_iterations.",
                "ops",
                Query(q.rate(n.TURNS.name, job, (n.LABEL_OUTCOME,)), "{{outcome}}"),
                width=6,
            ),
            timeseries_panel(
                "Tool calls / s",
                "Finished tool calls by outcome, and results cut to the recorded-result limit.",
                "ops",
                Query(q.rate(n.TOOL_CALLS.name, job, (n.LABEL_TOOL, n.LABEL_OUTCOME)),
                      "{{tool}} {{outcome}}"),
                Query(q.rate(n.TOOL_RESULTS_TRUNCATED.name, job, (n.LABEL_TOOL,)),
                      "{{tool}} truncated"),
                width=6,
            ),
        ],
    )  # fmt: skip


def build() -> Dashboard:
    return assemble(
        TITLE,
        UID,
        "Every trim and budget decision of the trimscope harness (issue 6).",
        [_trimming(), _context(), _overflows(), _provider(), _cache(), _cost(), _turns()],
    )
