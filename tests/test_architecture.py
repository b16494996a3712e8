"""The import rules of the package table in docs/architecture.md, enforced.

Each package may import the standard library, the project packages its row names and the
third-party libraries its job needs. A new import that the table forbids is a design bug.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names) | {"__future__"}

# package (path prefix, dotted) -> allowed non-stdlib top-level imports / project packages
RULES: dict[str, set[str]] = {
    "harness.runtime": {"harness.runtime"},
    # Stdlib-only helpers every package that writes outputs or stops on signals may use.
    "harness.atomic": {"harness.atomic"},
    "harness.interrupt": {"harness.interrupt"},
    "harness.quantile": {"harness.quantile"},
    "harness.sketch": {"harness.sketch"},
    # The exit codes of every command (stdlib only): the CLI, load's outputs, conformance.
    "harness.exit_codes": {"harness.exit_codes"},
    "harness.events": {"harness.runtime", "harness.events"},
    # The wire observer is pure like the runtime: stdlib and the runtime's rules only.
    "harness.wire": {"harness.runtime", "harness.wire"},
    # The observing proxy: forwards with httpx, serves with starlette/uvicorn, puts the
    # observer's findings on the bus; overflow classifiers come from the providers.
    "harness.proxy": {
        "harness.atomic",
        "harness.interrupt",
        "harness.runtime",
        "harness.wire",
        "harness.events",
        "harness.providers",
        "harness.telemetry",
        "harness.proxy",
        "httpx",
        "starlette",
        "uvicorn",
        "anyio",
    },
    "harness.providers": {"harness.runtime", "harness.providers", "httpx", "orjson"},
    "harness.agent": {"harness.runtime", "harness.events", "harness.providers", "harness.agent"},
    "harness.telemetry": {
        "harness.atomic",
        "harness.runtime",
        "harness.events",
        "harness.telemetry",
        # the cost observer prices with the one formula (stdlib only), not the table reader
        "harness.pricing.formula",
        "opentelemetry",
        "prometheus_client",
    },
    # Pricing: the formula, the table and its file (read under the scenario files' input
    # contract, hence the loader), a run's spend and the summary's cache and cost sections.
    "harness.pricing": {
        "harness.runtime",
        "harness.scenarios",
        "harness.quantile",
        "harness.sketch",
        "harness.pricing",
        "pydantic",
    },
    "harness.scenarios": {
        "harness.interrupt",
        "harness.atomic",
        "harness.runtime",
        "harness.events",
        "harness.providers",
        "harness.agent",
        "harness.scenarios",
        "harness.telemetry.transcript",
        "harness.wire",
        "fakes",
        "httpx",
        "pydantic",
        "pydantic_core",
        "yaml",
        "rich",
    },
    "harness.conformance": {
        "harness.atomic",
        "harness.exit_codes",
        "harness.runtime",
        "harness.events",
        "harness.providers",
        "harness.agent",
        "harness.scenarios",
        "harness.conformance",
        "harness.telemetry",
        "fakes",
        "httpx",
        "rich",
    },
    "harness.load": {
        "harness.interrupt",
        "harness.exit_codes",
        "harness.atomic",
        "harness.runtime",
        "harness.events",
        "harness.providers",
        "harness.agent",
        "harness.scenarios",
        "harness.telemetry",
        "harness.wire",
        "harness.load",
        "harness.pricing",
        "harness.quantile",
        "harness.sketch",
        "harness.progress",
        "fakes",
        "httpx",
        "rich",
        "uvicorn",
        "pydantic",
        "prometheus_client",
    },
    # Runtimes under test over the SUT protocol: a child process, the fakes on real HTTP
    # (uvicorn), the in-process reference to compare with, the wire observer's findings.
    "harness.sut": {
        "harness.atomic",
        "harness.interrupt",
        "harness.runtime",
        "harness.wire",
        "harness.events",
        "harness.providers",
        "harness.agent",
        "harness.scenarios",
        "harness.telemetry",
        "harness.sut",
        # load --sut prices its runtimes' usage as load prices the agent's
        "harness.pricing",
        "harness.sketch",
        "fakes",
        "httpx",
        "pydantic",
        "yaml",
        "rich",
        "uvicorn",
    },
    "harness.progress": {"harness.progress", "rich"},
    "harness.report": {
        "harness.atomic",
        "harness.events",
        "harness.telemetry",
        "harness.report",
        "harness.runtime",
    },
    "fakes": {
        "fakes",
        "starlette",
        "anyio",
        "uvicorn",
        "httpx",
        "respx",
        "pytest",
        "pydantic",
        "pydantic_core",
        "yaml",
    },
    "dashboards": {"dashboards", "harness.telemetry.names", "grafana_foundation_sdk", "yaml"},
}
# Composition roots may import everything.
ROOTS = ("harness.cli", "harness.pytest_plugin")
# locust monkey-patches the standard library on import: only its own entry point may.
LOCUST_ENTRY = "harness.load.locustfile"


def _modules() -> list[tuple[str, Path]]:
    found = []
    for base in ("harness", "fakes", "dashboards"):
        for path in sorted((ROOT / base).rglob("*.py")):
            dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found.append((dotted.removesuffix(".__init__"), path))
    return found


def _imports(path: Path) -> list[tuple[str, ...]]:
    """One entry per import: the module, then for ``from m import a, b`` also ``m.a``, ``m.b``
    (the import is fine when the module, or every named submodule, is allowed)."""
    found: list[tuple[str, ...]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name,) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, *(f"{node.module}.{a.name}" for a in node.names)))
    return found


def _allowed(name: str, rules: set[str]) -> bool:
    if name.split(".", maxsplit=1)[0] in STDLIB:
        return True
    return any(name == rule or name.startswith(rule + ".") for rule in rules)


def _package(dotted: str) -> str | None:
    matches = [p for p in RULES if dotted == p or dotted.startswith(p + ".")]
    return max(matches, key=len) if matches else None


@pytest.mark.parametrize(("dotted", "path"), _modules(), ids=str)
def test_module_imports_only_what_its_package_may(dotted: str, path: Path) -> None:
    if dotted.startswith(ROOTS) or dotted == "harness":
        return
    package = _package(dotted)
    assert package is not None, f"{dotted} belongs to no row of the architecture table"
    rules = RULES[package] | ({"locust", "gevent"} if dotted == LOCUST_ENTRY else set())
    bad = sorted(
        entry[0]
        for entry in _imports(path)
        if not _allowed(entry[0], rules)
        and not (len(entry) > 1 and all(_allowed(n, rules) for n in entry[1:]))
    )
    assert not bad, f"{dotted} imports {bad}, which the architecture table forbids"


def test_locust_is_imported_by_its_entry_point_only() -> None:
    for dotted, path in _modules():
        if dotted != LOCUST_ENTRY:
            assert not any(e[0].split(".")[0] == "locust" for e in _imports(path)), dotted


def _import_graph() -> dict[str, set[str]]:
    """Module -> project modules it imports anywhere in its text (top level, inside a
    function, or under ``TYPE_CHECKING``: each ties the two modules together for a reader)."""
    modules = dict(_modules())
    graph: dict[str, set[str]] = {}
    for dotted, path in modules.items():
        targets = set()
        for entry in _imports(path):
            named = [name for name in entry[1:] if name in modules]
            targets.update(named or [entry[0]])
        graph[dotted] = {target for target in targets if target in modules and target != dotted}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    """A module that needs another's name while that one needs its own is one module in
    two files, or a missing third module: either way a reader goes round in circles."""
    assert _cycles(_import_graph()) == []


# The wire modules of each side; helpers they share live in the side's ``common`` module.
WIRES = {
    "fakes.wire": {"anthropic", "bedrock", "cohere", "gemini", "ollama", "openai_chat"}
    | {"openai_responses"},
    "harness.providers.clients": {"anthropic", "cohere", "gemini", "ollama", "openai_chat"}
    | {"openai_responses"},
}
# Bedrock's Converse in front of Claude checks tool pairing as Anthropic's own API does.
WIRE_DELEGATIONS = {("fakes.wire.bedrock", "fakes.wire.anthropic")}


def _sibling_wire_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for package, wires in WIRES.items():
        targets = {f"{package}.{wire}" for wire in wires}
        for module, imported in graph.items():
            if module.rpartition(".")[0] != package:
                continue
            own = module.rpartition(".")[2]
            found.extend(
                (module, target)
                for target in sorted(imported & targets)
                if not own.startswith(target.rpartition(".")[2])
                and (module, target) not in WIRE_DELEGATIONS
            )
    return found


def test_wires_share_helpers_through_common_not_a_sibling_wire() -> None:
    assert _sibling_wire_imports(_import_graph()) == []
    planted = {"fakes.wire.ollama": {"fakes.wire.openai_chat", "fakes.wire.common"}}
    assert _sibling_wire_imports(planted) == [("fakes.wire.ollama", "fakes.wire.openai_chat")]
