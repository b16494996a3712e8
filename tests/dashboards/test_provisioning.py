"""Grafana provisioning files and the example Prometheus configuration: committed as the
code makes them, consistent with the dashboards, and accepted by ``promtool``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from dashboards import DEFAULT_ALERTS
from dashboards.provisioning import (
    DEFAULT_PROVISIONING,
    provisioning_stale,
    render_provisioning,
)
from harness.cli import app
from tests.dashboards.conftest import committed, require_program

PROMETHEUS_CONFIG = DEFAULT_PROVISIONING / "prometheus" / "prometheus.yml"


def _yaml(name: str) -> Any:
    return yaml.safe_load((DEFAULT_PROVISIONING / name).read_text(encoding="utf-8"))


def test_committed_files_are_what_the_code_makes() -> None:
    found = {
        str(p.relative_to(DEFAULT_PROVISIONING))
        for p in DEFAULT_PROVISIONING.rglob("*")
        if p.is_file()
    }
    assert found == set(render_provisioning())
    assert provisioning_stale() == [], "run `trimscope dashboards build` and commit them"


def test_check_names_a_stale_provisioning_file(tmp_path: Path) -> None:
    build = ["dashboards", "build", "--out", str(tmp_path / "json")]
    build += ["--alerts", str(tmp_path / "alerts.yml"), "--provisioning", str(tmp_path)]
    runner = CliRunner()
    assert runner.invoke(app, build).exit_code == 0
    assert runner.invoke(app, [*build, "--check"]).exit_code == 0
    (tmp_path / "grafana" / "datasources" / "prometheus.yml").write_text("apiVersion: 1\n")
    result = runner.invoke(app, [*build, "--check"])
    assert result.exit_code == 1
    assert "prometheus.yml" in result.output


def test_the_datasource_is_one_the_dashboards_pick() -> None:
    (source,) = _yaml("grafana/datasources/prometheus.yml")["datasources"]
    for board in committed().values():
        variable = next(v for v in board["templating"]["list"] if v["type"] == "datasource")
        assert variable["query"] == source["type"] == "prometheus"
    provider = _yaml("grafana/dashboards/trimscope.yml")
    assert provider["apiVersion"] == 1
    assert provider["providers"][0]["type"] == "file"


def test_prometheus_scrapes_loopback_and_loads_the_alert_rules() -> None:
    config = _yaml("prometheus/prometheus.yml")
    (job,) = config["scrape_configs"]
    assert all(t.startswith("127.0.0.1:") for c in job["static_configs"] for t in c["targets"])
    (rules,) = config["rule_files"]
    assert (PROMETHEUS_CONFIG.parent / rules).resolve() == DEFAULT_ALERTS


def _promtool_check_config(path: Path) -> subprocess.CompletedProcess[str]:
    promtool = require_program("promtool")
    return subprocess.run(
        [promtool, "check", "config", str(path)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_promtool_checks_the_config_and_its_rules() -> None:
    done = _promtool_check_config(PROMETHEUS_CONFIG)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "alerts.yml" in done.stdout
    assert "SUCCESS" in done.stdout


def test_promtool_refuses_the_config_without_its_rules(tmp_path: Path) -> None:
    """The config's rule file is found by a relative path: moved alone, it must fail."""
    alone = tmp_path / "a" / "b" / "prometheus.yml"
    alone.parent.mkdir(parents=True)
    shutil.copyfile(PROMETHEUS_CONFIG, alone)
    done = _promtool_check_config(alone)
    assert done.returncode != 0
    assert "alerts.yml" in done.stdout + done.stderr
