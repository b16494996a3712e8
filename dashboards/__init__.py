"""Grafana dashboards as code (grafana-foundation-sdk, Grafana 12 build), built from the
names in ``harness.telemetry.names``. ``trimscope dashboards build`` writes the JSON that
is committed under ``dashboards/json/``, and the alerting rules of ``dashboards/alerts.yml``."""

from dashboards.alerts import ALERTS, DEFAULT_ALERTS, alerts_stale, render_alerts, write_alerts
from dashboards.build import DASHBOARDS, DEFAULT_OUT, render, render_all, stale, write_all
from dashboards.queries import PanelQuery, panel_queries, substitute, variable_selector

__all__ = [
    "ALERTS",
    "DASHBOARDS",
    "DEFAULT_ALERTS",
    "DEFAULT_OUT",
    "PanelQuery",
    "alerts_stale",
    "panel_queries",
    "render",
    "render_alerts",
    "render_all",
    "stale",
    "substitute",
    "variable_selector",
    "write_alerts",
    "write_all",
]
