"""One input contract for every command: an invalid option value (out of range, wrong type,
unknown choice), an output path that cannot be written, a busy or impossible port, a host
that does not resolve, or a malformed ``OTEL_*`` variable exits 2 with a message naming the
option (or variable) and the value, before any work: nothing is written, nothing is run,
and no traceback is shown.

In process (typer's CliRunner) for speed; the work each command would do is replaced by a
function that fails the test, so a check that lets a bad value through cannot go unnoticed
(and a fake server cannot serve forever). A few real subprocesses close the file.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = str(ROOT / "scenarios" / "budget-proactive-drops-oldest-turns.yaml")
BOX = str.maketrans("", "", "│╭╮╰╯─")

# Placeholders, replaced per test: a folder, a path under a regular file, a path on a
# read-only filesystem (unwritable even for root, who passes every permission check), and
# a port some socket is listening on.
FOLDER, UNDER_FILE, READ_ONLY, BUSY = "{folder}", "{file}/out", "/proc/trimscope-out", "{busy}"
UNWRITABLE = (FOLDER, UNDER_FILE, READ_ONLY)
FILE_DIR = ("{file}", READ_ONLY)  # for options that take a folder


@dataclass(frozen=True)
class Case:
    args: tuple[str, ...]
    names: str  # what the message must name (the option or the variable)
    env: tuple[tuple[str, str], ...] = ()
    shows: str | None = None  # what of the value the message shows, when not all of it

    def __str__(self) -> str:
        return " ".join(self.args)


def _paths(command: tuple[str, ...], option: str, values: tuple[str, ...]) -> list[Case]:
    return [Case((*command, option, value), option) for value in values]


def _values(command: tuple[str, ...], option: str, *values: str) -> list[Case]:
    return [Case((*command, option, value), option) for value in values]


RUN = ("run", SCENARIO)
LOAD = ("load", "--sessions", "1", "--turns", "1")
FAKE = ("fake", "serve", "--provider", "openai", "--model", "m")
FAKE_OK = (*FAKE, "--context-window", "1000")
CONFORMANCE = ("conformance", "--provider", "openai", "--model", "m")
ENDPOINT = (*CONFORMANCE, "--base-url", "http://127.0.0.1:9/v1")
# The other outputs in the test's folder: the defaults are relative to the repository, and
# their folder does not exist where the test runs.
DASHBOARD_OUTPUTS = {"--out": "{folder}/json", "--alerts": "{folder}/a.yml",
                     "--provisioning": "{folder}/provisioning"}  # fmt: skip


def _dashboards(option: str, values: tuple[str, ...]) -> list[Case]:
    others = [part for name, value in DASHBOARD_OUTPUTS.items() if name != option
              for part in (name, value)]  # fmt: skip
    return _paths(("dashboards", "build", *others), option, values)


PROXY = ("proxy", "--upstream", "http://127.0.0.1:9/v1", "--wire", "openai_chat")
PROXY_OK = (*PROXY, "--port", "0")
MISSING_FOLDER = "{folder}/missing/out"  # the proxy creates no folder an output would need

CASES: list[Case] = [
    # trimscope run
    *_paths(RUN, "--junit-xml", UNWRITABLE),
    *_paths(RUN, "--otel-jsonl", UNWRITABLE),
    *_paths(RUN, "--metrics-out", UNWRITABLE),
    *_paths(RUN, "--transcript", FILE_DIR),
    *_values(RUN, "--serve-metrics", "70000", "-1", "abc", BUSY),
    *_values((*RUN, "--serve-metrics", "0"), "--hold-metrics", "-1", "3601", "abc", "nan"),
    Case((*RUN, "--otel-jsonl", "{folder}/s.jsonl"), "OTEL_TRACES_SAMPLER",
         (("OTEL_TRACES_SAMPLER", "sometimes"),)),
    Case((*RUN, "--otel-jsonl", "{folder}/s.jsonl"), "OTEL_TRACES_SAMPLER_ARG",
         (("OTEL_TRACES_SAMPLER", "traceidratio"), ("OTEL_TRACES_SAMPLER_ARG", "2"))),
    Case((*RUN, "--otlp"), "OTEL_EXPORTER_OTLP_ENDPOINT",
         (("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"),)),
    Case((*RUN, "--otlp"), "OTEL_EXPORTER_OTLP_HEADERS",
         (("OTEL_EXPORTER_OTLP_HEADERS", "no-equals-sign"),)),
    Case((*RUN, "--otlp"), "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
         (("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "-5"),)),
    Case((*RUN, "--otlp"), "OTEL_RESOURCE_ATTRIBUTES", (("OTEL_RESOURCE_ATTRIBUTES", "team"),)),
    # trimscope load
    *_paths(LOAD, "--json", UNWRITABLE),
    *_paths(LOAD, "--otel-jsonl", UNWRITABLE),
    *_paths(LOAD, "--write-plan", UNWRITABLE),
    *_values(("load",), "--sessions", "0", "abc", "10000001"),
    *_values(("load",), "--concurrency", "0", "2001", "1.5"),
    *_values(("load",), "--turns", "0", "1001"),
    *_values(("load",), "--duration", "0", "nan", "inf", "86401"),
    *_values(LOAD, "--serve-metrics", "65536", BUSY),
    *_values((*LOAD, "--otel-jsonl", "{folder}/s.jsonl"), "--trace-sample", "1.5", "nan"),
    *_values(LOAD, "--context-window", "63", "100000001", "big"),
    *_values(LOAD, "--latency-ms", "-1", "60001"),
    *_values((*LOAD, "--locust"), "--workers", "0", "65"),
    *_values(LOAD, "--provider", "nosuchkind"),
    *_values((*LOAD, "--scenario", SCENARIO), "--limit", "bogus", "sessions=5"),
    Case((*LOAD, "--scenario", SCENARIO, "--limit", "turns=x"), "--limit", shows="turns"),
    Case((*LOAD, "--limit", "turns=5"), "--limit", shows="--scenario"),  # it reads no file
    Case((*LOAD, "--otlp"), "OTEL_EXPORTER_OTLP_COMPRESSION",
         (("OTEL_EXPORTER_OTLP_COMPRESSION", "zip"),)),
    # trimscope fake serve
    *_values(FAKE, "--context-window", "0", "100000001", "lots"),
    *_values(FAKE_OK, "--port", "65536", "-2", BUSY),
    *_values(FAKE_OK, "--host", "no-such-host.invalid"),
    *_values(FAKE_OK, "--counter", "bogus"),
    *_values(FAKE_OK, "--variant", "bogus"),
    *_values(FAKE_OK, "--script", "{folder}/missing.yaml"),
    Case(("fake", "serve", "--provider", "nosuch", "--model", "m", "--context-window", "9"),
         "--provider"),
    # trimscope conformance
    *_paths(ENDPOINT, "--json", UNWRITABLE),
    *_paths(ENDPOINT, "--markdown", UNWRITABLE),
    *_values(ENDPOINT, "--context-window", "0", "100000001", "x"),
    *_values(ENDPOINT, "--max-requests", "0", "10001"),
    *_values(ENDPOINT, "--max-input-tokens", "0", "2000000001"),
    *_values(ENDPOINT, "--provider-side", "truncation", "bogus"),  # not an openai option
    Case(("conformance", "--provider", "anthropic", "--model", "m", "--base-url",
          "http://127.0.0.1:9/v1", "--provider-side", "compact", "--provider-side", "compact"),
         "--provider-side"),  # each option once: the probes are bounded by the options
    Case((*CONFORMANCE, "--base-url", "http://no-such-host.invalid/v1"), "--base-url",
         shows="no-such-host.invalid"),
    *_values(CONFORMANCE, "--base-url", "ftp://host/v1"),
    *_values(CONFORMANCE, "--base-url", "http://127.0.0.1:99999/v1", "http://127.0.0.1:0/v1"),
    Case(("conformance", "--provider", "nosuch", "--model", "m", "--base-url", "http://x/v1"),
         "--provider"),
    # trimscope proxy
    *_values(("proxy", "--wire", "openai_chat", "--port", "0"), "--upstream",
             "ftp://host/v1", "http:///v1", "http://127.0.0.1:9/v1?x=1", "http://h:99999/v1"),
    Case(("proxy", "--wire", "openai_chat", "--port", "0", "--upstream",
          "http://user:sk-SECRET@127.0.0.1:9/v1"), "--upstream", shows="127.0.0.1:9/v1"),
    *_values((*PROXY[:3], "--port", "0"), "--wire", "openai-chat", "nosuch"),
    *_values(PROXY, "--port", "65536", "-1", BUSY),
    *_values(PROXY_OK, "--host", "no-such-host.invalid", "8.8.8.8"),
    *_values(PROXY_OK, "--session-header", "a b", "x:y", "h" * 129),
    *_values(PROXY_OK, "--session-idle-s", "0", "nan", "604801"),
    *_values(PROXY_OK, "--max-body-bytes", "-1", "1023", "1073741825"),
    *_values(PROXY_OK, "--upstream-timeout-s", "0", "-1", "3601", "nan"),
    *_paths(PROXY_OK, "--findings-jsonl", (*UNWRITABLE, MISSING_FOLDER)),
    *_paths(PROXY_OK, "--metrics-out", (*UNWRITABLE, MISSING_FOLDER)),
    *_paths(PROXY_OK, "--record", (*FILE_DIR, MISSING_FOLDER)),
    *_values(PROXY_OK, "--serve-metrics", "65536", BUSY),
    # the remaining options and arguments of each command
    *_values(RUN, "-k", "no-scenario-has-this", "", "[", "(?P<"),
    # an output whose folder is missing: refused, never created (a typo builds no tree)
    *_values(RUN, "--junit-xml", "{folder}/missing/j.xml"),
    *_values(RUN, "--transcript", "{folder}/missing/deeper"),
    *_values(LOAD, "--json", "{folder}/missing/s.json"),
    *_values(("report", "{folder}/t.jsonl"), "-o", "{folder}/missing/r.html"),
    Case(("validate", "{folder}/missing.yaml"), "{folder}/missing.yaml"),
    Case(("run", "{folder}/missing.yaml"), "{folder}/missing.yaml"),
    Case((*LOAD, "--scenario", "{folder}/missing.yaml"), "{folder}/missing.yaml"),  # file:line
    *_values(ENDPOINT, "--model", "", " "),
    *_values(ENDPOINT, "--api-key-env", "TRIMSCOPE_TEST_SURELY_UNSET"),
    Case(("scenarios", "index", "{folder}/none"), "{folder}/none"),
    # an empty value means nothing anywhere (an empty path would be the current folder)
    *_values(RUN, "--transcript", ""),
    *_values(FAKE_OK, "--model", ""),
    Case((*RUN, "--otel-jsonl="), "--otel-jsonl", shows="empty"),
    # trimscope report, dashboards, scenarios
    *_paths(("report", "{folder}/t.jsonl"), "-o", UNWRITABLE),
    *_dashboards("--alerts", UNWRITABLE),
    *_dashboards("--out", FILE_DIR),
    *_paths(("scenarios", "schema"), "--out", UNWRITABLE),
    *_paths(("scenarios", "index", str(ROOT / "scenarios")), "--readme", UNWRITABLE),
]  # fmt: skip


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


@pytest.fixture(autouse=True)
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever each command does once its inputs are accepted fails the test instead."""

    def worked(*_: object, **__: object) -> None:
        pytest.fail("the command started its work: an invalid input was accepted")

    for target in (
        "harness.cli.run.run_suite",
        "harness.cli.run.build_telemetry",
        "harness.cli.load.run_load",
        "harness.cli.load.run_locust",
        "harness.cli.load.write_plan",
        "harness.cli.fake.serve_forever",
        "harness.cli.proxy.CollectorRegistry",  # the proxy's first step once inputs are valid
        "harness.cli.conformance.run_conformance",
        "harness.cli.report.write_report",
        "dashboards.write_all",
        "harness.cli.scenarios_cmd.schema_json",
    ):
        monkeypatch.setattr(target, worked)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _flat(text: str) -> str:
    return "".join(text.translate(BOX).split())


@pytest.mark.parametrize("case", CASES, ids=str)
def test_invalid_input_exits_2_naming_it_and_nothing_is_written(
    case: Case, tmp_path: Path, busy_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    a_file = tmp_path / "file"
    a_file.write_text("x")
    (folder / "t.jsonl").write_text("")
    monkeypatch.chdir(tmp_path)  # a default output, if one were written, would land here
    for name in [n for n in os.environ if n.startswith("OTEL_")]:
        monkeypatch.delenv(name)
    args = [
        a.format(folder=folder, file=a_file, busy=busy_port).replace("{file}", str(a_file))
        for a in case.args
    ]
    before = _snapshot(tmp_path)
    result = CliRunner().invoke(app, args, env=dict(case.env))
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    message = _flat(result.output)
    names = case.names.format(folder=folder)
    assert _flat(names) in message, result.output
    if case.shows is not None:
        value = case.shows
    elif names in args and args.index(names) + 1 < len(args):
        value = args[args.index(names) + 1]
    elif names in args:
        value = names  # an argument: the name is the value
    else:
        value = dict(case.env)[case.names]
    assert _flat(value) in message, result.output
    assert _snapshot(tmp_path) == before


def test_two_options_cannot_write_the_same_file(tmp_path: Path) -> None:
    same = str(tmp_path / "same.out")
    result = CliRunner().invoke(app, [*RUN, "--junit-xml", same, "--metrics-out", same])
    assert result.exit_code == 2
    assert "--junit-xml" in _flat(result.output)
    assert list(tmp_path.iterdir()) == []


def _trimscope(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from harness.cli import main; main()", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["run", SCENARIO, "--junit-xml", "/proc/trimscope.xml"],
        ["fake", "serve", "--provider", "openai", "--model", "m", "--context-window", "10",
         "--host", "no-such-host.invalid"],
        ["load", "--sessions", "0"],
    ],
    ids=["run-unwritable", "fake-host", "load-range"],
)  # fmt: skip
def test_the_real_command_exits_2_without_a_traceback(args: list[str]) -> None:
    done = _trimscope(*args)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert args[-2] in _flat(done.stderr)
