"""Fixtures for the fake providers: the same test runs against all three mounts.

``connect(fake)`` returns ``(client, base_url)``: an ``httpx.AsyncClient`` reaching the fake
in process (``asgi``), through respx routes with a plain client of the test's own
(``respx``), or over a real loopback socket (``server``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import ExitStack

import httpx
import pytest
import respx

from fakes import FakeProvider, FakeScript, asgi_transport, mount_respx
from fakes.pytest_plugin import FakeServerFactory

MOUNTS = ("asgi", "respx", "server")
WINDOW = 1000
MODEL = "fake-model"
Pool = Callable[[str], tuple[FakeProvider, str]]
Connect = Callable[[FakeProvider], Awaitable[tuple[httpx.AsyncClient, str]]]
TIMEOUT = httpx.Timeout(10.0)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def servers() -> Iterator[FakeServerFactory]:
    factory = FakeServerFactory()
    try:
        yield factory
    finally:
        factory.close()


@pytest.fixture(params=MOUNTS)
async def connect(
    request: pytest.FixtureRequest, servers: FakeServerFactory
) -> AsyncIterator[Connect]:
    mount: str = request.param
    clients: list[httpx.AsyncClient] = []
    router = respx.mock(assert_all_called=False, assert_all_mocked=True)

    async def open_client(fake: FakeProvider) -> tuple[httpx.AsyncClient, str]:
        if mount == "asgi":
            base = "http://fake.test"
            client = httpx.AsyncClient(
                transport=asgi_transport(fake), base_url=base, timeout=TIMEOUT
            )
        elif mount == "respx":
            base = f"https://{fake.profile.name}.respx.test"
            mount_respx(router, fake, base)
            client = httpx.AsyncClient(base_url=base, timeout=TIMEOUT)
        else:
            base = servers.serve(fake).base_url
            client = httpx.AsyncClient(base_url=base, timeout=TIMEOUT)
        clients.append(client)
        return client, base

    with ExitStack() as stack:
        if mount == "respx":
            stack.enter_context(router)
        try:
            yield open_client
        finally:
            for client in clients:
                await client.aclose()


@pytest.fixture(scope="session")
def pool() -> Iterator[Pool]:
    """One loopback server per provider (window ``WINDOW``, model ``MODEL``), shared by the
    session's tests; each ``pool(provider)`` resets that fake to its defaults first."""
    factory = FakeServerFactory()
    running: dict[str, tuple[FakeProvider, str]] = {}

    def get(provider: str) -> tuple[FakeProvider, str]:
        if provider not in running:
            fake = FakeProvider(provider, MODEL, context_window=WINDOW)
            running[provider] = (fake, factory.serve(fake).base_url)
        fake, base = running[provider]
        fake.reset(variant="default", script=FakeScript())
        return fake, base

    try:
        yield get
    finally:
        factory.close()
