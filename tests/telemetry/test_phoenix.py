"""Spans in a real trace backend: ``trimscope run --otlp`` and ``trimscope load --otlp``
export to Arize Phoenix (its own venv, ``scripts/ensure-phoenix.sh``), and every span read
back through Phoenix's REST API matches the span our own JSON-lines exporter wrote in the
same run: trace, parent, name, OpenInference kind, every attribute and every event.

Phoenix keeps no OTLP span kind: its OTLP read-back reports every span ``INTERNAL`` ("because
OpenInference uses its own SpanKind", phoenix/server/api/routers/v1/spans.py), and derives
``openinference.span.kind`` from our GenAI operation names. The kind checked is that one.
Every listener binds 127.0.0.1 (``scripts/phoenix_loopback.py``; checked below).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.telemetry import names as n

REPO = Path(__file__).resolve().parents[2]
PHOENIX_PYTHON = REPO / ".tools" / "phoenix" / "bin" / "python"
LAUNCHER = REPO / "scripts" / "phoenix_loopback.py"
START_SECONDS = 180  # measured ~15 s alone on 2 cores; shared machines are slower
ARRIVE_SECONDS = 60
COMMAND_SECONDS = 300
# Our GenAI operation → the OpenInference kind Phoenix must file the span under.
OPENINFERENCE_KIND = {
    n.OPERATION_INVOKE_AGENT: "AGENT",
    n.OPERATION_CHAT: "LLM",
    n.OPERATION_EXECUTE_TOOL: "TOOL",
}
SCENARIOS = (  # trims, a recovery after an in-stream overflow, tool rounds, a refusal
    "budget-proactive-drops-oldest-turns",
    "provider-anthropic-in-stream-overflow-recovers",
    "capacity-counts-tool-schemas-equality-fits",
    "longsession-tool-heavy-150-turns",
)

pytestmark = pytest.mark.integration


def _require_phoenix() -> None:
    if any(PHOENIX_PYTHON.parents[1].glob(".installed-*")):  # the install script's stamp
        return
    message = "Arize Phoenix is not installed: run scripts/ensure-phoenix.sh (or make phoenix)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}; CI must read spans back from a real backend")
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(pid: int) -> set[str]:
    """``address:port`` of every TCP socket process ``pid`` listens on (Linux /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(fd) if fd.is_symlink() else ""
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    found = set()
    for table in ("tcp", "tcp6"):
        for row in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                address, port = fields[1].split(":")
                raw = bytes.fromhex(address)
                if table == "tcp":
                    host = socket.inet_ntop(socket.AF_INET, raw[::-1])
                else:  # four little-endian 32-bit words
                    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
                    host = socket.inet_ntop(socket.AF_INET6, words)
                found.add(f"{host}:{int(port, 16)}")
    return found


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    _require_phoenix()
    port = _free_port()
    work = tmp_path_factory.mktemp("phoenix")
    log = (work / "phoenix.log").open("w")
    server = subprocess.Popen(
        [str(PHOENIX_PYTHON), str(LAUNCHER), str(port), str(work)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline and server.poll() is None:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail(f"Phoenix did not start: {(work / 'phoenix.log').read_text()[-2000:]}")
        assert _listening(server.pid) == {f"127.0.0.1:{port}"}
        yield url
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()


def _plain(value: dict[str, Any]) -> Any:
    """An OTLP JSON ``AnyValue`` as the Python value our JSON-lines exporter writes."""
    if value.get("array_value") is not None:
        return [_plain(v) for v in value["array_value"]["values"]]
    for key, cast in (("string_value", str), ("bool_value", bool), ("int_value", int)):
        if value.get(key) is not None:
            return cast(value[key])
    return value.get("double_value")


def _attributes(pairs: list[dict[str, Any]] | None) -> dict[str, Any]:
    return {pair["key"]: _plain(pair["value"]) for pair in pairs or []}


def _phoenix_spans(url: str, project: str, expected: int) -> dict[str, dict[str, Any]]:
    """Phoenix's spans of ``project`` by span id, once ``expected`` have arrived."""
    deadline = time.monotonic() + ARRIVE_SECONDS
    spans: dict[str, dict[str, Any]] = {}
    while time.monotonic() < deadline:
        spans, cursor = {}, None
        while True:
            params: dict[str, Any] = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
            answer = httpx.get(f"{url}/v1/projects/{project}/spans/otlpv1", params=params)
            if answer.status_code == 404:  # the project appears with its first span
                break
            answer.raise_for_status()
            body = answer.json()
            spans.update({span["span_id"]: span for span in body["data"]})
            if not (cursor := body.get("next_cursor")):
                break
        if len(spans) >= expected:
            return spans
        time.sleep(1)
    raise AssertionError(f"{len(spans)} of {expected} spans reached Phoenix")


def _export(url: str, project: str, tmp_path: Path, *args: str) -> list[dict[str, Any]]:
    """Run ``trimscope ARGS --otlp --otel-jsonl`` into Phoenix; our own copy of the spans."""
    local = tmp_path / f"{project}.jsonl"
    env = {
        **os.environ,
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{url}/v1/traces",
        "OTEL_RESOURCE_ATTRIBUTES": f"openinference.project.name={project}",
    }
    command = [sys.executable, "-c", "from harness.cli import main; main()", *args]
    done = subprocess.run(
        [*command, "--otlp", "--otel-jsonl", str(local), "--quiet"],
        env=env, capture_output=True, text=True, timeout=COMMAND_SECONDS, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in local.read_text(encoding="utf-8").splitlines()]


def _assert_same_spans(ours: list[dict[str, Any]], theirs: dict[str, dict[str, Any]]) -> None:
    assert ours, "the run exported no span"
    assert len(theirs) == len(ours)
    operations = set()
    for span in ours:
        got = theirs[span["context"]["span_id"].removeprefix("0x")]
        where = f"{span['name']} {span['context']['span_id']}"
        assert got["name"] == span["name"], where
        assert got["trace_id"] == span["context"]["trace_id"].removeprefix("0x"), where
        parent = span["parent_id"].removeprefix("0x") if span["parent_id"] else None
        assert (got["parent_span_id"] or None) == parent, where
        attributes = _attributes(got["attributes"])
        missing = {k: v for k, v in span["attributes"].items() if attributes.get(k) != v}
        assert not missing, f"{where}: changed or lost {missing}"
        operation = span["attributes"][n.GEN_AI_OPERATION_NAME]
        operations.add(operation)
        assert attributes["openinference.span.kind"] == OPENINFERENCE_KIND[operation], where
        events = [(e["name"], _attributes(e["attributes"])) for e in got["events"] or []]
        assert events == [(e["name"], e["attributes"]) for e in span["events"]], where
    assert operations >= {n.OPERATION_INVOKE_AGENT, n.OPERATION_CHAT}


def test_run_spans_arrive_intact(phoenix: str, tmp_path: Path) -> None:
    pattern = "^(" + "|".join(SCENARIOS) + ")$"
    ours = _export(phoenix, "trimscope-run", tmp_path, "run", "-k", pattern)
    _assert_same_spans(ours, _phoenix_spans(phoenix, "trimscope-run", len(ours)))
    kinds = {s["attributes"][n.GEN_AI_OPERATION_NAME] for s in ours}
    assert n.OPERATION_EXECUTE_TOOL in kinds
    events = {e["name"] for s in ours for e in s["events"]}
    assert {"trimscope.history_trimmed", "trimscope.budget_resolved"} <= events


def test_load_spans_arrive_intact(phoenix: str, tmp_path: Path) -> None:
    ours = _export(
        phoenix, "trimscope-load", tmp_path,
        "load", "--sessions", "4", "--concurrency", "2", "--turns", "3",
    )  # fmt: skip
    _assert_same_spans(ours, _phoenix_spans(phoenix, "trimscope-load", len(ours)))
