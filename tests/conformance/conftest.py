"""Conformance runs against real loopback fake servers (``fakes.FakeServer`` through the
plugin's ``fake_server`` fixture), one server per test."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
