"""Every package states its public surface in ``__all__`` (habit 9), and it resolves."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import harness
from harness.runtime import HarnessError

PACKAGES = [
    "harness.runtime",
    "harness.events",
    "harness.providers",
    "harness.agent",
    "harness.telemetry",
    "harness.pricing",
    "harness.scenarios",
    "harness.wire",
    "harness.sut",
    "harness.proxy",
    "fakes",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_declared_unique_and_resolves(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert exported, f"{name} exports nothing"
    assert len(exported) == len(set(exported)), f"{name} lists a name twice"
    missing = [item for item in exported if not hasattr(module, item)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"


# Exceptions that never leave the module that raises them, so they need no place in the
# tree: each is caught where it is raised, or stands for a bug rather than bad input.
INTERNAL_ERRORS = {
    # interrupt: a BaseException like KeyboardInterrupt, raised where work notices a stop
    # request (SIGINT/SIGTERM) and may unwind; the CLI turns it into exit 130/143.
    "harness.interrupt.Interrupted",
    # scenarios/source: one problem at one line of a file being read; every raise is caught
    # by the loader and reported as a ScenarioError naming the file.
    "harness.scenarios.source.SourceProblem",
    # providers/wirejson: a malformed body shape; every raise is caught in the transport
    # and re-raised as ProviderProtocolError.
    "harness.providers.plumbing.wirejson.WireShapeError",
    # load/transport.drive: a coroutine awaited an event loop that drive() does not run;
    # a programming error, like an AssertionError.
    "harness.load.transport.SuspendedError",
    # load/transport: a greenlet's kill (Locust stopping a user) as the cancellation the
    # agent counts; drive() re-raises the kill itself, so it never leaves the bridge.
    "harness.load.transport.Killed",
    # runtime/messages: serde_json's refusal of NaN/Infinity inside the JSON decoder;
    # caught by the row parser, which reads the row as not JSON.
    "harness.runtime.messages._NotJson",
    # scenarios/vocabulary: raised inside pydantic validators, which must raise a
    # ValueError; pydantic wraps it and the loader reports it as a ScenarioError.
    "harness.scenarios.vocabulary.FieldProblems",
    # wire/decoded: a body the wire observer cannot read; caught by the observer, which
    # reports an `unobservable` finding instead.
    "harness.wire.decoded.WireDecodeError",
    # sut/adapter: stdlib only (an adapter's venv copies the file), so it cannot derive
    # from HarnessError; raised by an adapter's callbacks and caught by the adapter.
    "harness.sut.adapter.TurnFailed",
    "harness.sut.adapter.Unsupported",
    # proxy/app: an upstream that broke after its headers were forwarded; raised out of the
    # answer's stream and caught by the response, which drops the client's connection.
    "harness.proxy.app._UpstreamBroke",
}
# Importing Locust monkey-patches the standard library with gevent; nothing imports it
# but Locust itself (harness/load/locustfile.py says why), and it defines no exception.
NOT_IMPORTED = {"harness.load.locustfile"}


def _harness_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class defined anywhere in the ``harness`` package."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(harness.__path__, "harness."):
        if info.name in NOT_IMPORTED:
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
            ):
                found[f"{info.name}.{value.__qualname__}"] = value
    return found


def test_the_exception_tree_has_one_root() -> None:
    """Habit 8: every error trimscope raises on purpose derives from HarnessError. The
    classes are found in the package, not listed here, so a new one cannot slip by."""
    found = _harness_exceptions()
    assert "harness.providers.overflow.errors.ContextWindowExceeded" in found  # the walk works
    assert "harness.runtime.errors.HarnessError" in found
    outside = sorted(
        name
        for name, error in found.items()
        if not issubclass(error, HarnessError) and name not in INTERNAL_ERRORS
    )
    assert outside == []
    assert set(found) >= INTERNAL_ERRORS, "an allowed internal error no longer exists"
