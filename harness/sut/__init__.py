"""Runtimes under test: any agent runtime, started as a child process and driven over the
SUT protocol (JSON lines on its stdin/stdout, ``docs/sut-protocol.md``), talks to
trimscope's fakes over real HTTP; each portable scenario is judged from the requests the
fakes received. ``harness.sut.adapter`` (stdlib only) helps write such a runtime, and
``trimscope sut reference`` is the reference agent as one.
"""

from __future__ import annotations

import importlib
from typing import Any, Final

# Names resolve on first use (PEP 562): a runtime importing ``harness.sut.adapter`` (stdlib
# only) or ``trimscope sut reference`` must not pay for uvicorn and the fakes at start-up.
_OWNERS: Final = {
    "ProtocolError": "harness.sut.protocol",
    "decode_from_runtime": "harness.sut.protocol",
    "encode": "harness.sut.protocol",
    "PROTOCOL_VERSION": "harness.sut.protocol",
    "CommandError": "harness.sut.child",
    "RuntimeFault": "harness.sut.child",
    "RuntimeProcess": "harness.sut.child",
    "resolve_command": "harness.sut.child",
    "INVARIANTS": "harness.sut.judge",
    "SessionLog": "harness.sut.judge",
    "Violation": "harness.sut.judge",
    "judge_findings": "harness.sut.judge",
    "judge_session": "harness.sut.judge",
    "not_portable": "harness.sut.portable",
    "JudgedSession": "harness.sut.suite",
    "SessionObserver": "harness.sut.suite",
    "SutOutcome": "harness.sut.suite",
    "SutSuite": "harness.sut.suite",
    "run_sut_suite": "harness.sut.suite",
}
__all__ = [
    "INVARIANTS",
    "PROTOCOL_VERSION",
    "CommandError",
    "JudgedSession",
    "ProtocolError",
    "RuntimeFault",
    "RuntimeProcess",
    "SessionLog",
    "SessionObserver",
    "SutOutcome",
    "SutSuite",
    "Violation",
    "decode_from_runtime",
    "encode",
    "judge_findings",
    "judge_session",
    "not_portable",
    "resolve_command",
    "run_sut_suite",
]


def __getattr__(name: str) -> Any:
    owner = _OWNERS.get(name)
    if owner is None:
        raise AttributeError(f"module 'harness.sut' has no attribute {name!r}")
    return getattr(importlib.import_module(owner), name)
