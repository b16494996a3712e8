"""The several-machines Locust flow of docs/load.md, run as written with the ``locust`` script.

The page's three blocks (write the plan; the master; a worker machine) are taken from
the page itself and run by ``bash``, the master and the worker as separate processes.
Only the sizes, the addresses (loopback, a free port) and the metrics folder are changed,
each by a substitution that must find its text, so an edit of the page that breaks the
flow fails here. Locust is never imported by the test process.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.load import metrics as m
from harness.load.launcher import free_port
from harness.telemetry import multiprocess_registry
from harness.telemetry import names as n
from tests.interrupting import assert_nothing_left, finish, start, survivors

ROOT = Path(__file__).resolve().parents[2]
SESSIONS, TURNS, PROCESSES = 8, 2, 2
BIN = Path(sys.executable).parent


def _blocks() -> list[str]:
    """The three shell blocks of the page's "Several machines" section."""
    text = (ROOT / "docs" / "load.md").read_text(encoding="utf-8")
    start = text.index("\n", text.index("### Several machines"))
    following = re.search(r"^#{1,3} ", text[start:], flags=re.MULTILINE)
    section = text[start : start + following.start()] if following else text[start:]
    return re.findall(r"```\n(.*?)```", section, flags=re.DOTALL)


def _sub(text: str, old: str, new: str) -> str:
    assert old in text, f"docs/load.md no longer says {old!r}"
    return text.replace(old, new)


@pytest.mark.integration
def test_the_documented_master_and_worker_commands_run_the_sessions(tmp_path: Path) -> None:
    plan, master, worker = _blocks()
    port = str(free_port())
    prom = tmp_path / "prom"
    plan = _sub(
        plan,
        "--sessions 20000 --concurrency 400 --turns 10 --workers 8",
        f"--sessions {SESSIONS} --concurrency 4 --turns {TURNS} --workers {PROCESSES}",
    )
    locustfile_line = plan.splitlines()[1]
    assert locustfile_line.startswith("LOCUSTFILE=")
    master = _sub(master, "--master-bind-host 0.0.0.0", "--master-bind-host 127.0.0.1")
    master = _sub(master, "--master-bind-port 5557", f"--master-bind-port {port}")
    master = _sub(master, "--expect-workers 8 -u 400 -r 100 -t 10m",
                  f"--expect-workers {PROCESSES} -u 4 -r 100 -t 60s")  # fmt: skip
    worker = _sub(worker, "/tmp/trimscope-prom", str(prom))
    worker = _sub(worker, "--master-host MASTER_HOST --master-port 5557",
                  f"--master-host 127.0.0.1 --master-port {port}")  # fmt: skip
    worker = _sub(worker, "--processes 4", f"--processes {PROCESSES}")
    env = {
        **{k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"},
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # `trimscope`, `locust`
    }
    shell = ["bash", "-euo", "pipefail", "-c"]
    subprocess.run([*shell, plan], cwd=tmp_path, env=env, check=True, timeout=60)
    assert (tmp_path / "plan.json").is_file()
    # Each "machine" gets a TMPDIR of its own: what survives the run is found by it.
    master_run = start([], tmp_path / "master", command=[*shell, f"{locustfile_line}\n{master}"],
                       cwd=tmp_path, env=env)  # fmt: skip
    worker_run = start([], tmp_path / "worker", command=[*shell, f"{locustfile_line}\n{worker}"],
                       cwd=tmp_path, env=env)  # fmt: skip
    worker_code, _, worker_err = finish(worker_run, timeout=120)
    master_code, master_out, master_err = finish(master_run, timeout=60)
    assert master_code == 0, master_out + master_err
    assert worker_code == 0, worker_err
    assert "StopUser" not in worker_err
    # Locust's own table on the master: every turn of every session, from both workers.
    printed = (master_out + master_err).splitlines()  # Locust logs its table on stderr
    counts = [re.match(r"agent\s+turn\s+(\d+)\s+\d+\(", line) for line in printed]
    *_, final = [int(found[1]) for found in counts if found]  # the last table is the total
    assert final == SESSIONS * TURNS
    # The harness's metrics, aggregated over the worker processes' files.
    registry = multiprocess_registry(prom)
    sessions = m.by_labels(registry, m.SESSIONS, n.LABEL_OUTCOME)
    assert sum(v for (outcome,), v in sessions.items() if outcome == "completed") == SESSIONS
    assert len(list(prom.glob("counter_*.db"))) == PROCESSES  # one file per worker process
    turns = m.by_labels(registry, n.TURNS.name, n.LABEL_OUTCOME)
    assert sum(turns.values()) == SESSIONS * TURNS
    assert m.total(registry, n.PROVIDER_CALLS.name) >= SESSIONS * TURNS
    for running in (master_run, worker_run):
        assert_nothing_left(running)
    assert not survivors(tmp_path / "plan.json")
