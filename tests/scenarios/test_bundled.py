"""The bundled scenario library: found wherever the package is, run when no path is
given, copied out by ``trimscope scenarios export`` without clobbering the user's files."""

from __future__ import annotations

import ast
from pathlib import Path

from harness.scenarios.bundled import LIBRARY_FILES, library_files, scenario_library
from tests.scenarios.support import TINY, cli, console_script, write

REPO = Path(__file__).resolve().parents[2]


def test_a_checkout_runs_its_own_scenarios_folder() -> None:
    assert scenario_library() == REPO / "scenarios"
    names = {path.name for path in library_files()}
    assert {"README.md", "schema.json"} <= names
    assert {p.name for p in (REPO / "scenarios").glob("*.yaml")} <= names


def test_setup_ships_the_same_files_the_module_finds() -> None:
    """setup.py cannot import the harness (it runs before it is installed): it repeats the
    patterns, and this keeps the two lists equal."""
    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    shipped = next(
        ast.literal_eval(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "LIBRARY_FILES" for t in node.targets)
    )
    assert tuple(shipped) == LIBRARY_FILES


def test_no_path_runs_the_bundled_library_from_any_directory(tmp_path: Path) -> None:
    result = console_script(["validate"], cwd=tmp_path)
    count = len(list((REPO / "scenarios").glob("*.yaml")))
    assert result.exit_code == 0, result.stderr
    assert f"{count} scenario file(s) valid" in result.stdout


def test_a_path_still_runs_the_users_own_files(tmp_path: Path) -> None:
    own = write(tmp_path / "mine", "mine.yaml", TINY.replace("id: tiny", "id: mine-only"))
    result = cli("run", own)
    assert result.exit_code == 0, result.stderr
    assert "mine-only" in result.stdout
    assert "budget-proactive-drops-oldest-turns" not in result.stdout


def test_export_copies_the_library_byte_for_byte(tmp_path: Path) -> None:
    target = tmp_path / "lib"
    result = cli("scenarios", "export", target)
    assert result.exit_code == 0, result.stderr
    for source in library_files():
        assert (target / source.name).read_bytes() == source.read_bytes(), source.name
    assert cli("validate", target).exit_code == 0


def test_export_never_overwrites_without_force(tmp_path: Path) -> None:
    target = tmp_path / "lib"
    edited = write(target, "README.md", "my notes\n")
    result = cli("scenarios", "export", target)
    assert result.exit_code == 2
    assert f"{edited}: exists" in result.stderr.replace("\n", "")
    assert edited.read_text(encoding="utf-8") == "my notes\n"
    assert sorted(p.name for p in target.iterdir()) == ["README.md"]  # nothing else written
    assert cli("scenarios", "export", target, "--force").exit_code == 0
    assert edited.read_bytes() == (scenario_library() / "README.md").read_bytes()


def test_export_into_a_file_is_an_input_error(tmp_path: Path) -> None:
    target = write(tmp_path, "lib", "not a folder\n")
    result = cli("scenarios", "export", target)
    assert result.exit_code == 2
    assert f"{target}: exists and is not a folder" in result.stderr.replace("\n", "")


def test_export_below_a_file_is_an_input_error_not_a_traceback(tmp_path: Path) -> None:
    """As every output below a regular file (tests/cli/test_inputs.py): exit 2, named."""
    blocker = write(tmp_path, "file", "x\n")
    result = cli("scenarios", "export", blocker / "lib")
    assert result.exit_code == 2
    flat = "".join(result.stderr.translate(str.maketrans("", "", "│╭╮╰╯─")).split())
    assert "".join(f"'TARGET': '{blocker}/lib': {blocker} is not a folder".split()) in flat
