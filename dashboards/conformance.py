"""The provider-conformance dashboard: how each provider behaves at and past its window.

How often calls overflow and with which error codes; whether the reference classifier
recognises them (the extended one is ours); whether recovery works per provider; whether
routes run on a configured window or the compatibility fallback; how far the provider's
token count is from our estimate.
"""

from __future__ import annotations

from grafana_foundation_sdk.models.dashboard import Dashboard

from dashboards import promql as q
from dashboards.panels import (
    Query,
    Section,
    assemble,
    stat_panel,
    table_panel,
    timeseries_panel,
)
from harness.telemetry import names as n

UID = "trimscope-provider-conformance"
TITLE = "trimscope: provider conformance"
ROUTE = (n.LABEL_PROVIDER, n.LABEL_MODEL)


def _calls() -> Section:
    sel = q.selector()
    overflow = q.selector(f'{n.LABEL_OUTCOME}="overflow"')
    errors = q.gen_ai_selector(f'{n.LABEL_ERROR_TYPE}!=""')
    by_provider = (n.LABEL_PROVIDER,)
    return (
        "Calls",
        [
            timeseries_panel(
                "Provider calls / s by outcome",
                "ok, overflow, rate_limited, server_error, timeout, protocol_error.",
                "ops",
                Query(q.rate(n.PROVIDER_CALLS.name, sel, (*by_provider, n.LABEL_OUTCOME)),
                      "{{provider}} {{outcome}}"),
            ),
            timeseries_panel(
                "Overflow share of calls",
                "Calls that overflowed the provider's window, over all calls, per provider.",
                "percentunit",
                Query(q.ratio(q.rate(n.PROVIDER_CALLS.name, overflow, by_provider),
                              q.rate(n.PROVIDER_CALLS.name, sel, by_provider)), "{{provider}}"),
            ),
            timeseries_panel(
                "Errors / s by error.type",
                "Failed GenAI calls by the provider's error code (_OTHER when it gave none).",
                "ops",
                Query(q.rate(q.count_of(n.GEN_AI_DURATION), errors,
                             (n.LABEL_ROUTE, n.LABEL_ERROR_TYPE)),
                      f"{{{{{n.LABEL_ROUTE}}}}} {{{{error_type}}}}"),
            ),
        ],
    )  # fmt: skip


def _classification() -> Section:
    sel = q.selector()
    missed = q.selector(f'{n.LABEL_REFERENCE_VERDICT}="false"')
    recovered = q.selector(f'{n.LABEL_RECOVERED}="true"')
    verdicts = (
        n.LABEL_PROVIDER,
        n.LABEL_ERROR_TYPE,
        n.LABEL_REFERENCE_VERDICT,
        n.LABEL_EXTENDED_VERDICT,
    )
    return (
        "Overflow classification and recovery",
        [
            table_panel(
                "Overflows by classifier verdict",
                "What the reference substring classifier and our extended one said of each "
                "overflow, over the range.",
                Query(q.increase(n.OVERFLOW_VERDICTS.name, sel, verdicts), instant=True,
                      table=True),
            ),
            stat_panel(
                "Overflows the reference classifier missed",
                "Over the range; the reference would have surfaced these as plain errors.",
                "short",
                Query(q.increase(n.OVERFLOW_VERDICTS.name, missed), instant=True),
            ),
            timeseries_panel(
                "Recovery success by provider",
                "Share of overflows after which the next call succeeded.",
                "percentunit",
                Query(q.ratio(q.rate(n.OVERFLOWS.name, recovered, (n.LABEL_PROVIDER,)),
                              q.rate(n.OVERFLOWS.name, sel, (n.LABEL_PROVIDER,))),
                      "{{provider}}"),
                width=6,
            ),
        ],
    )  # fmt: skip


def _windows() -> Section:
    sel = q.selector()
    route = "{{provider}}/{{model}}"
    return (
        "Windows and estimates",
        [
            table_panel(
                "Budget decisions by window source",
                "configured, or compatibility_fallback (the route's window is unknown).",
                Query(q.increase(n.BUDGET_DECISIONS.name, sel, (*ROUTE, n.LABEL_WINDOW_SOURCE)),
                      instant=True, table=True),
            ),
            timeseries_panel(
                "Reported ÷ estimated input tokens (p50, p95)",
                "Above 1: the provider counts more than our estimate, so trims come late.",
                "short",
                Query(q.quantile(0.5, n.ESTIMATE_ACCURACY, sel, ROUTE), f"p50 {route}"),
                Query(q.quantile(0.95, n.ESTIMATE_ACCURACY, sel, ROUTE), f"p95 {route}"),
            ),
            timeseries_panel(
                "Peak utilisation p95 by route",
                "95th percentile of peak request ÷ window per call.",
                "percentunit",
                Query(q.quantile(0.95, n.UTILIZATION, sel, ROUTE), "{{provider}}/{{model}}"),
            ),
            timeseries_panel(
                "Capacity checks / s",
                "Pre-dispatch checks by verdict.",
                "ops",
                Query(q.rate(n.CAPACITY_CHECKS.name, sel, (*ROUTE, n.LABEL_FITS)),
                      "{{provider}}/{{model}} fits={{fits}}"),
            ),
        ],
    )  # fmt: skip


def build() -> Dashboard:
    return assemble(
        TITLE,
        UID,
        "How each provider behaves at and past its context window (trimscope).",
        [_calls(), _classification(), _windows()],
    )
