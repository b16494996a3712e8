"""pytest plugin (entry point ``pytest11``): real fake-provider servers for tests.

``fake_server(provider, model, context_window=..., ...)`` starts a fake on 127.0.0.1 on a
free port (uvicorn in a thread), returns once it accepts connections, and stops every
server it started when the test ends::

    def test_overflow(fake_server):
        running = fake_server("openai", "gpt-test", context_window=1000)
        answer = httpx.post(running.base_url + "/v1/chat/completions", json=...)
        assert running.log.last().outcome == "overflow"
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from fakes.counting.counters import CounterName
from fakes.engine import FakeProvider
from fakes.fake_model import FakeModel
from fakes.scripting.script import FakeScript
from fakes.serving.log import RequestLog
from fakes.serving.mounts import FakeServer


@dataclass(frozen=True, slots=True)
class RunningFake:
    fake: FakeProvider
    base_url: str

    @property
    def log(self) -> RequestLog:
        return self.fake.log


class FakeServerFactory:
    """Starts servers on demand; ``close()`` stops them all (the fixture calls it)."""

    def __init__(self) -> None:
        self._servers: list[FakeServer] = []

    def __call__(
        self,
        provider: str = "openai",
        model: str | FakeModel = "fake-model",
        *,
        context_window: int | None = None,
        counter: CounterName = "heuristic",
        script: FakeScript | None = None,
        variant: str = "default",
    ) -> RunningFake:
        fake = FakeProvider(
            provider,
            model,
            context_window=context_window,
            counter=counter,
            script=script,
            variant=variant,
        )
        return self.serve(fake)

    def serve(self, fake: FakeProvider) -> RunningFake:
        server = FakeServer(fake)
        self._servers.append(server)
        return RunningFake(fake, server.start())

    def close(self) -> None:
        for server in self._servers:
            server.request_stop()  # all shut down at once, then each is waited for
        while self._servers:
            self._servers.pop().stop()


@pytest.fixture
def fake_server() -> Iterator[FakeServerFactory]:
    """A factory of real fake-provider servers, all stopped at teardown."""
    factory = FakeServerFactory()
    try:
        yield factory
    finally:
        factory.close()
