"""Make the SDK's dashboards fit the Grafana release they target (``GRAFANA_VERSION``).

The grafana-foundation-sdk build we pin (its ``next`` build, see docs/decisions.md) writes
two things that Grafana's own types for that release reject (``tsc`` against
``@grafana/schema``, ``tests/dashboards/test_grafana_types.py``):

- the interval-variable fields ``auto``, ``auto_min`` and ``auto_count`` on every variable,
  whatever its type: the SDK's one ``VariableModel`` defaults them, Grafana's type has them
  nowhere (an interval variable carries them in its own, untyped, options);
- the table panel's ``options.footer``: Grafana 12.2 replaced the table footer by per-field
  footer settings and removed ``footer`` from the table panel's options.
"""

from __future__ import annotations

from grafana_foundation_sdk.models import table
from grafana_foundation_sdk.models.dashboard import Dashboard, Panel, RowPanel, VariableType


def _panels(dashboard: Dashboard) -> list[Panel]:
    """Every panel, those inside collapsed rows included."""
    found: list[Panel] = []
    for item in dashboard.panels or []:
        found.extend(item.panels if isinstance(item, RowPanel) else [item])
    return found


def fit_grafana(dashboard: Dashboard) -> Dashboard:
    """Drop what the target Grafana's types do not have, in place; returns ``dashboard``."""
    templating = dashboard.templating
    for variable in (templating.list_val if templating else None) or []:
        if variable.type_val != VariableType.INTERVAL:
            variable.auto = variable.auto_min = variable.auto_count = None
    for panel in _panels(dashboard):
        if isinstance(panel.options, table.Options):
            panel.options.footer = None
    return dashboard


__all__ = ["fit_grafana"]
