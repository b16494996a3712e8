"""``trimscope fake serve``'s options for what a scenario's fake can set (faults at a rate,
latency, caching, provider-side handling, the clock): each reaches the fake, and a bad value
exits 2 naming the option, before anything listens."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes import FakeProvider, FaultRates
from harness.cli import app

BASE = ["fake", "serve", "--provider", "anthropic", "--model", "m", "--context-window", "900"]
BOX = str.maketrans("", "", "│╭╮╰╯─")


def _served(monkeypatch: pytest.MonkeyPatch, *args: str) -> FakeProvider:
    caught: list[FakeProvider] = []
    monkeypatch.setattr(
        "harness.cli.fake.serve_forever", lambda fake, *_, **__: caught.append(fake)
    )
    result = CliRunner().invoke(app, [*BASE, *args])
    assert result.exit_code == 0, result.output
    return caught[0]


def test_every_option_reaches_the_fake(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _served(
        monkeypatch,
        *("--fault-rate", "rate_limit=0.25", "--fault-rate", "hang=0.05"),
        *("--seed", "11", "--retry-after", "3", "--hang-seconds", "2", "--fault-status", "529"),
        *("--caching", "none", "--handling", "reject", "--compaction-fails"),
        *("--latency-ms", "40", "--seconds-per-call", "60"),
    )
    assert fake.script.faults == FaultRates(
        rate_limit=0.25, hang=0.05, seed=11, status=529, retry_after=3, hang_seconds=2.0
    )
    assert fake.caching == "none"
    assert fake.provider_side.handling == "reject"
    assert fake.provider_side.compaction_fails
    assert fake.script.default.latency_ms == 40
    fake.take_call()
    fake.take_call()
    assert fake.clock() == 120.0


def test_a_scripts_rates_are_reseeded_by_seed_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(
        "steps:\n  - {text: one, latency_ms: 5}\nfault_rates: {server_error: 0.5, seed: 1}\n"
    )
    fake = _served(monkeypatch, "--script", str(script), "--seed", "9", "--latency-ms", "7")
    assert fake.script.faults == FaultRates(server_error=0.5, seed=9)
    assert fake.script.steps[0].latency_ms == 5  # the step's own latency wins
    assert fake.script.default.latency_ms == 7


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--fault-rate", "hang=1.5"), "--fault-rate"),
        (("--fault-rate", "flood=0.1"), "--fault-rate"),
        (("--fault-rate", "hang=0.6", "--fault-rate", "rate_limit=0.6"), "--fault-rate"),
        (("--fault-rate", "hang=0.1", "--fault-rate", "hang=0.2"), "--fault-rate"),
        (("--seed", "-1"), "--seed"),
        (("--fault-status", "404"), "--fault-status"),
        (("--hang-seconds", "601"), "--hang-seconds"),
        (("--latency-ms", "600001"), "--latency-ms"),
        (("--latency-ms", "-1"), "--latency-ms"),
        (("--caching", "sometimes"), "--caching"),
        (("--handling", "drop"), "--handling"),
        (("--seconds-per-call", "nan"), "--seconds-per-call"),
    ],
)
def test_a_bad_value_exits_2_naming_the_option(
    monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], named: str
) -> None:
    monkeypatch.setattr(
        "harness.cli.fake.serve_forever", lambda *_, **__: pytest.fail("served anyway")
    )
    result = CliRunner().invoke(app, [*BASE, *args])
    assert result.exit_code == 2, result.output
    assert named in "".join(result.output.translate(BOX).split()), result.output
    assert "Traceback" not in result.output


def test_a_scripts_bad_rates_are_file_line_problems(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("steps: []\nfault_rates:\n  hang: 0.7\n  rate_limit: 0.7\n")
    result = CliRunner().invoke(app, [*BASE, "--script", str(script)])
    assert result.exit_code == 2
    assert f"{script}:2: fault_rates: expected rates that sum to at most 1" in result.output
