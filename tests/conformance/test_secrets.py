"""The API key is read from the named variable only, is sent as the wire's auth header on
every request, and appears in nothing trimscope produces: console, JSON, Markdown,
transcripts, spans, logs, error messages. Endpoint text that echoes it is redacted."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import httpx
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from rich.console import Console

from fakes.pytest_plugin import FakeServerFactory
from harness.conformance import (
    ConformanceConfigError,
    EndpointUnusable,
    markdown,
    plan,
    run_conformance,
    table,
    to_json_text,
)
from harness.telemetry.exporters import JsonLinesSpanExporter
from harness.telemetry.otel import OtelObserver
from harness.telemetry.transcript import TranscriptWriter
from tests.conformance.support import KEY_ENV, conform, key_echoing_endpoint, options

pytestmark = pytest.mark.anyio

SECRET = "sk-trimscope-DISTINCTIVE-5c1e7a93f04b"
AUTH_HEADER = {
    "openai": ("authorization", f"Bearer {SECRET}"),
    "azure": ("api-key", SECRET),
    "anthropic": ("x-api-key", SECRET),
    "gemini": ("x-goog-api-key", SECRET),
    "cohere": ("authorization", f"Bearer {SECRET}"),
    "ollama": ("authorization", f"Bearer {SECRET}"),
}


@pytest.mark.parametrize("kind", sorted(AUTH_HEADER))
async def test_key_is_sent_as_auth_and_never_appears_in_anything_produced(
    kind: str, tmp_path: Path, fake_server: FakeServerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    transcript = TranscriptWriter(tmp_path / "transcript.jsonl")
    spans = TracerProvider()
    spans.add_span_processor(SimpleSpanProcessor(JsonLinesSpanExporter(tmp_path / "spans.jsonl")))
    otel = OtelObserver(spans)
    result = await conform(
        fake_server, kind, 2000, environ={KEY_ENV: SECRET}, observers=(transcript, otel)
    )
    otel.close()
    spans.shutdown()
    transcript.close()
    header, value = AUTH_HEADER[kind]
    calls = result.fake.log.calls()
    assert calls
    assert all(call.request_headers.get(header) == value for call in calls)
    console = io.StringIO()
    Console(file=console, width=200).print(table(result.report))
    produced = {
        "console": console.getvalue(),
        "json": to_json_text(result.report),
        "markdown": markdown(result.report),
        "transcript": (tmp_path / "transcript.jsonl").read_text(encoding="utf-8"),
        "spans": (tmp_path / "spans.jsonl").read_text(encoding="utf-8"),
        "logs": caplog.text,
        "repr": repr(result.report),
    }
    assert produced["transcript"]
    assert produced["spans"]
    for name, text in produced.items():
        assert SECRET not in text, name


def test_key_comes_only_from_the_named_variable() -> None:
    chosen = options("openai", "http://127.0.0.1:9/v1", declared=None, api_key_env=KEY_ENV)
    with pytest.raises(ConformanceConfigError, match=f"{KEY_ENV} is not set") as raised:
        plan(chosen, {"OPENAI_API_KEY": SECRET})
    assert SECRET not in str(raised.value)
    assert plan(chosen, {KEY_ENV: SECRET}).api_key == SECRET
    assert SECRET not in repr(plan(chosen, {KEY_ENV: SECRET}))
    unnamed = options("openai", "http://127.0.0.1:9/v1", declared=None)
    assert plan(unnamed, {"OPENAI_API_KEY": SECRET}).api_key is None


async def test_endpoint_text_that_echoes_the_key_is_redacted() -> None:
    chosen = options("openai", "http://proxy.test/v1", declared=1000, api_key_env=KEY_ENV)
    report = await run_conformance(
        plan(chosen, {KEY_ENV: SECRET}),
        transport=httpx.MockTransport(key_echoing_endpoint(lambda key: key)),
    )
    rendered = to_json_text(report) + markdown(report)
    assert SECRET not in rendered
    assert "bad pairing, key [redacted]" in rendered
    assert "(key [redacted])" in rendered


async def test_unusable_endpoint_error_is_redacted_too() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        key = request.headers["authorization"].removeprefix("Bearer ")
        return httpx.Response(401, json={"error": {"message": f"Incorrect API key: {key}"}})

    chosen = options("openai", "http://proxy.test/v1", declared=1000, api_key_env=KEY_ENV)
    with pytest.raises(EndpointUnusable) as raised:
        await run_conformance(
            plan(chosen, {KEY_ENV: SECRET}), transport=httpx.MockTransport(refuse)
        )
    message = str(raised.value)
    assert SECRET not in message
    assert "openai: HTTP 401: " in message
    assert "Incorrect API key: [redacted]" in message
