"""The exception tree drawn in ``HarnessError``'s docstring is the tree the package has:
every exception class ``harness`` defines is in it, or is one of the named exceptions."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import harness
from harness.events import CallOutcome
from harness.providers import ProviderError
from harness.runtime.errors import HarnessError

ROOT = Path(harness.__file__).parent
OUTSIDE_THE_TREE = {
    ("harness.interrupt", "Interrupted"),  # BaseException, like KeyboardInterrupt
    ("harness.sut.adapter", "Unsupported"),  # the adapter file imports nothing of ours
    ("harness.sut.adapter", "TurnFailed"),
    ("harness.load.transport", "Killed"),  # a cancellation (CancelledError), not a failure
}
# Importing Locust's entry point monkey-patches the whole process with gevent: it is read,
# not imported, and must define no exception.
NOT_IMPORTED = {"harness.load.locustfile"}
_DRAWN_LINE = re.compile(r"^(?P<indent> *)(?P<name>[A-Z]\w+)\b")


def _drawn_tree() -> dict[str, str | None]:
    """Each class named in the docstring's drawing, with the class it hangs from."""
    doc = HarnessError.__doc__ or ""
    drawing = doc.split("::", 1)[1].split("\n\n    Outside it", 1)[0]
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []
    for line in drawing.splitlines():
        found = _DRAWN_LINE.match(line)
        if found is None:
            continue
        indent, name = len(found["indent"]), found["name"]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parents[name] = stack[-1][1] if stack else None
        stack.append((indent, name))
    return parents


def _defined_exceptions() -> list[tuple[str, str]]:
    """Every public class defined in ``harness`` that derives from an exception."""
    for info in pkgutil.walk_packages([str(ROOT)], "harness."):
        if info.name not in NOT_IMPORTED:
            importlib.import_module(info.name)
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        classes = [
            node
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
        ]
        if module in NOT_IMPORTED:
            assert not [c.name for c in classes if c.name.endswith(("Error", "Exception"))]
            continue
        for node in classes:
            value = getattr(importlib.import_module(module), node.name, None)
            if isinstance(value, type) and issubclass(value, BaseException):
                found.append((module, node.name))
    return found


def test_every_exception_of_the_package_is_in_the_tree_or_named_outside_it() -> None:
    for module, name in _defined_exceptions():
        cls = getattr(importlib.import_module(module), name)
        if (module, name) in OUTSIDE_THE_TREE:
            assert not issubclass(cls, HarnessError), f"{module}.{name}"
            continue
        assert issubclass(cls, HarnessError), f"{module}.{name} is outside the tree"


def test_the_drawn_tree_is_the_tree_of_the_classes() -> None:
    _defined_exceptions()  # imports every module, so every subclass exists

    def actual(cls: type[HarnessError], parent: str | None) -> dict[str, str | None]:
        tree = {cls.__name__: parent}
        for sub in cls.__subclasses__():
            tree |= actual(sub, cls.__name__)
        return tree

    assert _drawn_tree() == actual(HarnessError, None)


def _provider_error_classes() -> list[type[ProviderError]]:
    """``ProviderError`` and every subclass the package defines."""
    _defined_exceptions()  # imports every module, so every subclass exists
    found: list[type[ProviderError]] = []
    pending: list[type[ProviderError]] = [ProviderError]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


def test_every_provider_error_class_declares_the_call_outcome_it_is_counted_as() -> None:
    """Each class states its own ``counted_as`` (none inherits it unsaid), and it is a
    failed attempt's ``CallOutcome``: the loop and the proxy both count by it."""
    classes = _provider_error_classes()
    assert len(classes) > 1
    for cls in classes:
        assert "counted_as" in vars(cls), f"{cls.__name__} does not declare counted_as"
        outcome = CallOutcome(cls.counted_as)  # raises on a string that is no outcome
        assert outcome not in {CallOutcome.OK, CallOutcome.CANCELLED}, cls.__name__
