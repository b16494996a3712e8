"""Panel and dashboard builders shared by the dashboards (grafana-foundation-sdk).

Every panel sets the options its plugin schema requires, so the JSON validates against the
SDK's JSON Schemas, and every target gets an explicit ``refId``. Panel ids are assigned in
order by ``assemble``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

from grafana_foundation_sdk.builders import common as common_builders
from grafana_foundation_sdk.builders import dashboard, heatmap, prometheus, stat, table, timeseries
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models.dashboard import Dashboard, VariableRefresh
from grafana_foundation_sdk.models.prometheus import PromQueryFormat

from harness.telemetry import names as n

DATASOURCE_VARIABLE: Final = "datasource"
DATASOURCE: Final = common.DataSourceRef(type_val="prometheus", uid="${datasource}")
REF_IDS: Final = "ABCDEFGHIJ"
TAGS: Final = ["trimscope", "llm-agent", "context-trimming"]
VARIABLE_SOURCE: Final = '__name__=~"trimscope_.*"'
"""The matcher of the series that list jobs and providers: every trimscope series. A route
of the agent resolves a budget before its first call, but a runtime seen on the wire
resolves none, so no single family lists both."""

Panel: TypeAlias = timeseries.Panel | heatmap.Panel | stat.Panel | table.Panel


@dataclass(frozen=True, slots=True)
class Query:
    expr: str
    legend: str = "__auto"
    instant: bool = False
    table: bool = False


def _targets(panel: Panel, queries: Sequence[Query]) -> None:
    for ref_id, query in zip(REF_IDS, queries, strict=False):
        target = prometheus.Dataquery().expr(query.expr).legend_format(query.legend).ref_id(ref_id)
        if query.instant:
            target = target.instant()
        if query.table:
            target = target.format(PromQueryFormat.TABLE)
        panel.with_target(target)


def timeseries_panel(
    title: str,
    description: str,
    unit: str,
    *queries: Query,
    width: int = 12,
    floor_at_zero: bool = True,
) -> timeseries.Panel:
    """``floor_at_zero``: the y axis starts at 0 (off for a series that may go below)."""
    panel = (
        timeseries.Panel()
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .unit(unit)
        .span(width)
        .legend(
            common_builders.VizLegendOptions()
            .display_mode(common.LegendDisplayMode.TABLE)
            .placement(common.LegendPlacement.BOTTOM)
            .show_legend(True)
            .calcs(["lastNotNull", "max"])
        )
        .tooltip(
            common_builders.VizTooltipOptions()
            .mode(common.TooltipDisplayMode.MULTI)
            .sort(common.SortOrder.DESCENDING)
        )
    )
    if floor_at_zero:
        panel.min(0)
    _targets(panel, queries)
    return panel


def heatmap_panel(title: str, description: str, expr: str) -> heatmap.Panel:
    """A heatmap of pre-bucketed histogram counts (Prometheus ``format=heatmap``)."""
    panel = (
        heatmap.Panel()
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .span(12)
        .calculate(False)
        .y_axis(heatmap.YAxisConfig().unit("percentunit"))
        .show_legend()
        .mode(common.TooltipDisplayMode.SINGLE)
        .exemplars_color("rgba(255,0,255,0.7)")
        .show_value(common.VisibilityMode.AUTO)
        .color(heatmap.HeatmapColorOptions().scheme("Oranges").steps(64))
    )
    target = (
        prometheus.Dataquery()
        .expr(expr)
        .legend_format("{{le}}")
        .format(PromQueryFormat.HEATMAP)
        .ref_id(REF_IDS[0])
    )
    return panel.with_target(target)


def stat_panel(title: str, description: str, unit: str, query: Query) -> stat.Panel:
    panel = (
        stat.Panel()
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .unit(unit)
        .span(6)
        .graph_mode(common.BigValueGraphMode.NONE)
        .color_mode(common.BigValueColorMode.VALUE)
        .justify_mode(common.BigValueJustifyMode.AUTO)
        .text_mode(common.BigValueTextMode.AUTO)
        .wide_layout(True)
        .show_percent_change(False)
        .percent_change_color_mode(common.PercentChangeColorMode.STANDARD)
        .orientation(common.VizOrientation.AUTO)
        .reduce_options(common_builders.ReduceDataOptions().calcs(["lastNotNull"]))
    )
    _targets(panel, [query])
    return panel


def table_panel(title: str, description: str, *queries: Query) -> table.Panel:
    panel = (
        table.Panel()
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .span(12)
        .frame_index(0)
        .show_header(True)
    )
    _targets(panel, queries)
    return panel


def variables() -> list[dashboard.DatasourceVariable | dashboard.QueryVariable]:
    """``$datasource``, then ``$job`` and ``$provider`` (multi-value, "All" is ``.*``)."""
    source = dashboard.DatasourceVariable(DATASOURCE_VARIABLE).label("Data source")
    job = _query_variable("job", "Job", f"label_values({{{VARIABLE_SOURCE}}}, job)")
    provider = _query_variable(
        "provider",
        "Provider",
        f'label_values({{{VARIABLE_SOURCE},job=~"$job"}}, {n.LABEL_PROVIDER})',
    )
    return [source.type("prometheus"), job, provider]


def _query_variable(name: str, label: str, query: str) -> dashboard.QueryVariable:
    return (
        dashboard.QueryVariable(name)
        .label(label)
        .query(query)
        .datasource(DATASOURCE)
        .include_all(True)
        .all_value(".*")
        .multi(True)
        .refresh(VariableRefresh.ON_TIME_RANGE_CHANGED)
    )


Section: TypeAlias = tuple[str, Sequence[Panel]]


def assemble(title: str, uid: str, description: str, sections: Sequence[Section]) -> Dashboard:
    """A dashboard of titled rows; panel ids are 1, 2, ... in reading order."""
    board = (
        dashboard.Dashboard(title)
        .uid(uid)
        .description(description)
        .tags(TAGS)
        .editable()
        .refresh("30s")
        .time("now-1h", "now")
        .timezone(common.TimeZoneBrowser)
    )
    for variable in variables():
        board = board.with_variable(variable)
    next_id = 1
    for row_title, panels in sections:
        board = board.with_row(dashboard.Row(row_title).id(next_id))
        next_id += 1
        for panel in panels:
            board = board.with_panel(panel.id(next_id))
            next_id += 1
    return board.build()
