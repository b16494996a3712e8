"""Reading the PromQL back out of dashboard JSON, and making it runnable outside Grafana.

``panel_queries`` lists every target expression and every query variable of a dashboard;
``substitute`` replaces Grafana's macros and template variables so that a PromQL parser,
``promtool`` or a real Prometheus can evaluate the expression.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

DEFAULT_MACROS: Final[dict[str, str]] = {
    "__rate_interval": "1m",
    "__interval": "15s",
    "__range": "5m",
    "__range_s": "300",
    "__range_ms": "300000",
    "__interval_ms": "15000",
}
ALL: Final = ".*"
"""What a multi-value variable set to "All" expands to (the dashboards' ``allValue``)."""

_VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]")
_LABEL_VALUES = re.compile(r"^\s*label_values\((?:(?P<selector>.+),\s*)?(?P<label>\w+)\)\s*$")


@dataclass(frozen=True, slots=True)
class PanelQuery:
    dashboard: str
    panel: str
    ref_id: str
    expr: str

    @property
    def where(self) -> str:
        return f"{self.dashboard} / {self.panel} / {self.ref_id}"


def substitute(expr: str, variables: Mapping[str, str] | None = None) -> str:
    """Replace ``$__rate_interval``-style macros and ``$var``/``${var}``/``[[var]]``.

    Unknown variables become ``.*`` (the "All" value), which is what they are in every
    regex matcher of these dashboards.
    """
    values = {**DEFAULT_MACROS, **(variables or {})}

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2) or match.group(3)
        return values.get(name, ALL)

    return _VARIABLE.sub(replace, expr)


def variable_selector(query: str) -> str | None:
    """The series selector inside ``label_values(selector, label)``, if any."""
    match = _LABEL_VALUES.match(query)
    return match.group("selector") if match else None


def panel_queries(board: Mapping[str, Any]) -> Iterator[PanelQuery]:
    """Every target expression of every panel (rows' nested panels too), then each query
    variable's ``label_values`` selector."""
    title = str(board.get("uid", board.get("title", "?")))
    for panel in _panels(board.get("panels", [])):
        for target in panel.get("targets", []):
            if "expr" in target:
                yield PanelQuery(
                    title, panel.get("title", "?"), target.get("refId", "?"), target["expr"]
                )
    for variable in board.get("templating", {}).get("list", []):
        if variable.get("type") == "query":
            selector = variable_selector(str(variable.get("query", "")))
            if selector:
                yield PanelQuery(title, f"${variable['name']}", "variable", selector)


def _panels(panels: list[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    for panel in panels:
        yield panel
        yield from _panels(panel.get("panels", []))
