"""The pytest plugin: registered by entry point, real servers on free ports, clean stops."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from fakes import FakeProvider, FakeServer
from fakes.pytest_plugin import FakeServerFactory, RunningFake


def test_plugin_is_registered_through_its_entry_point(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.hasplugin("trimscope_fakes")


def test_fixture_serves_on_loopback_with_distinct_free_ports(
    fake_server: Callable[..., RunningFake],
) -> None:
    first = fake_server("openai", "m", context_window=100)
    second = fake_server("gemini", "m", context_window=100)
    assert first.base_url.startswith("http://127.0.0.1:")
    assert first.base_url != second.base_url
    assert httpx.get(first.base_url + "/v1/models", timeout=10.0).status_code == 200
    assert len(first.log) == 1


def test_factory_close_stops_every_server() -> None:
    factory = FakeServerFactory()
    base = factory("openai", "m", context_window=100).base_url
    factory.close()
    with pytest.raises(httpx.ConnectError):
        httpx.get(base + "/v1/models", timeout=2.0)


def test_provider_counter_overflows_what_the_runtime_believes_fits() -> None:
    rows = [{"path": f"src/mod_{n}/file_{n}.py", "line": n, "hit": n % 3 == 0} for n in range(150)]
    content = json.dumps(rows, separators=(",", ":"))
    body = {"model": "m", "messages": [{"role": "user", "content": content}]}
    heuristic = -(-len(content) // 4) + 4
    window = heuristic + 50  # fits by the runtime's own estimate
    answers = {}
    for counter in ("heuristic", "provider"):
        with FakeServer(
            FakeProvider("openai", "m", context_window=window, counter=counter)
        ) as server:
            answers[counter] = httpx.post(
                server.base_url + "/v1/chat/completions", json=body, timeout=10.0
            )
    assert answers["heuristic"].status_code == 200
    assert answers["heuristic"].json()["usage"]["prompt_tokens"] == heuristic
    assert answers["provider"].status_code == 400
    assert answers["provider"].json()["error"]["code"] == "context_length_exceeded"
