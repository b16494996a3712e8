"""pytest plugin (entry point ``pytest11``, name ``trimscope_scenarios``): scenario files
as tests, and fixtures for tests of your own.

``pytest scenarios/`` collects each scenario file as one test named by its ``id``; it runs
the scenario against in-process fakes exactly as ``trimscope run`` does and fails with the
same diff. A file that does not validate is a collection error that lists its
``file:line: key.path: ...`` problems. Only YAML files that look like scenarios are
collected: those under a folder named ``scenarios``, and those with top-level ``rules:``
and ``conversation:`` keys, so other YAML in a repository is left alone. ``-k`` also
matches a scenario's tags. The ini option ``trimscope_scenario_timeout`` (seconds,
default ``DEFAULT_SCENARIO_TIMEOUT_S``) fails a scenario still running after it.

Fixtures::

    async def test_budget_trim(fake_provider, agent, event_recorder):
        fake = fake_provider("openai", "gpt-test", script=[{"text": "ok"}])
        bot = agent(fake, context_window=8000, runtime={"max_context_tokens": 30})
        await bot.turn("hello")
        assert [type(e).__name__ for e in event_recorder.events][0] == "TurnStarted"

``fake_provider`` builds a ``fakes.FakeProvider`` (steps as in a scenario's fake
``script``); ``agent`` builds a ``harness.agent.Agent`` wired to such fakes and publishing
on ``event_bus``; ``event_recorder`` keeps every event published there, in order.

``pytest --trimscope-sut "CMD"`` also collects the portable battery (the bundled library's
portable scenarios, or those under ``--trimscope-sut-scenarios``) as items under the node
``trimscope-sut``, run against the runtime ``CMD`` over the SUT protocol: PASS passes, a
scenario the runtime cannot take is skipped with its reason, a violated invariant or a
fault fails (``docs/sut-protocol.md``, "In pytest").
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest

from harness.events import EventBus
from harness.runtime import HarnessError
from harness.scenarios.bundled import scenario_library
from harness.scenarios.expect import check
from harness.scenarios.fixtures import AgentFactory, FakeProviderFactory
from harness.scenarios.limits import DEFAULT_LIMITS
from harness.scenarios.loader import LoadedScenario, ScenarioError, duplicate_id, load_scenario
from harness.scenarios.runner import EventRecorder, run_scenario
from harness.scenarios.source import SourceProblem, read_bytes
from harness.scenarios.suite import DEFAULT_SCENARIO_TIMEOUT_S
from harness.sut.battery_run import BatteryRun, failure_text, portable_battery
from harness.sut.child import CommandError, resolve_command

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle

SCENARIO_FOLDER = "scenarios"
_TOP_LEVEL_RULES = re.compile(r"^rules\s*:", re.MULTILINE)
_TOP_LEVEL_CONVERSATION = re.compile(r"^conversation\s*:", re.MULTILINE)
_SEEN: pytest.StashKey[dict[str, LoadedScenario]] = pytest.StashKey()


TIMEOUT_INI = "trimscope_scenario_timeout"
SUT_NODE: Final = "trimscope-sut"
SUT_KEYWORD: Final = "trimscope_sut"
"""Every battery item carries it: ``-k trimscope_sut`` selects the battery alone."""
_SUT_BATTERY: pytest.StashKey[tuple[list[str], list[LoadedScenario]]] = pytest.StashKey()
_SUT_RUN: pytest.StashKey[BatteryRun] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        TIMEOUT_INI,
        "seconds one scenario file may run before it fails as a timeout",
        default=f"{DEFAULT_SCENARIO_TIMEOUT_S:g}",
    )
    group = parser.getgroup("trimscope")
    group.addoption(
        "--trimscope-sut",
        metavar="CMD",
        default=None,
        help="run the portable battery against the runtime CMD starts (it speaks the SUT"
        " protocol, docs/sut-protocol.md): one item per scenario, under trimscope-sut",
    )
    group.addoption(
        "--trimscope-sut-scenarios",
        metavar="PATH",
        action="append",
        default=[],
        help="scenario files or folders for --trimscope-sut (repeatable; default: the"
        " bundled library); their portable scenarios are the battery",
    )


def pytest_configure(config: pytest.Config) -> None:
    _timeout(config)  # a bad setting is a usage error before anything is collected
    command = config.getoption("trimscope_sut")
    if command is not None:  # checked here: a bad command or file runs nothing
        config.stash[_SUT_BATTERY] = _sut_battery(config, command)


def _sut_battery(config: pytest.Config, command: str) -> tuple[list[str], list[LoadedScenario]]:
    try:
        argv = resolve_command(command)
    except CommandError as error:
        raise pytest.UsageError(str(error).replace("--sut", "--trimscope-sut", 1)) from None
    given = config.getoption("trimscope_sut_scenarios")
    paths = [Path(p) for p in given] or [scenario_library()]
    try:
        return argv, portable_battery(paths)
    except ScenarioError as error:
        raise pytest.UsageError("\n".join(error.problems)) from None


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect: they see the battery too
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if _SUT_BATTERY not in config.stash:
        return
    argv, battery = config.stash[_SUT_BATTERY]
    run = config.stash[_SUT_RUN] = BatteryRun(argv, _timeout(config))
    node = SutBattery.from_parent(session, name=SUT_NODE, nodeid=SUT_NODE, battery=battery, run=run)
    collected = list(node.collect())
    # Reported as collected, so the terminal's "collected N items" counts the battery too.
    config.hook.pytest_collectreport(
        report=pytest.CollectReport(SUT_NODE, "passed", None, [*collected])
    )
    items.extend(collected)


def pytest_sessionfinish(session: pytest.Session) -> None:
    run = session.config.stash.get(_SUT_RUN, None)
    if run is not None:
        run.close()  # the runtime's process group reaped, the fake host stopped


def _timeout(config: pytest.Config) -> float:
    text = str(config.getini(TIMEOUT_INI))
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise pytest.UsageError(f"{TIMEOUT_INI}: expected seconds > 0, found {text!r}")
    return value


def looks_like_scenario(path: Path, rootpath: Path) -> bool:
    """A ``.yaml``/``.yml`` file under a ``scenarios`` folder (below the rootdir), or one
    with top-level ``rules:`` and ``conversation:`` keys."""
    if path.suffix not in (".yaml", ".yml"):
        return False
    try:
        folders = path.relative_to(rootpath).parts[:-1]
    except ValueError:
        folders = path.parts[:-1]
    if SCENARIO_FOLDER in folders:
        return True
    try:  # bounded, and never opens a FIFO or a device (a plain read would block on them)
        text = read_bytes(path, DEFAULT_LIMITS).decode("utf-8", errors="replace")
    except SourceProblem:
        return False
    return bool(_TOP_LEVEL_RULES.search(text) and _TOP_LEVEL_CONVERSATION.search(text))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> ScenarioFile | None:
    if looks_like_scenario(file_path, parent.config.rootpath):
        file: ScenarioFile = ScenarioFile.from_parent(parent, path=file_path)
        return file
    return None


class ScenarioFile(pytest.File):
    """One scenario file: validated at collection, one item."""

    def collect(self) -> Iterator[ScenarioItem]:

        shown = Path(os.path.relpath(self.path, self.config.invocation_params.dir))
        try:
            loaded = load_scenario(self.path, shown_as=shown)
        except ScenarioError as error:
            raise self.CollectError("\n".join(error.problems)) from None
        seen = self.config.stash.setdefault(_SEEN, {})
        first = seen.setdefault(loaded.scenario.id, loaded)
        if first.path.resolve() != loaded.path.resolve():
            raise self.CollectError(duplicate_id(loaded, first))
        yield ScenarioItem.from_parent(self, name=loaded.scenario.id, loaded=loaded)


class ScenarioFailed(HarnessError, AssertionError):
    """The scenario ran; some expectations were not met (each failure a readable diff)."""

    def __init__(self, loaded: LoadedScenario, failures: list[str]) -> None:
        self.failures = failures
        header = (
            f"scenario {loaded.scenario.id} ({loaded.path}:{loaded.id_line}):"
            f" {len(failures)} expectation(s) not met"
        )
        super().__init__("\n".join([header, *failures]))


class ScenarioItem(pytest.Item):
    def __init__(self, *, loaded: LoadedScenario, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.loaded = loaded
        self.extra_keyword_matches.update(loaded.scenario.tags)

    def runtest(self) -> None:
        timeout = _timeout(self.config)
        try:
            run = asyncio.run(asyncio.wait_for(run_scenario(self.loaded.scenario), timeout))
        except TimeoutError:
            failure = f"timeout: still running after {timeout:g}s, cancelled"
            raise ScenarioFailed(self.loaded, [failure]) from None
        failures = check(run)
        if failures:
            raise ScenarioFailed(self.loaded, failures)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: TracebackStyle | None = None,
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.loaded.id_line - 1, f"scenario {self.loaded.scenario.id}"


# --- the portable battery against a runtime under test (--trimscope-sut) -------------


class SutBattery(pytest.Collector):
    """The ``trimscope-sut`` node: one item per portable scenario."""

    def __init__(self, *, battery: list[LoadedScenario], run: BatteryRun, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.battery = battery
        self.run = run

    def collect(self) -> Iterator[SutItem]:
        for loaded in self.battery:
            yield SutItem.from_parent(self, name=loaded.scenario.id, loaded=loaded)


class SutFailed(HarnessError, AssertionError):
    """The runtime under test broke invariants on the scenario, or faulted."""


class SutItem(pytest.Item):
    def __init__(self, *, loaded: LoadedScenario, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.loaded = loaded
        self.extra_keyword_matches.update({SUT_KEYWORD, *loaded.scenario.tags})

    def runtest(self) -> None:
        assert isinstance(self.parent, SutBattery)
        outcome = self.parent.run.run(self.loaded)
        if outcome.verdict == "SKIP":
            pytest.skip(outcome.skipped_reason or "skipped")
        if outcome.verdict != "PASS":
            raise SutFailed(failure_text(outcome, self.loaded))

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: TracebackStyle | None = None,
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, SutFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.loaded.path, self.loaded.id_line - 1, f"{SUT_NODE} {self.loaded.scenario.id}"


# --- fixtures for users' own tests ---------------------------------------------------


@pytest.fixture
def event_bus() -> EventBus:
    """A strict bus: an observer that raises fails the test."""
    return EventBus(strict=True)


@pytest.fixture
def event_recorder(event_bus: EventBus) -> EventRecorder:
    """Every event published on ``event_bus``, in order (``.events``)."""
    recorder = EventRecorder()
    event_bus.subscribe(recorder)
    return recorder


@pytest.fixture
def fake_provider() -> FakeProviderFactory:
    """``fake_provider(kind="openai", model="fake-model", *, context_window=None,
    counter="heuristic", script=(), default=None, variant="default")``."""
    return FakeProviderFactory()


@pytest.fixture
def agent(event_bus: EventBus, fake_provider: FakeProviderFactory) -> Iterator[AgentFactory]:
    """``agent(fake=None, *, context_window=None, runtime=None, routes=None,
    system_prompt=None, tools=(), tool_mode="native", classifier="extended")``: an Agent
    publishing on ``event_bus``; its HTTP clients are closed at teardown."""
    factory = AgentFactory(event_bus, fake_provider)
    try:
        yield factory
    finally:
        factory.close()
