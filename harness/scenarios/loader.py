"""Load and validate scenario files once. Every error names ``file:line: key.path: what
was expected, what was found``; the caller exits with code 2 and runs nothing.

The file is read within ``Limits`` (``harness.scenarios.source``: regular files only,
bounded size, printable UTF-8), composed into nodes (they carry line numbers) that are
measured and checked before anything is built from them (expanded size, nesting,
escaped control characters, 64-bit integers), checked for duplicate keys (PyYAML would
silently keep the last), turned into plain data, validated by the strict pydantic models,
and finally held to what a run may be asked to do (``limit_problems``). Validation
errors are mapped back to the node they point at.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from harness.runtime import HarnessError
from harness.scenarios.limits import DEFAULT_LIMITS, Limits, limit_problems
from harness.scenarios.problems import (
    dotted,
    duplicate_keys,
    found,
    validation_problems,
    yaml_problem,
)
from harness.scenarios.schema import Scenario
from harness.scenarios.source import (
    BoundedLoader,
    SourceProblem,
    check_nodes,
    decode,
    read_bytes,
)
from harness.scenarios.vocabulary import Loc

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
    id_line: int = 1


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _entry(node: yaml.Node, key: object) -> tuple[yaml.Node | None, yaml.Node | None]:
    """``(key node, value node)`` of a mapping key or ``(None, item)`` of a list index."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if key_node.value == str(key):
                return key_node, value_node
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        item: yaml.Node = node.value[key]
        return None, item
    return None, None


def locate(root: yaml.Node, loc: Loc) -> int:
    """The line of the deepest node the location reaches (the key itself when it exists)."""
    node, line = root, _line(root)
    for part in loc:
        key_node, child = _entry(node, part)
        if key_node is not None:
            line = _line(key_node)
        if child is None:
            return line
        node = child
        if key_node is None:
            line = _line(child)
    return line


def parse(
    path: Path, text: str, limits: Limits = DEFAULT_LIMITS, *, what: str = "a scenario mapping"
) -> tuple[yaml.Node, Any]:
    """The composed root node (for lines) and the plain data it constructs."""
    loader = BoundedLoader(text, limits)
    try:
        root = loader.get_single_node()
        if root is None:
            raise ScenarioError([f"{path}:1: (top level): expected {what}, the file is empty"])
        node_problems = check_nodes(root, loader, limits)
        if node_problems:
            raise ScenarioError([f"{path}:{line}: {what}" for line, what in node_problems])
        duplicates = sorted(duplicate_keys(root), key=lambda d: d[1])
        if duplicates:
            raise ScenarioError(
                [
                    f"{path}:{line}: {dotted(loc)}: duplicate key (first at line {first})"
                    for loc, line, first in duplicates
                ]
            )
        return root, loader.construct_document(root)
    except yaml.YAMLError as exc:
        line, message = yaml_problem(exc)
        raise ScenarioError([f"{path}:{line}: (yaml): {message}"]) from exc
    except SourceProblem as exc:
        raise ScenarioError([f"{path}:{exc.line}: {exc.what}"]) from exc
    except RecursionError as exc:
        what = f"expected at most {limits.depth} levels of nesting, found too many to read"
        raise ScenarioError([f"{path}:1: (yaml): {what}"]) from exc
    finally:
        loader.dispose()


def read_text(source: Path, shown: Path, limits: Limits = DEFAULT_LIMITS) -> str:
    """The file's text within the limits, or ``ScenarioError`` naming ``shown``."""
    try:
        return decode(read_bytes(source, limits))
    except SourceProblem as exc:
        raise ScenarioError([f"{shown}:{exc.line}: {exc.what}"]) from exc


def load_scenario(
    path: Path, *, shown_as: Path | None = None, limits: Limits = DEFAULT_LIMITS
) -> LoadedScenario:
    """Validate one file; raise ``ScenarioError`` (and nothing else) listing its problems.

    Problems and the result name the file ``shown_as`` (default ``path``)."""
    source, path = path, shown_as or path
    root, data = parse(path, read_text(source, path, limits), limits)
    if not isinstance(data, dict):
        raise ScenarioError(
            [f"{path}:{_line(root)}: (top level): expected a scenario mapping, found {found(data)}"]
        )
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(Scenario, exc, data, lambda loc: locate(root, loc))
        raise ScenarioError([f"{path}:{line}: {what}" for line, what in problems]) from exc
    except RecursionError as exc:
        raise ScenarioError([f"{path}:1: (top level): nested too deeply to validate"]) from exc
    beyond = limit_problems(scenario, limits)
    if beyond:
        located = sorted((locate(root, loc), f"{dotted(loc)}: {what}") for loc, what in beyond)
        raise ScenarioError([f"{path}:{line}: {what}" for line, what in located])
    return LoadedScenario(path, scenario, locate(root, ("id",)))


def discover(paths: Sequence[Path]) -> list[Path]:
    """Scenario files under the given files and folders, sorted, each once."""
    found: set[Path] = set()
    for path in paths:
        if path.is_dir():
            found.update(p for p in path.rglob("*") if p.suffix in SCENARIO_SUFFIXES)
        else:
            found.add(path)
    return sorted(found)


def duplicate_id(item: LoadedScenario, first: LoadedScenario) -> str:
    return (
        f"{item.path}:{item.id_line}: id: expected an id unique in the library,"
        f" found {item.scenario.id!r} again (first in {first.path}:{first.id_line})"
    )


def load_all(paths: Sequence[Path], limits: Limits = DEFAULT_LIMITS) -> list[LoadedScenario]:
    """Validate every file first; raise one error listing every problem, or return all."""
    loaded: list[LoadedScenario] = []
    problems: list[str] = []
    files = discover(paths)
    if not files:
        raise ScenarioError([f"{', '.join(map(str, paths))}: no scenario files found"])
    for path in files:
        try:
            loaded.append(load_scenario(path, limits=limits))
        except ScenarioError as exc:
            problems.extend(exc.problems)
    ids: dict[str, LoadedScenario] = {}
    for item in loaded:
        first = ids.setdefault(item.scenario.id, item)
        if first is not item:
            problems.append(duplicate_id(item, first))
    if problems:
        raise ScenarioError(problems)
    return loaded
