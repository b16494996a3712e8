"""``trimscope conformance`` as a command: exit codes 0 / 1 / 2, the budget stated before
any request, the files it writes. The last tests run the real console scripts as
subprocesses: ``trimscope fake serve`` and ``trimscope conformance`` against it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from fakes import FakeScript, fail
from fakes.pytest_plugin import FakeServerFactory
from harness.cli import app
from tests.conformance.support import KEY_ENV, MODEL, serve
from tests.fake_serve import serve_fake, trimscope_command

SECRET = "sk-cli-DISTINCTIVE-0b9d54e2aa71"


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(app, ["conformance", *map(str, args)], env=env)


def test_conforming_endpoint_exits_0_and_writes_both_reports(
    tmp_path: Path, fake_server: FakeServerFactory
) -> None:
    _, base_url = serve(fake_server, "openai", 2000)
    json_path, md_path = tmp_path / "out" / "report.json", tmp_path / "report.md"
    json_path.parent.mkdir()
    result = invoke(
        "--provider", "openai", "--base-url", base_url, "--model", MODEL,
        "--context-window", "2000", "--json", json_path, "--markdown", md_path,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1].startswith("budget: at most 40 requests and 32,000 input tokens")
    assert "openai endpoint CONFORMS" in result.stdout
    document = json.loads(json_path.read_text(encoding="utf-8"))
    assert (document["conforms"], document["exit_code"], document["reasons"]) == (True, 0, [])
    assert {c["name"]: c["verdict"] for c in document["checks"]}["recovery"] == "pass"
    assert md_path.read_text(encoding="utf-8").startswith("# Conformance: openai")
    assert not list(tmp_path.rglob(".*.json.*"))  # no temporary file left behind


def test_non_conforming_endpoint_exits_1_with_its_reasons(fake_server: FakeServerFactory) -> None:
    _, base_url = serve(fake_server, "openai", 4000)
    result = invoke(
        "--provider", "openai", "--base-url", base_url, "--model", MODEL,
        "--context-window", "8000",
    )  # fmt: skip
    assert result.exit_code == 1
    assert "DOES NOT CONFORM" in result.stdout
    assert "declared 8000" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--provider", "bedrock"], "unknown --provider 'bedrock'"),
        (["--base-url", "ftp://127.0.0.1/v1"], "--base-url must be an http(s) URL"),
        (["--api-key-env", "TRIMSCOPE_TEST_UNSET_VARIABLE"], "TRIMSCOPE_TEST_UNSET_VARIABLE"),
        (["--max-requests", "0"], "--max-requests"),
        (["--context-window", "-5"], "--context-window"),
        (["--provider-side", "truncation"], "--provider-side 'truncation' is not an option"),
    ],
)
def test_bad_options_exit_2_before_any_request(args: list[str], message: str) -> None:
    defaults = {"--provider": "openai", "--base-url": "http://127.0.0.1:9/v1", "--model": "m"}
    merged = {**defaults, **dict(zip(args[::2], args[1::2], strict=True))}
    flat = [item for pair in merged.items() for item in pair]
    result = invoke(*flat, env={"TRIMSCOPE_TEST_UNSET_VARIABLE": ""})
    assert result.exit_code == 2
    assert message in result.output


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_unreachable_endpoint_exits_2_naming_the_provider() -> None:
    base_url = f"http://127.0.0.1:{_closed_port()}/v1"
    result = invoke("--provider", "groq", "--base-url", base_url, "--model", "m")
    assert result.exit_code == 2
    said = "error: groq endpoint 'm' did not answer the small request: groq: no HTTP answer"
    assert said in result.stderr
    assert "(connect error)" in result.stderr
    assert "(stream)" not in result.stderr  # nothing was streamed


def test_unknown_model_exits_2_with_the_status_and_body(fake_server: FakeServerFactory) -> None:
    _, base_url = serve(fake_server, "openai", 2000)
    result = invoke("--provider", "openai", "--base-url", base_url, "--model", "no-such-model")
    assert result.exit_code == 2
    assert "openai: HTTP 404: " in result.stderr
    assert "no-such-model" in result.stderr


def test_endpoint_that_never_answers_shows_progress_and_gives_up_after_the_timeout(
    fake_server: FakeServerFactory,
) -> None:
    script = FakeScript(default=fail("hang", seconds=60))
    _, base_url = serve(fake_server, "openai", 2000, script=script)
    result = invoke(
        "--provider", "openai", "--base-url", base_url, "--model", MODEL,
        "--request-timeout", "0.5",
    )  # fmt: skip
    assert result.exit_code == 2
    assert "each request waits at most 0.5 s" in result.stdout
    assert "#0 small: sending about 31 tokens" in result.stderr
    assert "#0 small: no HTTP answer after " in result.stderr
    assert "did not answer the small request: openai: no HTTP answer (timeout)" in result.stderr


def test_quiet_prints_no_progress(fake_server: FakeServerFactory) -> None:
    _, base_url = serve(fake_server, "openai", 2000)
    result = invoke(
        "--provider", "openai", "--base-url", base_url, "--model", MODEL, "--quiet"
    )  # fmt: skip
    assert result.exit_code == 0
    assert "sending about" not in result.stderr


@pytest.mark.parametrize("value", ["0", "-1", "nan"])
def test_request_timeout_must_be_positive(value: str) -> None:
    result = invoke(
        "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
        "--request-timeout", value,
    )  # fmt: skip
    assert result.exit_code == 2
    assert "request-timeout" in result.output


# -- the real console scripts ---------------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize(
    ("provider", "kind", "path", "expected"),
    [("anthropic", "anthropic", "", 0), ("ollama", "ollama-openai", "/v1", 1)],
)
def test_console_script_against_fakeserve_fake(
    provider: str,
    kind: str,
    path: str,
    expected: int,
    tmp_path: Path,
    fake_serve: list[subprocess.Popen[str]],
) -> None:
    base_url = serve_fake(
        fake_serve, "--provider", provider, "--model", MODEL, "--context-window", "3000"
    )
    assert base_url.startswith("http://127.0.0.1:")
    json_path, md_path = tmp_path / "report.json", tmp_path / "report.md"
    done = subprocess.run(
        [
            *trimscope_command(), "conformance", "--provider", kind, "--base-url", base_url + path,
            "--model", MODEL, "--context-window", "3000", "--api-key-env", KEY_ENV,
            "--json", str(json_path), "--markdown", str(md_path),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, KEY_ENV: SECRET},
        timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == expected, done.stdout + done.stderr
    assert done.stdout.splitlines()[1].startswith("budget: at most 40 requests")
    document = json.loads(json_path.read_text(encoding="utf-8"))
    assert document["exit_code"] == expected
    if expected:
        failed = {c["name"] for c in document["checks"] if c["verdict"] == "fail"}
        assert failed == {"overflow_recognised", "silent_truncation", "recovery"}
    everything = done.stdout + done.stderr + json_path.read_text() + md_path.read_text()
    assert SECRET not in everything


@pytest.mark.parametrize(("kind", "status"), [("openai", 401), ("anthropic", 401), ("gemini", 400)])
def test_rejected_key_exits_2_with_the_status_and_body(
    fake_server: FakeServerFactory, kind: str, status: int
) -> None:
    _, base_url = serve(fake_server, kind, 2000, script=FakeScript(default=fail("auth")))
    result = invoke(
        "--provider", kind, "--base-url", base_url, "--model", MODEL, "--api-key-env", KEY_ENV,
        env={KEY_ENV: SECRET},
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert f"error: {kind} endpoint '{MODEL}' did not answer the small request" in result.stderr
    assert f"HTTP {status}" in result.stderr
    assert SECRET not in result.output


@pytest.mark.parametrize(
    ("kind", "wrong", "hint"),
    [
        ("openai", lambda url: url.removesuffix("/v1"), "an openai base URL ends with /v1"),
        ("anthropic", lambda url: url + "/v1", "the anthropic client adds its own path"),
    ],
)
def test_a_404_on_the_version_segment_gets_a_hint(
    fake_server: FakeServerFactory, kind: str, wrong: Callable[[str], str], hint: str
) -> None:
    _, base_url = serve(fake_server, kind, 2000)
    result = invoke("--provider", kind, "--base-url", wrong(base_url), "--model", MODEL)
    assert result.exit_code == 2, result.output
    assert "HTTP 404" in result.stderr
    assert f"hint: {hint}" in result.stderr
    assert f"try --base-url {base_url.rstrip('/')}" in result.stderr.replace("\n", "")


def test_a_404_on_a_right_base_url_gets_no_hint(fake_server: FakeServerFactory) -> None:
    _, base_url = serve(fake_server, "openai", 2000)
    elsewhere = base_url.removesuffix("/v1") + "/elsewhere/v1"  # versioned, yet not found
    result = invoke("--provider", "openai", "--base-url", elsewhere, "--model", MODEL)
    assert "HTTP 404" in result.stderr
    assert "hint:" not in result.stderr


GATEWAY_KEY = "gw-key-DISTINCTIVE-7f3a19c2"


def test_headers_reach_the_endpoint_and_a_credential_is_never_shown(
    tmp_path: Path, fake_server: FakeServerFactory
) -> None:
    running, base_url = serve(fake_server, "openai", 2000)
    json_path = tmp_path / "r.json"
    result = invoke(
        "--provider", "openai", "--base-url", base_url, "--model", MODEL,
        "--context-window", "2000", "--json", json_path,
        "--header", "X-Tenant: acme", "--header", f"X-Gateway-Key:{GATEWAY_KEY}",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "headers: X-Tenant: acme, X-Gateway-Key: [redacted]" in result.stdout
    sent = [entry.request_headers for entry in running.log.entries()]
    assert sent
    assert all(h.get("x-tenant") == "acme" and h.get("x-gateway-key") == GATEWAY_KEY for h in sent)
    assert GATEWAY_KEY not in result.output + json_path.read_text(encoding="utf-8")


def test_a_credential_header_echoed_by_the_endpoint_is_redacted(
    fake_server: FakeServerFactory,
) -> None:
    # the fake's 401 quotes the key it was sent, as OpenAI's does
    _, base_url = serve(fake_server, "openai", 2000, script=FakeScript(default=fail("auth")))
    result = invoke(
        "--provider", "openai", "--base-url", base_url, "--model", MODEL,
        "--header", f"Authorization: Bearer {GATEWAY_KEY}",
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "HTTP 401" in result.stderr
    assert GATEWAY_KEY not in result.output
    assert GATEWAY_KEY[:8] not in result.output.replace("[redacted]", "")


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ([f"X-{i}: v" for i in range(17)], "--header: at most 16, found 17"),
        (["no colon here"], "expected NAME:VALUE"),
        (["Bad Name: v"], "expected NAME:VALUE"),
        ([f"X-Token: {GATEWAY_KEY}\r\nX-Evil: 1"], "--header X-Token: expected a value"),
        (["X-Tenant: a", "x-tenant: b"], "each name once, found 'x-tenant' twice"),
        (["Content-Type: text/plain"], "Content-Type is written by the HTTP client"),
        ([f"X-Big: {'v' * 8193}"], "1 to 8192 characters"),
    ],
)
def test_bad_headers_exit_2_without_showing_a_value(headers: list[str], message: str) -> None:
    flat = [word for header in headers for word in ("--header", header)]
    result = invoke("--provider", "openai", "--base-url", "http://127.0.0.1:9/v1",
                    "--model", "m", *flat)  # fmt: skip
    assert result.exit_code == 2
    assert message in result.output
    assert GATEWAY_KEY not in result.output
