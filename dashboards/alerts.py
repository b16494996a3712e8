"""Prometheus alerting rules as code, spelled from ``harness.telemetry.names`` only.

``trimscope dashboards build`` renders them to ``dashboards/alerts.yml``, which is committed
(a test checks it is up to date, another runs ``promtool check rules`` and the unit tests
of ``dashboards/alerts_test.yml`` with ``promtool test rules``).

The YAML is written by hand, not by a YAML library, so that this package keeps to the
standard library and the Grafana SDK: every scalar is a JSON string, which YAML reads as a
double-quoted scalar, and the layout is fixed, so the output is deterministic.

Generated rather than hand-written for the same reason as the dashboards: a metric, label
or label value renamed in ``names.py`` changes the rules with it, and the stale-file test
says the committed YAML must be rebuilt. Thresholds are module constants; an operator
tunes them here and rebuilds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from harness.telemetry import names as n

GROUP: Final = "trimscope"
DEFAULT_ALERTS: Final = Path(__file__).resolve().parent / "alerts.yml"
"""``dashboards/alerts.yml`` next to this module (the committed file)."""

TRIM_RATE_THRESHOLD: Final = 0.5
"""Trims per second, per provider and trigger, sustained over ``SPIKE_FOR``."""
UTILIZATION_QUANTILE: Final = 0.95
UTILIZATION_THRESHOLD: Final = 0.9
"""Peak request ÷ window at the quantile above which requests run "near the window"."""

RATE_WINDOW: Final = "5m"
"""The range of the rates (at least four scrapes at the usual 15 s to 1 min interval); the
compatibility-window alert uses ``FALLBACK_WINDOW``."""
REFUSAL_WINDOW: Final = "10m"
FALLBACK_WINDOW: Final = "15m"
WIRE_WINDOW: Final = "10m"
"""How long a broken pair or a poisoned session found on the wire keeps its alert firing."""
SPIKE_FOR: Final = "10m"
SUSTAINED_FOR: Final = "10m"


@dataclass(frozen=True, slots=True)
class Alert:
    """``expr`` is ``measure`` compared with ``threshold``, ``or`` the ``new_series`` clause
    when there is one."""

    name: str
    measure: str
    threshold: str
    summary: str
    description: str
    severity: str = "warning"
    for_: str = ""
    new_series: str = ""

    @property
    def expr(self) -> str:
        compared = f"{self.measure} {self.threshold}"
        return f"{compared} or {self.new_series}" if self.new_series else compared


def _sum_by(labels: Sequence[str], inner: str) -> str:
    return f"sum by ({', '.join(labels)}) ({inner})"


def _matchers(**labels: str) -> str:
    return "{" + ",".join(f'{key}="{value}"' for key, value in labels.items()) + "}"


def _rate(series: str, selector: str = "", window: str = RATE_WINDOW) -> str:
    return f"rate({series}{selector}[{window}])"


def _increase(series: str, selector: str, window: str) -> str:
    return f"increase({series}{selector}[{window}])"


def _route() -> tuple[str, str]:
    return (n.LABEL_PROVIDER, n.LABEL_MODEL)


def _recovery_failing() -> Alert:
    unrecovered = _matchers(**{n.LABEL_RECOVERED: n.bool_label(False)})
    return Alert(
        "TrimscopeOverflowRecoveryFailing",
        _sum_by((n.LABEL_PROVIDER, n.LABEL_ERROR_TYPE), _rate(n.OVERFLOWS.name, unrecovered)),
        "> 0",
        "Context overflows on {{ $labels.provider }} are not being recovered",
        "Provider context overflows ({{ $labels.error_type }}) on {{ $labels.provider }} have "
        "ended without a successful retry for "
        f"{SUSTAINED_FOR}: {{{{ $value | humanize }}}}/s. Recovery gives up when only one turn "
        "is left or the system prompt alone exceeds the budget; lower max_context_tokens or "
        "check the route's context_window.",
        severity="critical",
        for_=SUSTAINED_FOR,
    )


def _trims_spiking() -> Alert:
    return Alert(
        "TrimscopeHistoryTrimsSpiking",
        _sum_by((n.LABEL_PROVIDER, n.LABEL_TRIGGER), _rate(n.TRIMS.name)),
        f"> {TRIM_RATE_THRESHOLD}",
        "History trims ({{ $labels.trigger }}) on {{ $labels.provider }} above "
        f"{TRIM_RATE_THRESHOLD}/s",
        "{{ $labels.trigger }} trims on {{ $labels.provider }} run at "
        "{{ $value | humanize }}/s, above the threshold of "
        f"{TRIM_RATE_THRESHOLD}/s for {SPIKE_FOR}: conversations lose their oldest turns "
        "more often than usual (a smaller budget or window, or longer tool results).",
        for_=SPIKE_FOR,
    )


def _near_window() -> Alert:
    buckets = _rate(f"{n.UTILIZATION.name}_bucket")
    quantile = f"histogram_quantile({UTILIZATION_QUANTILE}, {_sum_by(('le', *_route()), buckets)})"
    percentile = round(UTILIZATION_QUANTILE * 100)
    return Alert(
        "TrimscopeRequestsNearContextWindow",
        quantile,
        f"> {UTILIZATION_THRESHOLD}",
        f"p{percentile} request size on {{{{ $labels.provider }}}}/{{{{ $labels.model }}}} "
        f"is above {UTILIZATION_THRESHOLD:.0%} of the window",
        f"The p{percentile} peak request (estimate or reported input, whichever is larger) "
        "on {{ $labels.provider }}/{{ $labels.model }} is {{ $value | humanizePercentage }} "
        f"of the context window for {SUSTAINED_FOR}: overflows and capacity refusals are "
        "close. Lower the proactive budget (context_compact_ratio or max_context_tokens).",
        for_=SUSTAINED_FOR,
    )


def _capacity_refusals() -> Alert:
    """Any refusal, the first one too: a labelled counter's series appears with its first
    increment, at 1, and ``increase`` never counts that step, so a series younger than the
    window fires through ``new_series`` (``X unless X offset window``). After a scrape gap
    longer than the window every series looks new: one spurious notification per series."""
    by = (*_route(), n.LABEL_PURPOSE)
    refusals = n.CAPACITY_REFUSALS.name
    return Alert(
        "TrimscopeCapacityRefusals",
        _sum_by(by, _increase(refusals, "", REFUSAL_WINDOW)),
        "> 0",
        "Requests refused before dispatch on {{ $labels.provider }}/{{ $labels.model }}",
        "{{ $value | humanize }} {{ $labels.purpose }} request(s) on "
        "{{ $labels.provider }}/{{ $labels.model }} were refused in the last "
        f"{REFUSAL_WINDOW} because the prepared request (messages, images and tool schemas) "
        "exceeds the context window: the turn failed. Trimming cannot help when the newest "
        "turn alone is too large.",
        new_series=_sum_by(by, f"{refusals} unless {refusals} offset {REFUSAL_WINDOW}") + " > 0",
    )


def _compatibility_window() -> Alert:
    fallback = _matchers(**{n.LABEL_WINDOW_SOURCE: n.WINDOW_SOURCE_COMPATIBILITY})
    return Alert(
        "TrimscopeContextWindowUnknown",
        _sum_by(_route(), _rate(n.BUDGET_DECISIONS.name, fallback, FALLBACK_WINDOW)),
        "> 0",
        "{{ $labels.provider }}/{{ $labels.model }} runs on the compatibility window",
        "Budget decisions for {{ $labels.provider }}/{{ $labels.model }} fall back to the "
        "32,000-token compatibility window (or max_context_tokens): the route's context_window "
        "is missing, zero, or configured for a different model. Configure it so the budget "
        "and the capacity check use the model's real window.",
        severity="info",
        for_=FALLBACK_WINDOW,
    )


def _wire_findings(kinds: Sequence[str], by: Sequence[str]) -> tuple[str, str]:
    """Any finding of ``kinds`` in ``WIRE_WINDOW``, and its ``new_series`` clause: as for
    capacity refusals, a finding's series appears with its first one, at 1, which
    ``increase`` never counts."""
    findings = n.WIRE_FINDINGS.name
    selector = "{" + f'{n.LABEL_KIND}=~"{"|".join(kinds)}"' + "}"
    new = f"{findings}{selector} unless {findings}{selector} offset {WIRE_WINDOW}"
    return _sum_by(by, _increase(findings, selector, WIRE_WINDOW)), _sum_by(by, new) + " > 0"


def _broken_tool_pairing() -> Alert:
    measure, new_series = _wire_findings(n.BROKEN_PAIR_FINDINGS, (n.LABEL_WIRE, n.LABEL_KIND))
    return Alert(
        "TrimscopeBrokenToolPairing",
        measure,
        "> 0",
        "Requests on the {{ $labels.wire }} wire break tool pairing ({{ $labels.kind }})",
        "{{ $value | humanize }} request(s) on the {{ $labels.wire }} wire in the last "
        f"{WIRE_WINDOW} broke tool pairing ({{{{ $labels.kind }}}}): a tool result without "
        "the call it answers, or a call without its result. The runtime trimmed or "
        "compacted through a tool round; providers reject such a request, or the model "
        "answers without the tool's context.",
        new_series=new_series,
    )


def _poisoned_session() -> Alert:
    measure, new_series = _wire_findings((n.FINDING_POISONED_SESSION,), (n.LABEL_WIRE,))
    return Alert(
        "TrimscopePoisonedSession",
        measure,
        "> 0",
        "A session on the {{ $labels.wire }} wire is poisoned",
        "{{ $value | humanize }} poisoned-session finding(s) on the {{ $labels.wire }} wire "
        f"in the last {WIRE_WINDOW}: the session's requests keep carrying a history the "
        "provider rejects, so every further call fails the same way until the runtime "
        "resets it. The session ids are on the findings' spans and transcript lines.",
        severity="critical",
        new_series=new_series,
    )


ALERTS: Final = (
    _recovery_failing(),
    _trims_spiking(),
    _near_window(),
    _capacity_refusals(),
    _compatibility_window(),
    _broken_tool_pairing(),
    _poisoned_session(),
)


def _q(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def render_alerts(alerts: Sequence[Alert] = ALERTS) -> str:
    """The rule file: one group, rules in ``alerts`` order, a final newline."""
    lines = [
        "# Generated by `trimscope dashboards build` from dashboards/alerts.py: do not edit.",
        "# Unit tests: dashboards/alerts_test.yml (promtool test rules).",
        "groups:",
        f"  - name: {_q(GROUP)}",
        "    rules:",
    ]
    for alert in alerts:
        lines += [f"      - alert: {_q(alert.name)}", f"        expr: {_q(alert.expr)}"]
        if alert.for_:
            lines.append(f"        for: {_q(alert.for_)}")
        lines += [
            "        labels:",
            f"          severity: {_q(alert.severity)}",
            "        annotations:",
            f"          summary: {_q(alert.summary)}",
            f"          description: {_q(alert.description)}",
        ]
    return "\n".join(lines) + "\n"


def write_alerts(
    path: Path = DEFAULT_ALERTS, write: Callable[[Path, str], None] | None = None
) -> Path:
    """Write the rule file; ``write`` (the CLI passes an atomic writer) or a plain write."""
    if write is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_alerts(), encoding="utf-8")
    else:
        write(path, render_alerts())
    return path


def alerts_stale(path: Path = DEFAULT_ALERTS) -> bool:
    """Whether ``path`` is missing or differs from what ``render_alerts`` produces now."""
    return not path.is_file() or path.read_text(encoding="utf-8") != render_alerts()
