"""Counts agree with their nouns: "1 call", never "1 calls"."""

from __future__ import annotations

import html
import re
from pathlib import Path

from harness.events import TrimTrigger
from harness.report import build
from harness.runtime.text import counted
from tests.report.transcripts import Session, write


def test_counted_agrees() -> None:
    assert [counted(n, "call") for n in (0, 1, 2)] == ["0 calls", "1 call", "2 calls"]
    assert counted(1, "recovery", "recoveries") == "1 recovery"
    assert counted(1_204, "recovery", "recoveries") == "1,204 recoveries"


def test_a_one_call_session_says_1_call(tmp_path: Path) -> None:
    session = Session("one").turn().budget(30).call(10).trim(TrimTrigger.PROACTIVE, dropped=1).end()
    page = html.unescape(build([write(tmp_path / "t.jsonl", session)]).html())
    assert ">1 call<" in page
    assert ">1 turn<" in page
    assert ">1 trim<" in page
    assert "1 provider call, 1 trim" in page
    assert "dropped 1 message / " in page
    assert not re.search(r"\b1 (calls|turns|trims|events|messages)\b", page)
