"""A proxied runtime on the dashboards: ``trimscope proxy`` publishes each finding as the
events the reference agent emits (``source="wire"``), so the agent's own series and spans
show it: a real proxy process, a real fake, a client that trims like LangChain's
``strategy="last"`` (a tool result kept without its call)."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import httpx

from fakes.pytest_plugin import FakeServerFactory
from tests.interrupting import finish
from tests.proxy.test_cli import _proxy, _sample

SYSTEM = {"role": "system", "content": "You answer questions about planets."}
LOOKUP = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
CALL = {"role": "assistant", "content": None, "tool_calls": [LOOKUP]}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "Saturn has rings."}


def _turns() -> list[list[object]]:
    first = {"role": "user", "content": "Which planets have rings around them?"}
    answer = {"role": "assistant", "content": "Saturn, mostly."}
    second = {"role": "user", "content": "How many moons does Saturn have today?"}
    return [
        [SYSTEM, first, CALL, RESULT],
        [SYSTEM, first, CALL, RESULT, answer, second],
        [SYSTEM, second],  # a trim on a turn boundary: the first turn dropped
        [SYSTEM, RESULT, second],  # a tool result whose call was cut: the fake refuses it
    ]


def test_findings_feed_the_agents_series_and_spans_under_the_wire_source(
    fake_server: FakeServerFactory, tmp_path: Path
) -> None:
    fake = fake_server("openai", "m", context_window=4000)
    spans_path = tmp_path / "spans.jsonl"
    running, base = _proxy(
        fake.base_url + "/v1", tmp_path, "--otel-jsonl", str(spans_path),
        "--provider-name", "openai.proxied",
    )  # fmt: skip
    statuses = [
        httpx.post(
            base + "/chat/completions",
            json={"model": "m", "messages": messages},
            headers={"x-trimscope-session": "lc-1"},
        ).status_code
        for messages in _turns()
    ]
    assert statuses == [200, 200, 200, 400]
    running.process.send_signal(signal.SIGTERM)
    code, _, err = finish(running)
    assert code == 143, err
    metrics = (tmp_path / "metrics.prom").read_text()
    trims = '{provider="openai.proxied",reason="other",source="wire",trigger="wire"}'
    assert _sample(metrics, "trimscope_history_trims_total", trims) == 1
    orphans = '{kind="orphan_tool_result",source="wire",wire="openai_chat"}'
    assert _sample(metrics, "trimscope_wire_findings_total", orphans) == 1
    findings = [json.loads(line) for line in (tmp_path / "findings.jsonl").read_text().splitlines()]
    assert {"trim", "orphan_tool_result"} <= {f["kind"] for f in findings}
    spans = [json.loads(line) for line in spans_path.read_text().splitlines()]
    sources = {
        event["attributes"].get("trimscope.source")
        for span in spans
        for event in span.get("events", [])
    }
    assert "wire" in sources
