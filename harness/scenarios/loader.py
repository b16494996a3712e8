"""Load and validate scenario files once. Every error names ``file:line: key.path: what
was expected, what was found``; the caller exits with code 2 and runs nothing.

YAML is composed into nodes first (they carry line numbers), checked for duplicate keys
(PyYAML would silently keep the last), turned into plain data, then validated by the
pydantic models. Validation errors are mapped back to the node they point at.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from harness.runtime import HarnessError
from harness.scenarios.schema import Scenario

SCENARIO_SUFFIXES = (".yaml", ".yml")


class ScenarioError(HarnessError):
    """One or more scenario files are malformed; ``problems`` lists each one."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True, slots=True)
class LoadedScenario:
    path: Path
    scenario: Scenario


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _child(node: yaml.Node, key: object) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if key_node.value == str(key):
                found: yaml.Node = value_node
                return found
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        item: yaml.Node = node.value[key]
        return item
    return None


def _key_node(node: yaml.Node, key: object) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            if key_node.value == str(key):
                found: yaml.Node = key_node
                return found
    return None


def _locate(root: yaml.Node, loc: Iterable[int | str]) -> int:
    """The line of the deepest node the location reaches (the key itself when it exists)."""
    node, line = root, _line(root)
    for part in loc:
        key_node = _key_node(node, part)
        child = _child(node, part)
        if child is None:
            return _line(key_node) if key_node is not None else line
        node, line = child, _line(key_node if key_node is not None else child)
    return line


def _path(loc: Iterable[int | str]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _found(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _validation_problems(path: Path, root: yaml.Node, error: ValidationError) -> list[str]:
    problems = []
    for item in error.errors():
        # pydantic adds union-member and validator names to locations; keep data keys only.
        loc = [p for p in item["loc"] if not (isinstance(p, str) and p[:1].isupper())]
        loc = [p for p in loc if p not in ("str", "UserTurn", "function-after")]
        if item["type"] == "extra_forbidden":
            what = f"unknown key {loc[-1]!r} (not part of the format)"
        elif item["type"] == "missing":
            what = "required key is missing"
        else:
            what = f"{item['msg']}; found {_found(item.get('input'))}"
        problems.append(f"{path}:{_locate(root, loc)}: {_path(loc)}: {what}")
    return problems


def _check_duplicate_keys(path: Path, node: yaml.Node) -> Iterator[str]:
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in seen:
                yield f"{path}:{_line(key_node)}: {key}: duplicate key (first at line {seen[key]})"
            seen[key] = _line(key_node)
            yield from _check_duplicate_keys(path, value_node)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _check_duplicate_keys(path, item)


def load_scenario(path: Path) -> LoadedScenario:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError([f"{path}:1: (file): cannot be read: {exc}"]) from exc
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise ScenarioError([f"{path}:{line}: (yaml): {exc}"]) from exc
    if root is None:
        raise ScenarioError([f"{path}:1: (top level): the file is empty"])
    duplicates = list(_check_duplicate_keys(path, root))
    if duplicates:
        raise ScenarioError(duplicates)
    data: Any = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise ScenarioError([f"{path}:1: (top level): expected a mapping, found {_found(data)}"])
    try:
        return LoadedScenario(path, Scenario.model_validate(data))
    except ValidationError as exc:
        raise ScenarioError(_validation_problems(path, root, exc)) from exc


def discover(paths: Sequence[Path]) -> list[Path]:
    """Scenario files under the given files and folders, sorted, each once."""
    found: set[Path] = set()
    for path in paths:
        if path.is_dir():
            found.update(p for p in path.rglob("*") if p.suffix in SCENARIO_SUFFIXES)
        else:
            found.add(path)
    return sorted(found)


def load_all(paths: Sequence[Path]) -> list[LoadedScenario]:
    """Validate every file first; raise one error listing every problem, or return all."""
    loaded: list[LoadedScenario] = []
    problems: list[str] = []
    files = discover(paths)
    if not files:
        raise ScenarioError([f"{', '.join(map(str, paths))}: no scenario files found"])
    for path in files:
        try:
            loaded.append(load_scenario(path))
        except ScenarioError as exc:
            problems.extend(exc.problems)
    ids: dict[str, Path] = {}
    for item in loaded:
        if item.scenario.id in ids:
            problems.append(
                f"{item.path}:1: id: duplicate scenario id {item.scenario.id!r}"
                f" (also in {ids[item.scenario.id]})"
            )
        ids[item.scenario.id] = item.path
    if problems:
        raise ScenarioError(problems)
    return loaded
