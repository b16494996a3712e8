"""The "runtime on the wire" dashboard: what a runtime watched through ``trimscope proxy``
did to its history, next to the reference agent (``source``: ``wire`` or ``agent``).

Trims, compactions and provider edits; broken tool pairs and rows a trim must never touch;
overflows and poisoned sessions; cache loss. The reference's families are summed by
``source`` so both sides show; the wire observer's own (``trimscope_wire_*``) by finding
kind and wire format. They carry no provider label, so they are selected by job only.
"""

from __future__ import annotations

from collections.abc import Sequence

from grafana_foundation_sdk.models.dashboard import Dashboard

from dashboards import promql as q
from dashboards.panels import Query, Section, assemble, stat_panel, timeseries_panel
from harness.telemetry import names as n

UID = "trimscope-wire"
TITLE = "trimscope: runtime on the wire"
SOURCE = (n.LABEL_SOURCE,)
BY_KIND = (n.LABEL_KIND, n.LABEL_WIRE)
WIRE_HELP = "Findings of the wire observer (trimscope proxy --wire KIND), by kind and wire format."


def _kinds(kinds: Sequence[str]) -> str:
    """A ``kind`` matcher for the findings of ``kinds``."""
    return f'{n.LABEL_KIND}=~"{"|".join(kinds)}"'


def _findings(kinds: Sequence[str], by: Sequence[str] = BY_KIND) -> str:
    return q.rate(n.WIRE_FINDINGS.name, q.job_selector(_kinds(kinds)), by)


def _trimming() -> Section:
    sel = q.selector()
    return (
        "Trims and compactions",
        [
            timeseries_panel(
                "History trims / s by source",
                "One per HistoryTrimmed: the reference agent's (source agent, by trigger) and "
                "the trims the wire observer reads from a runtime's requests (trigger wire).",
                "ops",
                Query(q.rate(n.TRIMS.name, sel, (n.LABEL_SOURCE, n.LABEL_TRIGGER)),
                      "{{source}} {{trigger}}"),
            ),
            timeseries_panel(
                "Compactions and provider edits / s",
                "Compactions the runtime made of its own history (wire findings), and the "
                "edits providers report making (ProviderContextEdited), by source. " + WIRE_HELP,
                "ops",
                Query(_findings([n.FINDING_COMPACTION]), "compaction {{wire}}"),
                Query(q.rate(n.PROVIDER_EDITS.name, sel, (n.LABEL_EDIT, n.LABEL_SOURCE)),
                      "provider {{edit}} ({{source}})"),
            ),
            timeseries_panel(
                "Dropped messages per trim (p50, p95) by source",
                "Messages one trim removed. On the wire, also per finding kind (trim, "
                "compaction) where the observer counts them.",
                "short",
                Query(q.quantile(0.5, n.DROPPED_MESSAGES, sel, SOURCE), "p50 {{source}}"),
                Query(q.quantile(0.95, n.DROPPED_MESSAGES, sel, SOURCE), "p95 {{source}}"),
                Query(q.quantile(0.95, n.WIRE_DROPPED_MESSAGES, q.job_selector(), (n.LABEL_KIND,)),
                      "p95 wire {{kind}}"),
            ),
            timeseries_panel(
                "Wire findings / s by kind",
                "Every finding, whatever its kind. " + WIRE_HELP,
                "ops",
                Query(q.rate(n.WIRE_FINDINGS.name, q.job_selector(), BY_KIND),
                      "{{kind}} {{wire}}"),
            ),
        ],
    )  # fmt: skip


def _broken() -> Section:
    poisoned = q.job_selector(_kinds([n.FINDING_POISONED_SESSION]))
    return (
        "Broken history",
        [
            timeseries_panel(
                "Broken tool pairs / s",
                "Requests carrying a tool result without its call (orphan_tool_result) or a "
                "call without its result (orphan_tool_call): a trim or compaction cut through "
                "a tool round. Alert: TrimscopeBrokenToolPairing.",
                "ops",
                Query(_findings(n.BROKEN_PAIR_FINDINGS), "{{kind}} {{wire}}"),
                width=8,
            ),
            timeseries_panel(
                "System and user rows lost / s",
                "The system prompt dropped or changed, user messages dropped, turns out of "
                "order: rows a history trim must never touch.",
                "ops",
                Query(_findings(n.LOST_ROW_FINDINGS), "{{kind}} {{wire}}"),
                width=8,
            ),
            stat_panel(
                "Poisoned session findings",
                "Over the range: sessions whose requests keep carrying a history the provider "
                "rejects. Alert: TrimscopePoisonedSession.",
                "short",
                Query(q.increase(n.WIRE_FINDINGS.name, poisoned), instant=True),
            ),
        ],
    )


def _overflows() -> Section:
    sel = q.selector()
    return (
        "Overflows",
        [
            timeseries_panel(
                "Overflows / s by source",
                "Provider errors classified as a context overflow (one per OverflowDetected), "
                "and the runtime's retries after one (overflow_retry findings).",
                "ops",
                Query(q.rate(n.OVERFLOW_VERDICTS.name, sel, (n.LABEL_PROVIDER, n.LABEL_SOURCE)),
                      "{{provider}} ({{source}})"),
                Query(_findings([n.FINDING_OVERFLOW_RETRY]), "retry {{wire}}"),
            ),
            timeseries_panel(
                "Overflows settled / s by recovery and source",
                "recovered=true when the session's next call succeeded.",
                "ops",
                Query(q.rate(n.OVERFLOWS.name, sel, (n.LABEL_RECOVERED, n.LABEL_SOURCE)),
                      "recovered={{recovered}} ({{source}})"),
            ),
        ],
    )  # fmt: skip


def _cache() -> Section:
    sel = q.selector()
    read = q.selector(f'{n.LABEL_CACHE}="{n.CACHE_READ}"')
    breaks = q.job_selector(_kinds([n.FINDING_CACHE_BREAK]))
    return (
        "Prompt cache",
        [
            timeseries_panel(
                "Cache loss: tokens / s by source",
                "The agent's: tokens of the last request a trim no longer shares as a prefix. "
                "The wire's: tokens_before - tokens_after of each cache break, where the "
                "observer counts them (the request stopped sharing the previous one's prefix).",
                "short",
                Query(q.rate(n.CACHE_LOSS.name, sel, SOURCE), "trims ({{source}})"),
                Query(q.rate(n.WIRE_REMOVED_TOKENS.name, breaks, (n.LABEL_WIRE,)),
                      "cache breaks {{wire}}"),
                width=8,
            ),
            timeseries_panel(
                "Cache breaks / s",
                "Requests that stopped sharing the previous request's prefix. " + WIRE_HELP,
                "ops",
                Query(_findings([n.FINDING_CACHE_BREAK]), "{{wire}}"),
                width=8,
            ),
            timeseries_panel(
                "Cache hit ratio by source",
                "Share of reported input tokens read from the provider's prompt cache.",
                "percentunit",
                Query(q.ratio(q.rate(n.INPUT_TOKENS.name, read, SOURCE),
                              q.rate(n.INPUT_TOKENS.name, sel, SOURCE)), "{{source}}"),
                width=8,
            ),
        ],
    )  # fmt: skip


def _observer() -> Section:
    return (
        "Observer",
        [
            timeseries_panel(
                "Unobservable exchanges / s",
                "Requests or answers the observer could not read (not the wire format, too "
                "large): what it reports is a floor for them.",
                "ops",
                Query(_findings([n.FINDING_UNOBSERVABLE]), "{{wire}}"),
            ),
        ],
    )


def build() -> Dashboard:
    return assemble(
        TITLE,
        UID,
        "What a runtime seen through trimscope proxy did to its history, by source.",
        [_trimming(), _broken(), _overflows(), _cache(), _observer()],
    )
