"""``python -m bench`` where the bench extra is not installed (the venv ``make test``
builds): one line saying what to do, exit 2, no ModuleNotFoundError traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# langchain-core hidden as if not installed: a None entry makes find_spec say so
WITHOUT_LANGCHAIN = (
    "import sys; sys.modules['langchain_core'] = None; import runpy;"
    " sys.argv = ['bench', '--sizes', '1000', '--quiet'];"
    " runpy.run_module('bench', run_name='__main__')"
)


def test_without_the_bench_extra_one_line_says_what_to_do() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_LANGCHAIN],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("python -m bench: langchain-core is not installed")
    assert "make bench" in line
    assert "--skip-langchain" in line
    assert done.stdout == ""  # nothing measured, nothing half-printed
