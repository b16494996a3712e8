"""The pytest plugin: scenario files as test items, collection errors, fixtures."""

from __future__ import annotations

import asyncio
import os

import pytest
from pydantic import ValidationError

from harness.agent import echo_tool
from harness.events import ProviderCallStarted
from harness.scenarios.fixtures import AgentFactory, FakeProviderFactory
from harness.scenarios.runner import EventRecorder
from tests.scenarios.support import TINY, scenario

pytest_plugins = ["pytester"]


def test_plugin_is_registered_through_its_entry_point(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.hasplugin("trimscope_scenarios")


def _library(pytester: pytest.Pytester) -> None:
    folder = pytester.mkdir("scenarios")
    (folder / "alpha.yaml").write_text(scenario("alpha"))
    (folder / "beta.yml").write_text(scenario("beta").replace("rules:", "tags: [slow]\nrules:"))


def test_each_scenario_file_is_one_item_named_by_its_id(pytester: pytest.Pytester) -> None:
    _library(pytester)
    result = pytester.runpytest("scenarios", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["scenarios/alpha.yaml::alpha PASSED*", "scenarios/beta.yml::beta PASSED*"]
    )


def test_k_matches_ids_and_tags(pytester: pytest.Pytester) -> None:
    _library(pytester)
    pytester.runpytest("scenarios", "-k", "alpha").assert_outcomes(passed=1, deselected=1)
    pytester.runpytest("scenarios", "-k", "slow").assert_outcomes(passed=1, deselected=1)


def test_failing_scenario_shows_the_cli_diff(pytester: pytest.Pytester) -> None:
    folder = pytester.mkdir("scenarios")
    (folder / "wrong.yaml").write_text(scenario("wrong", answer="not ok"))
    result = pytester.runpytest("scenarios")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "scenario wrong (scenarios/wrong.yaml:1): 1 expectation(s) not met",
            "answers: expected ['not ok'], found ['ok']",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_invalid_file_is_a_collection_error_with_file_line_messages(
    pytester: pytest.Pytester,
) -> None:
    folder = pytester.mkdir("scenarios")
    (folder / "ok.yaml").write_text(TINY)
    (folder / "typo.yaml").write_text(
        scenario("typo", replace=("provider_calls: 1", "provider_calls: many"))
    )
    result = pytester.runpytest("scenarios")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting scenarios/typo.yaml*",
            "scenarios/typo.yaml:15: expect.counts.provider_calls:"
            " expected an integer, found 'many'",
        ]
    )


def test_duplicate_ids_across_files_are_a_collection_error(pytester: pytest.Pytester) -> None:
    folder = pytester.mkdir("scenarios")
    (folder / "a.yaml").write_text(TINY)
    (folder / "b.yaml").write_text(TINY)
    result = pytester.runpytest("scenarios")
    result.stdout.fnmatch_lines(
        [
            "scenarios/b.yaml:1: id: expected an id unique in the library,"
            " found 'tiny' again (first in scenarios/a.yaml:1)"
        ]
    )


def test_other_yaml_is_not_collected(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", ci="jobs:\n  test: {runs-on: ubuntu}\n")
    pytester.makefile(".yml", semgrep="rules:\n  - id: no-eval\n")
    (pytester.mkdir("elsewhere") / "case.yaml").write_text(scenario("outside"))
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["elsewhere/case.yaml::outside PASSED*"])


def test_fixtures_drive_an_agent_against_a_fake(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import asyncio

        def test_budget_trim(fake_provider, agent, event_recorder):
            fake = fake_provider("anthropic", "claude-test", script=[{"text": "ok"}])
            bot = agent(fake, context_window=8000, runtime={"max_context_tokens": 30},
                        system_prompt="sys")
            assert asyncio.run(bot.turn("first question, long enough to matter here")) == "ok"
            assert asyncio.run(bot.turn("second")) == "This is a fake reply."
            kinds = [type(e).__name__ for e in event_recorder.events]
            assert kinds.count("HistoryTrimmed") == 1
            assert len(fake.log) == 2
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_agent_fixture_routes_between_fakes_and_runs_tools(
    fake_provider: FakeProviderFactory, agent: AgentFactory, event_recorder: EventRecorder
) -> None:
    main = fake_provider(
        "openai",
        "gpt-main",
        script=[{"text": None, "tool_calls": [{"name": "echo", "arguments": {"text": "hi"}}]}],
        default={"text": "main"},
    )
    fast = fake_provider("anthropic", "claude-fast", default={"text": "fast"})
    bot = agent(
        {"openai.main": main, "anthropic.fast": fast},
        routes={
            "default": {"provider": "openai.main"},
            "model_routes": {"fast": {"provider": "anthropic.fast"}},
        },
        tools=[echo_tool()],
    )
    assert asyncio.run(bot.turn("use the tool")) == "main"
    assert asyncio.run(bot.turn("quick one", model="hint:fast")) == "fast"
    assert (len(main.log), len(fast.log)) == (2, 1)
    started = [e for e in event_recorder.events if isinstance(e, ProviderCallStarted)]
    assert [(e.provider, e.provider_kind) for e in started] == [
        ("openai.main", "openai"),
        ("openai.main", "openai"),
        ("anthropic.fast", "anthropic"),
    ]


def test_fake_provider_fixture_validates_steps_like_a_scenario(
    fake_provider: FakeProviderFactory,
) -> None:
    with pytest.raises(ValidationError, match="txet"):
        fake_provider("openai", script=[{"txet": "typo"}])
    assert fake_provider("openai-responses", "m", context_window=50).model.context_window == 50


def test_fifos_named_yaml_neither_block_nor_break_collection(pytester: pytest.Pytester) -> None:
    os.mkfifo(pytester.path / "pipe.yaml")  # a plain read would wait for a writer forever
    folder = pytester.mkdir("scenarios")
    (folder / "alpha.yaml").write_text(scenario("alpha"))
    os.mkfifo(folder / "pipe.yaml")
    result = pytester.runpytest_subprocess(timeout=120)
    result.assert_outcomes(passed=1)


def test_a_scenario_past_the_timeout_fails_and_the_others_run(pytester: pytest.Pytester) -> None:
    folder = pytester.mkdir("scenarios")
    (folder / "alpha.yaml").write_text(scenario("alpha"))
    hangs = scenario("hangs").replace(
        'default: {text: "ok"}', "default: {fault: {kind: hang, seconds: 60}}"
    )
    (folder / "hangs.yaml").write_text(hangs)
    pytester.makeini("[pytest]\ntrimscope_scenario_timeout = 0.5\n")
    result = pytester.runpytest("scenarios")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*timeout: still running after 0.5s, cancelled*"])


def test_a_bad_timeout_setting_is_a_usage_error(pytester: pytest.Pytester) -> None:
    _library(pytester)
    pytester.makeini("[pytest]\ntrimscope_scenario_timeout = soon\n")
    result = pytester.runpytest("scenarios")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*trimscope_scenario_timeout: expected seconds > 0, found 'soon'*"]
    )
