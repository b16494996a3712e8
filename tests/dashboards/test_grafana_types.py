"""Every generated dashboard type-checks against Grafana's own published types
(``@grafana/schema`` of ``GRAFANA_VERSION``, with ``tsc``; ``scripts/ensure-ts-tools.sh``
installs both into ``.tools/ts``). Without them the ``tsc`` tests skip, and under
``CI=true`` they fail."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from dashboards import render_all
from dashboards.build import DASHBOARDS
from dashboards.grafana_fit import fit_grafana
from dashboards.grafana_types import GRAFANA_VERSION, UnknownPanelType, typescript_module

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / ".tools" / "ts" / "node_modules"
TSC = TOOLS / "typescript" / "bin" / "tsc"
TSC_SECONDS = 300
INTERVAL_ONLY = ("auto", "auto_count", "auto_min")
TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "noEmit": True,
        "target": "es2022",
        "module": "esnext",
        "moduleResolution": "bundler",
        "types": [],
        # The panel modules are not in the package's export map: reach them by path.
        "baseUrl": ".",
        "paths": {"@grafana/schema/dist/*": ["node_modules/@grafana/schema/dist/*"]},
    },
    "include": ["*.ts"],
}


def _tsc() -> str:
    node = shutil.which("node")
    if node and TSC.exists():
        return node
    message = "tsc and @grafana/schema not installed: run scripts/ensure-ts-tools.sh (needs npm)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}; CI must type-check the dashboards")
    pytest.skip(message)


def type_errors(boards: dict[str, dict[str, Any]], folder: Path) -> list[str]:
    """``tsc``'s error lines for ``boards`` (file name → dashboard JSON)."""
    node = _tsc()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "node_modules").symlink_to(TOOLS, target_is_directory=True)
    (folder / "tsconfig.json").write_text(json.dumps(TSCONFIG), encoding="utf-8")
    for name, board in boards.items():
        (folder / name).with_suffix(".ts").write_text(typescript_module(board), encoding="utf-8")
    done = subprocess.run(
        [node, str(TSC), "-p", "."],
        cwd=folder, capture_output=True, text=True, timeout=TSC_SECONDS, check=False,
    )  # fmt: skip
    errors = [line for line in done.stdout.splitlines() if ": error TS" in line]
    assert done.returncode == 0 or errors, done.stdout + done.stderr
    return errors


def generated() -> dict[str, dict[str, Any]]:
    return {name: json.loads(text) for name, text in render_all().items()}


def test_every_generated_dashboard_type_checks(tmp_path: Path) -> None:
    boards = generated()
    assert set(boards) == set(DASHBOARDS)
    assert type_errors(boards, tmp_path) == []


def test_the_installed_types_are_the_targeted_release() -> None:
    _tsc()
    installed = json.loads((TOOLS / "@grafana" / "schema" / "package.json").read_text())
    assert installed["version"] == GRAFANA_VERSION
    pinned = json.loads((ROOT / "scripts" / "ts" / "package.json").read_text())
    assert pinned["devDependencies"]["@grafana/schema"] == GRAFANA_VERSION


def _first(board: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(p for p in board["panels"] if p["type"] == kind)


def test_what_grafana_removed_or_never_had_is_a_type_error(tmp_path: Path) -> None:
    """The two misfits the SDK build writes, put back one at a time: tsc must refuse each,
    and name it."""
    boards = generated()
    name = next(n for n, b in boards.items() if any(p["type"] == "table" for p in b["panels"]))
    with_footer = copy.deepcopy(boards[name])
    _first(with_footer, "table")["options"]["footer"] = {"show": False, "reducer": []}
    with_auto = copy.deepcopy(boards[name])
    query = next(v for v in with_auto["templating"]["list"] if v["type"] == "query")
    query.update(auto=False, auto_count=30, auto_min="10s")
    errors = type_errors({"footer.json": with_footer, "auto.json": with_auto}, tmp_path)
    assert len(errors) == 2, errors
    assert any(e.startswith("footer.ts") and "'\"footer\"' does not exist" in e for e in errors)
    assert any(e.startswith("auto.ts") and "'\"auto\"' does not exist" in e for e in errors)


def test_fit_drops_interval_fields_and_the_table_footer_only() -> None:
    for build in DASHBOARDS.values():
        board = json.loads(json.dumps(fit_grafana(build()).to_json(), default=_encode))
        variables = board["templating"]["list"]
        assert variables
        for variable in variables:
            assert variable["type"] == "interval" or not set(INTERVAL_ONLY) & set(variable)
        for panel in board["panels"]:
            if panel["type"] == "table":
                assert "footer" not in panel["options"]
                assert panel["options"]["showHeader"] is True  # the rest is kept


def _encode(value: object) -> object:
    to_json = getattr(value, "to_json", None)
    assert callable(to_json), type(value)
    return to_json()


def test_an_unmapped_panel_type_is_named() -> None:
    board = generated()[next(iter(DASHBOARDS))]
    board["panels"].append({"type": "geomap", "title": "Where"})
    with pytest.raises(UnknownPanelType, match="'Where': type 'geomap'"):
        typescript_module(board)
