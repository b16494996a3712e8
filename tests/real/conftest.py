"""Session-scoped real llama.cpp servers: one per context size, started on first use."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.real.server import RealServer, require_installed, running

SMALL_CONTEXT = 512


@pytest.fixture(scope="session")
def llama_512(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealServer]:
    """A real server with a 512-token context (its prompt limit is 511 tokens)."""
    found = require_installed()
    with running(found, SMALL_CONTEXT, tmp_path_factory.mktemp("llama")) as server:
        yield server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
