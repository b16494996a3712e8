"""The real llama.cpp server for the tests (``bench.llama_server`` starts and stops it), and
the rule for when it is missing: skip locally, fail under CI."""

from __future__ import annotations

import os

import pytest

from bench.llama_server import (
    ALIAS,
    INSTALL_HINT,
    Installed,
    RealServer,
    installed,
    running,
    wait_listening,
)

__all__ = [
    "ALIAS",
    "Installed",
    "RealServer",
    "require_installed",
    "running",
    "wait_listening",
]


def require_installed() -> Installed:
    """Skip when the real server is missing, except under CI (``CI=true``): there it fails,
    since CI installs it with the project's own script."""
    found = installed()
    if found is not None:
        return found
    message = f"the real llama.cpp server is not installed: {INSTALL_HINT}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}; CI must run the real-server tests")
    pytest.skip(message)
