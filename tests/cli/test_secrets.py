"""An API key given in ``--base-url`` userinfo, or echoed back by an endpoint partly masked
(``sk-abc****1234``, as OpenAI's 401 does), reaches no output: stdout, stderr, the JSON and
Markdown reports, transcripts, spans, logs."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from typer.testing import CliRunner

from fakes.pytest_plugin import FakeServerFactory
from harness.cli import app
from harness.cli.conformance import USERINFO_KEY_VARIABLE
from harness.cli.secrets import split_userinfo
from harness.conformance import EndpointUnusable, markdown, plan, run_conformance, to_json_text
from harness.conformance.metered import REDACTED, Redactor
from harness.telemetry.exporters import JsonLinesSpanExporter
from harness.telemetry.otel import OtelObserver
from harness.telemetry.transcript import TranscriptWriter
from tests.conformance.support import MODEL, key_echoing_endpoint, options, serve

SECRET = "sk-userinfo-DISTINCTIVE-7d3a91c0b2e4"
MASKED = f"{SECRET[:8]}{'*' * 30}{SECRET[-4:]}"  # OpenAI's shape: 8 shown, 4 shown


def test_a_key_in_base_url_userinfo_is_sent_as_auth_and_shown_nowhere(
    tmp_path: Path, fake_server: FakeServerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    running, base_url = serve(fake_server, "openai", 2000)
    with_key = base_url.replace("http://", f"http://user:{SECRET}@")
    json_path, md_path = tmp_path / "report.json", tmp_path / "report.md"
    result = CliRunner().invoke(
        app,
        ["conformance", "--provider", "openai", "--base-url", with_key, "--model", MODEL,
         "--context-window", "2000", "--json", str(json_path), "--markdown", str(md_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    calls = running.fake.log.calls()
    assert calls
    assert all(c.request_headers.get("authorization") == f"Bearer {SECRET}" for c in calls)
    produced = {
        "output": result.output,
        "json": json_path.read_text(encoding="utf-8"),
        "markdown": md_path.read_text(encoding="utf-8"),
        "logs": caplog.text,
    }
    assert base_url in produced["json"]  # the endpoint is reported, without its userinfo
    for name, text in produced.items():
        assert SECRET not in text, name
        assert "user:" not in text, name


def test_a_key_given_twice_is_refused_without_showing_it() -> None:
    result = CliRunner().invoke(
        app,
        ["conformance", "--provider", "openai", "--model", "m", "--api-key-env", "HOME",
         "--base-url", f"http://:{SECRET}@127.0.0.1:9/v1"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "not both" in result.output
    assert SECRET not in result.output


def test_an_at_sign_outside_a_url_is_refused_without_echoing_it() -> None:
    result = CliRunner().invoke(
        app,
        ["conformance", "--provider", "openai", "--model", "m", "--base-url", f"{SECRET}@host"],
    )
    assert result.exit_code == 2
    assert SECRET not in result.output


def _masked(key: str) -> str:
    """As OpenAI's 401 quotes a key: its first 8 and last 4 characters around stars."""
    return f"{key[:8]}{'*' * 30}{key[-4:]}"


@pytest.mark.anyio
async def test_a_masked_echo_of_the_key_reaches_no_report_transcript_span_or_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    split = split_userinfo(f"http://u:{SECRET}@proxy.test/v1")
    chosen = options("openai", split.url, declared=1000, api_key_env=USERINFO_KEY_VARIABLE)
    transcript = TranscriptWriter(tmp_path / "transcript.jsonl")
    spans = TracerProvider()
    spans.add_span_processor(SimpleSpanProcessor(JsonLinesSpanExporter(tmp_path / "spans.jsonl")))
    otel = OtelObserver(spans)
    report = await run_conformance(
        plan(chosen, {USERINFO_KEY_VARIABLE: split.key or ""}),
        transport=httpx.MockTransport(key_echoing_endpoint(_masked)),
        observers=(transcript, otel),
    )
    otel.close()
    spans.shutdown()
    transcript.close()
    produced = {
        "json": to_json_text(report),
        "markdown": markdown(report),
        "transcript": (tmp_path / "transcript.jsonl").read_text(encoding="utf-8"),
        "spans": (tmp_path / "spans.jsonl").read_text(encoding="utf-8"),
        "logs": caplog.text,
    }
    assert f"bad pairing, key {REDACTED}" in produced["json"]  # the echo was there
    for name, text in produced.items():
        assert MASKED not in text, name
        assert SECRET[:8] + "***" not in text, name


@pytest.mark.anyio
async def test_a_401_quoting_the_masked_key_is_redacted() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        message = f"Incorrect API key provided: {MASKED}. You can find your API key at ..."
        return httpx.Response(401, json={"error": {"message": message, "code": "invalid_api_key"}})

    chosen = options("openai", "http://proxy.test/v1", declared=1000, api_key_env="K")
    with pytest.raises(EndpointUnusable) as raised:
        await run_conformance(plan(chosen, {"K": SECRET}), transport=httpx.MockTransport(refuse))
    assert MASKED not in str(raised.value)
    assert f"Incorrect API key provided: {REDACTED}." in str(raised.value)


KEYS = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEF0123456789-_"), min_size=12)


@given(
    key=KEYS, shown_head=st.integers(0, 10), shown_tail=st.integers(0, 6), stars=st.integers(3, 60)
)
def test_any_masked_form_of_the_key_is_redacted(
    key: str, shown_head: int, shown_tail: int, stars: int
) -> None:
    head, tail = key[:shown_head], key[len(key) - shown_tail :]
    if not head and not tail:
        head = key[:1]
    masked = head + "*" * stars + tail
    text = f"error: key {masked}. Refused; {key} too"
    assert Redactor(key)(text) == f"error: key {REDACTED}. Refused; {REDACTED} too"


@given(key=KEYS)
def test_asterisks_that_are_not_the_key_are_left_alone(key: str) -> None:
    other = "zz" + key[1:] if key[0] != "z" else "yy" + key[1:]
    text = f"markdown **bold** and {other[:6]}****{other[-1]}x"
    assert Redactor(key)(text) == text


@pytest.mark.parametrize(
    ("url", "clean", "key"),
    [
        ("https://api.test/v1", "https://api.test/v1", None),
        (f"https://u:{SECRET}@api.test/v1", "https://api.test/v1", SECRET),
        (f"https://{SECRET}@api.test:8443/v1", "https://api.test:8443/v1", SECRET),
        ("http://u:a%40b@127.0.0.1:9/v1", "http://127.0.0.1:9/v1", "a@b"),
    ],
)
def test_userinfo_is_split_off(url: str, clean: str, key: str | None) -> None:
    split = split_userinfo(url)
    assert (split.url, split.key) == (clean, key)
    assert SECRET not in repr(split)
