"""The built wheel stands alone: installed into a fresh virtual environment outside the
checkout, every ``trimscope`` command works there, on the files the wheel ships.

Slow (it builds a wheel and installs its dependencies, from the pip cache when warm), so
it is an integration test. Every server it starts binds 127.0.0.1 and every command is
bounded by a timeout.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboards.provisioning import render_provisioning
from tests.dashboards.conftest import require_program
from tests.scenarios.support import TINY, write

REPO = Path(__file__).resolve().parents[2]
INSTALL_SECONDS = 900  # a cold pip cache downloads every dependency from the registry
COMMAND_SECONDS = 180
SERVE_SECONDS = 60
# What a build copies: the package sources and their metadata, not caches or venvs.
SKIP = shutil.ignore_patterns(
    ".git", ".venv", ".tools", "build", "dist", "*.egg-info", "__pycache__", ".*_cache",
    ".hypothesis", "out",
)  # fmt: skip

pytestmark = pytest.mark.integration


class Installed:
    """A fresh venv with only the wheel (and its dependencies) installed."""

    def __init__(self, root: Path) -> None:
        self.bin = root / "venv" / "bin"
        self.work = root / "work"  # the user's directory: no scenarios/, no checkout
        self.work.mkdir()
        # No PYTHONPATH or VIRTUAL_ENV from the test run: the checkout must stay invisible.
        hidden = {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}
        self.env = {k: v for k, v in os.environ.items() if k not in hidden}
        self.env.update(COLUMNS="120", NO_COLOR="1")

    def run(self, *args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.bin / "trimscope"), *map(str, args)],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=COMMAND_SECONDS,
            check=False,
        )
        if check:
            assert done.returncode == 0, f"trimscope {args}: {done.stdout}{done.stderr}"
        return done


def _pip(python: Path, *args: str | Path, cwd: Path) -> None:
    done = subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", "-q", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    shutil.copytree(REPO, source, ignore=SKIP)
    _pip(Path(sys.executable), "wheel", "--no-deps", "-w", root / "dist", source, cwd=root)
    (wheel,) = (root / "dist").glob("trimscope-*.whl")
    venv.EnvBuilder(with_pip=True).create(root / "venv")
    shutil.rmtree(source)  # nothing of the checkout is left to fall back on
    found = Installed(root)
    _pip(found.bin / "python", "install", wheel, cwd=root)
    return found


def test_the_package_is_imported_from_the_venv(installed: Installed) -> None:
    done = subprocess.run(
        [str(installed.bin / "python"), "-c", "import harness; print(harness.__file__)"],
        cwd=installed.work,
        env=installed.env,
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
        check=True,
    )
    assert "site-packages" in done.stdout
    assert installed.run("--help").stdout.count("scenarios") >= 1


def test_run_with_no_path_runs_the_bundled_library(installed: Installed) -> None:
    count = len(list((REPO / "scenarios").glob("*.yaml")))
    assert f"{count} scenario file(s) valid" in installed.run("validate").stdout
    installed.run("run", "--junit-xml", "junit.xml", "--transcript", "transcripts")
    junit = (installed.work / "junit.xml").read_text(encoding="utf-8")
    assert f'tests="{count}"' in junit
    assert 'failures="0"' in junit
    report = installed.run("report", "transcripts", "-o", "report.html")
    assert report.returncode == 0
    assert (installed.work / "report.html").stat().st_size > 0


def test_export_then_run_the_users_own_files(installed: Installed) -> None:
    installed.run("scenarios", "export", "lib")
    exported = installed.work / "lib"
    for name in ("README.md", "schema.json", "budget-proactive-drops-oldest-turns.yaml"):
        assert (exported / name).read_bytes() == (REPO / "scenarios" / name).read_bytes()
    assert installed.run("scenarios", "schema").stdout == (exported / "schema.json").read_text()
    installed.run("scenarios", "index", "lib", "--check")
    mine = write(installed.work / "mine", "mine.yaml", TINY.replace("id: tiny", "id: mine-only"))
    done = installed.run("run", mine)
    assert "mine-only" in done.stdout
    assert "budget-proactive-drops-oldest-turns" not in done.stdout


def test_dashboards_and_alerts_ship_and_rebuild_identically(installed: Installed) -> None:
    installed.run(
        "dashboards", "build", "--out", "boards", "--alerts", "alerts.yml",
        "--provisioning", "provisioning",
    )  # fmt: skip
    for committed in (REPO / "dashboards" / "json").glob("*.json"):
        assert (installed.work / "boards" / committed.name).read_text() == committed.read_text()
    for name in render_provisioning():
        assert (installed.work / "provisioning" / name).read_text() == (
            REPO / "dashboards" / "provisioning" / name
        ).read_text()
    assert (installed.work / "alerts.yml").read_text() == (
        REPO / "dashboards" / "alerts.yml"
    ).read_text()
    shipped = subprocess.run(
        [
            str(installed.bin / "python"), "-c",
            "import dashboards, pathlib; d = pathlib.Path(dashboards.__file__).parent; "
            "print(*sorted(str(p.relative_to(d)) for p in d.rglob('*') "
            "if p.is_file() and p.suffix != '.py' and '__pycache__' not in p.parts))",
        ],
        cwd=installed.work, env=installed.env, capture_output=True, text=True,
        timeout=COMMAND_SECONDS, check=True,
    ).stdout.split()  # fmt: skip
    assert {"alerts.yml", "alerts_test.yml"} <= set(shipped)
    assert {f"provisioning/{name}" for name in render_provisioning()} <= set(shipped)
    assert {f"json/{p.name}" for p in (REPO / "dashboards" / "json").glob("*.json")} <= set(shipped)


@pytest.fixture
def fake_url(installed: Installed) -> Iterator[str]:
    server = subprocess.Popen(
        [
            str(installed.bin / "trimscope"), "fake", "serve", "--provider", "openai",
            "--model", "m", "--context-window", "3000",
        ],
        cwd=installed.work, env=installed.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    assert server.stdout is not None
    stream = server.stdout
    threading.Thread(target=lambda: lines.put(stream.readline()), daemon=True).start()
    try:
        yield lines.get(timeout=SERVE_SECONDS).strip()
    finally:
        server.terminate()
        server.wait(timeout=SERVE_SECONDS)


def test_conformance_against_the_installed_fake(installed: Installed, fake_url: str) -> None:
    assert fake_url.startswith("http://127.0.0.1:")
    done = installed.run(
        "conformance", "--provider", "openai", "--base-url", f"{fake_url}/v1", "--model", "m",
        "--context-window", "3000", "--json", "conformance.json", check=False,
    )  # fmt: skip
    document = json.loads((installed.work / "conformance.json").read_text(encoding="utf-8"))
    assert done.returncode == document["exit_code"] == 0, done.stdout + done.stderr


def test_load_runs_bounded(installed: Installed) -> None:
    installed.run(
        "load", "--sessions", "4", "--concurrency", "2", "--turns", "2", "--quiet",
        "--json", "load.json",
    )  # fmt: skip
    summary = json.loads((installed.work / "load.json").read_text(encoding="utf-8"))
    assert summary["sessions_completed"] == 4
    assert summary["provider_calls"] > 0


def test_the_shipped_rules_and_config_pass_promtool(installed: Installed) -> None:
    """The alert rules' unit tests and the Prometheus example, run where pip put them."""
    promtool = require_program("promtool")
    where = subprocess.run(
        [str(installed.bin / "python"), "-c", "import dashboards; print(dashboards.__file__)"],
        cwd=installed.work, env=installed.env, capture_output=True, text=True,
        timeout=COMMAND_SECONDS, check=True,
    )  # fmt: skip
    shipped = Path(where.stdout.strip()).parent
    assert REPO not in shipped.parents
    for args in (
        ["test", "rules", shipped / "alerts_test.yml"],
        ["check", "config", shipped / "provisioning" / "prometheus" / "prometheus.yml"],
    ):
        done = subprocess.run(
            [promtool, *map(str, args)], cwd=shipped, capture_output=True, text=True,
            timeout=COMMAND_SECONDS, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
