"""Dashboards as code: the committed JSON is what the builders make, validates against the
Grafana schemas, and queries only metrics the code exports, in PromQL that parses.

The Grafana JSON Schemas are made from Grafana's published TypeScript types when the tools
are installed (``scripts/ensure-ts-tools.sh`` writes them into ``.tools/ts``, run by
``make test``); without them the schema test skips, and under ``CI=true`` it fails."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import promql_parser
import pytest
from jsonschema import Draft7Validator
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7
from typer.testing import CliRunner

from dashboards import (
    DASHBOARDS,
    DEFAULT_ALERTS,
    DEFAULT_OUT,
    render_alerts,
    render_all,
    stale,
    substitute,
)
from harness.cli import app
from harness.pricing.table import ModelPrice
from harness.telemetry import PrometheusObserver
from harness.telemetry import names as n
from harness.telemetry.cost import CostObserver
from tests.dashboards.conftest import ROOT, alert_rules, all_queries
from tests.telemetry.scripted import every_kind_session

SCHEMAS = ROOT / ".tools" / "ts" / "grafana-jsonschemas"
QUERIES = all_queries()
ALERT_RULES = alert_rules()


def test_committed_json_is_what_the_builders_make() -> None:
    assert sorted(p.name for p in DEFAULT_OUT.glob("*.json")) == sorted(DASHBOARDS)
    assert stale() == [], "run `trimscope dashboards build` and commit dashboards/json/"


def test_the_cli_writes_the_committed_files(tmp_path: Path) -> None:
    runner = CliRunner()
    rules = tmp_path / "alerts.yml"
    build = ["dashboards", "build", "--out", str(tmp_path), "--alerts", str(rules)]
    build += ["--provisioning", str(tmp_path / "provisioning")]
    result = runner.invoke(app, build)
    assert result.exit_code == 0, result.output
    for name, text in render_all().items():
        assert (tmp_path / name).read_text() == text == (DEFAULT_OUT / name).read_text()
    assert rules.read_text() == render_alerts() == DEFAULT_ALERTS.read_text()
    assert runner.invoke(app, [*build, "--check"]).exit_code == 0
    rules.write_text("groups: []\n")
    stale_rules = runner.invoke(app, [*build, "--check"])
    assert stale_rules.exit_code == 1
    assert "alerts.yml" in stale_rules.output
    rules.write_text(render_alerts())
    (tmp_path / next(iter(DASHBOARDS))).write_text("{}\n")
    assert runner.invoke(app, [*build, "--check"]).exit_code == 1


def _schemas() -> Path:
    """The folder of generated schemas; skip without it, fail under ``CI=true``."""
    if (SCHEMAS / "dashboard.jsonschema.json").is_file():
        return SCHEMAS
    message = f"Grafana JSON Schemas not found in {SCHEMAS}: run scripts/ensure-ts-tools.sh"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message} (needs npm); CI must validate the dashboards")
    pytest.skip(f"{message} (needs npm)")


def _schema_registry() -> Registry:
    resources = [
        (path.name, Resource.from_contents(json.loads(path.read_text()), DRAFT7))
        for path in sorted(SCHEMAS.glob("*.jsonschema.json"))
    ]
    return Registry().with_resources(resources)


def _errors(registry: Registry, ref: str, instance: Any) -> list[str]:
    validator = Draft7Validator({"$ref": ref}, registry=registry)
    return [f"{e.json_path}: {e.message}" for e in validator.iter_errors(instance)]


def schema_errors(board: dict[str, Any]) -> list[str]:
    """What the Grafana JSON Schemas reject in ``board``: the dashboard, each panel's
    ``options`` and ``fieldConfig.defaults.custom`` (where its plugin types them, as for tsc)
    and each Prometheus target."""
    folder = _schemas()
    registry = _schema_registry()
    errors = _errors(registry, "dashboard.jsonschema.json", board)
    for panel in board["panels"]:
        if panel["type"] == "row":
            continue
        plugin = f"{panel['type']}.jsonschema.json"
        assert (folder / plugin).is_file(), f"no schema for panel type {panel['type']}"
        typed = json.loads((folder / plugin).read_text())["definitions"]
        where = f"{panel['title']}: "
        errors += [
            where + e
            for e in _errors(registry, f"{plugin}#/definitions/Options", panel.get("options", {}))
        ]
        custom = panel.get("fieldConfig", {}).get("defaults", {}).get("custom")
        if custom is not None and "FieldConfig" in typed:
            errors += [
                where + e for e in _errors(registry, f"{plugin}#/definitions/FieldConfig", custom)
            ]
        for target in panel["targets"]:
            errors += [where + e for e in _errors(registry, "prometheus.jsonschema.json", target)]
    return errors


@pytest.mark.parametrize("name", sorted(DASHBOARDS))
def test_json_validates_against_the_grafana_schemas(name: str) -> None:
    assert schema_errors(json.loads((DEFAULT_OUT / name).read_text())) == []


def test_a_field_grafana_lacks_is_a_schema_error() -> None:
    """One foreign field at each level the schemas check (dashboard, panel options, custom
    field config, Prometheus target): each is refused, and named."""
    name = next(iter(DASHBOARDS))
    board = json.loads((DEFAULT_OUT / name).read_text())
    assert schema_errors(board) == []
    board["noSuchDashboardField"] = 1
    panel = next(p for p in board["panels"] if p["type"] == "timeseries")
    panel["fieldConfig"]["defaults"]["custom"] = {"lineWidth": 2}  # typed, and fits
    only = "$: Additional properties are not allowed ('noSuchDashboardField' was unexpected)"
    assert schema_errors(board) == [only]
    panel["options"]["noSuchOption"] = True
    panel["fieldConfig"]["defaults"]["custom"]["noSuchCustom"] = True
    panel["targets"][0]["noSuchTargetField"] = "x"
    errors = schema_errors(board)
    for field in ("noSuchDashboardField", "noSuchOption", "noSuchCustom", "noSuchTargetField"):
        assert any(field in e for e in errors), (field, errors)


def test_the_schemas_come_from_the_installed_grafana_types() -> None:
    """Made by scripts/ts/grafana-jsonschemas.cjs from the pinned packages: the dashboard,
    the Prometheus query and each panel type the dashboards use, with a typed ``Options``."""
    folder = _schemas()
    used = {p["type"] for b in render_all().values() for p in json.loads(b)["panels"]}
    for kind in sorted(used - {"row"}):
        assert (
            "Options" in json.loads((folder / f"{kind}.jsonschema.json").read_text())["definitions"]
        ), kind
    dashboard = json.loads((folder / "dashboard.jsonschema.json").read_text())
    assert dashboard["$ref"] == "#/definitions/Dashboard"
    assert dashboard["definitions"]["Dashboard"]["additionalProperties"] is False
    query = json.loads((folder / "prometheus.jsonschema.json").read_text())
    assert {"expr", "refId"} <= set(query["definitions"]["dataquery"]["required"])


@pytest.mark.parametrize("query", QUERIES, ids=[q.where for q in QUERIES])
def test_every_promql_expression_parses(query: Any) -> None:
    promql_parser.parse(substitute(query.expr))


def _metric_names(expr: str) -> set[str]:
    found: set[str] = set()

    def visit(node: object) -> None:
        if isinstance(node, promql_parser.VectorSelector) and node.name:
            found.add(node.name)

    promql_parser.walk(promql_parser.parse(substitute(expr)), visit)
    return found


def _queried() -> set[str]:
    return set().union(*(_metric_names(q.expr) for q in QUERIES))


def _alerted() -> set[str]:
    return set().union(*(_metric_names(rule.expr) for rule in ALERT_RULES))


def _declared() -> set[str]:
    names: set[str] = set()
    for spec in (*n.METRICS, *n.COST_METRICS):
        if spec.type == "histogram":
            names |= {f"{spec.name}_bucket", f"{spec.name}_sum", f"{spec.name}_count"}
        else:
            names.add(spec.name)
    return names


_PRICE = ModelPrice(input=1.0, cached_input=0.1, cache_write=1.25, output=4.0)


def _exposed() -> set[str]:
    registry = CollectorRegistry()
    # with a price table, as the cost panels need (every model priced alike)
    observers = (PrometheusObserver(registry), CostObserver(registry, lambda _: _PRICE))
    for event in every_kind_session():  # one event of each kind, and more
        for observer in observers:
            observer.on_event(event)
    text = generate_latest(registry).decode()
    return {s.name for f in text_string_to_metric_families(text) for s in f.samples}


@pytest.mark.parametrize("source", ["dashboards", "alerts"])
def test_every_queried_metric_is_declared_in_names(source: str) -> None:
    queried = _queried() if source == "dashboards" else _alerted()
    assert queried
    assert queried - _declared() == set()


@pytest.mark.parametrize("source", ["dashboards", "alerts"])
def test_every_queried_metric_is_exposed_by_the_observer(source: str) -> None:
    queried = _queried() if source == "dashboards" else _alerted()
    assert queried - _exposed() == set()


def test_panel_ids_are_unique_and_targets_have_ref_ids(boards: dict[str, Any]) -> None:
    for board in boards.values():
        ids = [panel["id"] for panel in board["panels"]]
        assert len(ids) == len(set(ids))
        assert 0 not in ids
        for panel in board["panels"]:
            refs = [t["refId"] for t in panel.get("targets", [])]
            assert len(refs) == len(set(refs))


def test_every_panel_reads_the_datasource_variable(boards: dict[str, Any]) -> None:
    for board in boards.values():
        names = [v["name"] for v in board["templating"]["list"]]
        assert names == ["datasource", "job", "provider"]
        for panel in board["panels"]:
            if panel["type"] != "row":
                assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}


def test_the_overview_has_the_panels_operators_asked_for(boards: dict[str, Any]) -> None:
    overview = boards["trimscope-overview.json"]
    types = {p["title"]: p["type"] for p in overview["panels"]}
    assert types["Context utilisation (peak request ÷ window, per call)"] == "heatmap"
    exprs = " ".join(q.expr for q in QUERIES if q.dashboard == "trimscope-overview")
    for spec in (
        n.TRIMS,
        n.DROPPED_TURNS,
        n.UTILIZATION,
        n.BUDGET_TOKENS,
        n.WINDOW_TOKENS,
        n.OVERFLOWS,
        n.RECOVERIES,
        n.CAPACITY_REFUSALS,
        n.GEN_AI_DURATION,
        n.GEN_AI_TOKEN_USAGE,
    ):
        assert spec.name in exprs


def test_the_wire_dashboard_shows_what_the_issue_asked_for_by_source_and_wire(
    boards: dict[str, Any],
) -> None:
    """Trims, compactions, broken pairs, overflows, poisoned sessions and cache loss: the
    reference's families summed by source, the wire findings by wire format."""
    assert "trimscope-wire.json" in boards
    exprs = [q.expr for q in QUERIES if q.dashboard == "trimscope-wire"]
    by_source = f"{n.LABEL_SOURCE}"
    for spec in (n.TRIMS, n.OVERFLOW_VERDICTS, n.CACHE_LOSS, n.PROVIDER_EDITS):
        assert any(spec.name in e and by_source in e.split("(")[1] for e in exprs), spec.name
    for kind in (
        n.FINDING_COMPACTION,
        *n.BROKEN_PAIR_FINDINGS,
        n.FINDING_POISONED_SESSION,
        n.FINDING_CACHE_BREAK,
    ):
        assert any(n.WIRE_FINDINGS.name in e and kind in e for e in exprs), kind
    by_wire = [e for e in exprs if n.WIRE_FINDINGS.name in e and e.startswith("sum by")]
    assert by_wire
    assert all(n.LABEL_WIRE in e.split("(")[1] for e in by_wire)


def test_no_panel_of_the_existing_dashboards_leaves_the_wire_out() -> None:
    """A proxied runtime shows on the existing dashboards without edits: none of their
    queries selects a source, so the wire's series are summed in with the agent's."""
    existing = [q for q in QUERIES if q.dashboard != "trimscope-wire"]
    assert existing
    assert not [q.where for q in existing if f"{n.LABEL_SOURCE}=" in q.expr]
    variables = [q for q in QUERIES if q.ref_id == "variable"]
    assert variables
    # the job and provider lists come from every trimscope series, not the agent's only
    assert all("trimscope_.*" in q.expr for q in variables)
