"""Alerting rules: the committed file is what ``dashboards/alerts.py`` makes, promtool
accepts it, its unit tests (``dashboards/alerts_test.yml``) pass, and every rule is
complete. That every alert queries only exported metrics is checked with the dashboards'
queries in ``test_dashboards.py``."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import promql_parser
import pytest
import yaml

from dashboards import ALERTS, DEFAULT_ALERTS, alerts_stale, render_alerts
from tests.dashboards.conftest import AlertRule, alert_rules, require_program

UNIT_TESTS = DEFAULT_ALERTS.parent / "alerts_test.yml"
RULES = alert_rules()
SEVERITIES = {"critical", "warning", "info"}


def test_committed_rules_are_what_the_code_makes() -> None:
    assert not alerts_stale(), "run `trimscope dashboards build` and commit dashboards/alerts.yml"


def test_rendering_is_deterministic_yaml_of_every_alert() -> None:
    assert render_alerts() == render_alerts()
    assert [rule.name for rule in RULES] == [alert.name for alert in ALERTS]
    assert [rule.expr for rule in RULES] == [alert.expr for alert in ALERTS]


@pytest.mark.parametrize("rule", RULES, ids=[rule.name for rule in RULES])
def test_every_rule_parses_and_is_complete(rule: AlertRule) -> None:
    body = rule.rule
    promql_parser.parse(body["expr"])
    assert re.fullmatch(r"Trimscope[A-Z][A-Za-z]+", body["alert"])
    assert body["labels"]["severity"] in SEVERITIES
    assert set(body["annotations"]) == {"summary", "description"}
    assert "for" not in body or re.fullmatch(r"\d+[smh]", body["for"])


def test_every_alert_has_unit_tests_firing_and_not_firing() -> None:
    """Each alert appears in alerts_test.yml with at least one case expecting it and one
    expecting nothing (promtool itself checks the cases hold)."""
    document = yaml.safe_load(UNIT_TESTS.read_text(encoding="utf-8"))
    assert document["rule_files"] == [DEFAULT_ALERTS.name]
    firing: set[str] = set()
    quiet: set[str] = set()
    for test in document["tests"]:
        for case in test["alert_rule_test"]:
            (firing if case.get("exp_alerts") else quiet).add(case["alertname"])
    names = {rule.name for rule in RULES}
    assert firing == names
    assert quiet == names


def _promtool(*args: str | Path) -> subprocess.CompletedProcess[str]:
    promtool = require_program("promtool")
    return subprocess.run(
        [promtool, *map(str, args)], capture_output=True, text=True, timeout=60, check=False
    )


def test_promtool_check_rules() -> None:
    done = _promtool("check", "rules", DEFAULT_ALERTS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(ALERTS)} rules found" in done.stdout


def test_promtool_test_rules() -> None:
    done = _promtool("test", "rules", UNIT_TESTS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_promtool_test_rules_catches_a_changed_threshold(tmp_path: Path) -> None:
    """The unit tests bite: raising the trim threshold breaks a firing case."""
    broken = DEFAULT_ALERTS.read_text(encoding="utf-8").replace(
        "(rate(trimscope_history_trims_total[5m])) > 0.5",
        "(rate(trimscope_history_trims_total[5m])) > 0.7",
    )
    assert broken != DEFAULT_ALERTS.read_text(encoding="utf-8")
    (tmp_path / DEFAULT_ALERTS.name).write_text(broken, encoding="utf-8")
    (tmp_path / UNIT_TESTS.name).write_text(UNIT_TESTS.read_text(encoding="utf-8"))
    done = _promtool("test", "rules", tmp_path / UNIT_TESTS.name)
    assert done.returncode == 1
    assert "TrimscopeHistoryTrimsSpiking" in done.stdout + done.stderr
