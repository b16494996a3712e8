"""Grafana dashboards as code (grafana-foundation-sdk, Grafana 12 build), built from the
names in ``harness.telemetry.names``. ``trimscope dashboards build`` writes the JSON that
is committed under ``dashboards/json/``."""

from dashboards.build import DASHBOARDS, DEFAULT_OUT, render, render_all, stale, write_all
from dashboards.queries import PanelQuery, panel_queries, substitute, variable_selector

__all__ = [
    "DASHBOARDS",
    "DEFAULT_OUT",
    "PanelQuery",
    "panel_queries",
    "render",
    "render_all",
    "stale",
    "substitute",
    "variable_selector",
    "write_all",
]
