"""The dashboards as TypeScript that Grafana's own published types must accept.

Grafana publishes its dashboard and panel schemas as TypeScript (``@grafana/schema`` on
npm). ``typescript_module`` writes one dashboard's JSON as a TypeScript module whose
values are typed by them: the dashboard as ``Dashboard`` (variables, annotations, links,
time settings, panel frames), each panel's ``options`` as that panel plugin's ``Options``
and its ``fieldConfig.defaults.custom`` as the plugin's ``FieldConfig``. Object literals
get TypeScript's excess-property check, so a field Grafana's types do not have is an
error, as is a wrong type. ``tests/dashboards/test_grafana_types.py`` runs ``tsc`` on them.
"""

from __future__ import annotations

import json
from typing import Any, Final

GRAFANA_VERSION: Final = "12.4.11"
"""The Grafana release the dashboards target: its ``@grafana/schema`` is what ``tsc``
checks against (pinned in ``scripts/ts/package.json``); see docs/decisions.md."""

SCHEMA_PACKAGE: Final = "@grafana/schema"
_COMPOSABLE: Final = f"{SCHEMA_PACKAGE}/dist/types/raw/composable"

PANEL_TYPES: Final[dict[str, tuple[str, bool]]] = {
    "heatmap": ("heatmap/panelcfg/x/types.gen", True),
    "stat": ("stat/panelcfg/x/types.gen", False),
    "table": ("table/panelcfg/x/types.gen", True),
    "timeseries": ("timeseries/panelcfg/x/types.gen", True),
}
"""Panel type → (its ``@grafana/schema`` module under ``raw/composable``, whether that
module has a ``FieldConfig``: the stat panel's custom field config is untyped)."""

ROW: Final = "row"

WIRE: Final = """\
// A type as its JSON travels: Grafana's string enums (LegendDisplayMode.Table) are their
// values ('table') in a dashboard's JSON. Everything else is kept, optional fields and the
// excess-property check included.
type Wire<T> = T extends string
  ? `${T}`
  : T extends number | boolean | null | undefined
    ? T
    : T extends ReadonlyArray<infer U>
      ? Array<Wire<U>>
      : { [K in keyof T]: Wire<T[K]> };
"""


class UnknownPanelType(ValueError):
    """A dashboard uses a panel type ``PANEL_TYPES`` does not map to Grafana's types."""


def _ref(name: str) -> str:
    """A placeholder that ``_unquote`` turns into a bare TypeScript identifier."""
    return f"@@{name}@@"


def _unquote(text: str) -> str:
    return text.replace('"@@', "").replace('@@"', "")


def _literal(value: Any) -> str:
    return _unquote(json.dumps(value, indent=2, sort_keys=True))


def _panel(index: int, panel: dict[str, Any], out: list[str]) -> str:
    """Declare panel ``index`` (its options and custom field config typed by its plugin)
    in ``out``; the identifier of the panel."""
    kind = panel.get("type")
    name = f"panel{index}"
    if kind == ROW:
        out.append(f"const {name}: Wire<RowPanel> = {_literal(panel)};\n")
        return name
    if kind not in PANEL_TYPES:
        raise UnknownPanelType(f"panel {panel.get('title')!r}: type {kind!r} has no mapping")
    _, typed_custom = PANEL_TYPES[kind]
    frame = dict(panel)
    if "options" in panel:
        out.append(f"const {name}Options: Wire<{kind}.Options> = {_literal(panel['options'])};\n")
        frame["options"] = _ref(f"{name}Options")
    defaults = panel.get("fieldConfig", {}).get("defaults", {})
    if typed_custom and "custom" in defaults:
        custom = _literal(defaults["custom"])
        out.append(f"const {name}Custom: Wire<{kind}.FieldConfig> = {custom};\n")
        field_config = dict(panel["fieldConfig"])
        field_config["defaults"] = {**defaults, "custom": _ref(f"{name}Custom")}
        frame["fieldConfig"] = field_config
    out.append(f"const {name}: Wire<Panel> = {_literal(frame)};\n")
    return name


def typescript_module(board: dict[str, Any]) -> str:
    """One dashboard's JSON as a TypeScript module typed by ``@grafana/schema``."""
    kinds = sorted({p.get("type") for p in board.get("panels", [])} - {ROW})
    lines = [
        f"// Generated from a trimscope dashboard; checked against Grafana {GRAFANA_VERSION}.\n",
        f"import type {{ Dashboard, Panel, RowPanel }} from '{SCHEMA_PACKAGE}';\n",
        WIRE,
    ]
    lines += [
        f"import type * as {kind} from '{_COMPOSABLE}/{PANEL_TYPES[kind][0]}';\n"
        for kind in kinds
        if kind in PANEL_TYPES
    ]
    names = [_panel(i, panel, lines) for i, panel in enumerate(board.get("panels", []))]
    frame = {**board, "panels": [_ref(name) for name in names]}
    lines.append(f"export const dashboard: Wire<Dashboard> = {_literal(frame)};\n")
    return "".join(lines)


__all__ = ["GRAFANA_VERSION", "PANEL_TYPES", "UnknownPanelType", "typescript_module"]
