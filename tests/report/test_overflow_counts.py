"""The report says what it counts as an overflow and reconciles its figures: overflow
answers (attempts that ended ``overflow``) against the events a classifier recorded
(recognised overflows, look-alikes, ones no call holds)."""

from __future__ import annotations

import html
from pathlib import Path

from harness.report import build, sessions_of, totals_of
from harness.report.overflows import OverflowCounts, reconciliation
from tests.report.transcripts import Session, write

SOURCE = Path("t.jsonl")


def _mixed() -> Session:
    s = Session("mixed")
    s.turn().call(7900, outcome="overflow").overflow().recovery()  # recognised
    # a throttle only the reference's substrings call an overflow: a look-alike
    s.call(100, outcome="rate_limited").overflow(extended=False, message="Too many tokens")
    s.call(7990, outcome="overflow")  # an answer no event was recorded for
    s.call(50).end()
    return s


def test_each_event_is_counted_as_what_it_was() -> None:
    totals = totals_of(sessions_of(SOURCE, _mixed().events), files=1)
    counts = totals.overflow_counts
    assert counts == OverflowCounts(answers=2, recognised=1, look_alike=1)
    assert (counts.events, counts.unannounced) == (2, 1)
    assert totals.overflows == 2  # the card: overflow answers, not classifier events
    (tally,) = totals.overflows_by_provider.values()
    assert (tally.answers, tally.count, tally.look_alikes) == (2, 2, 1)


def test_an_event_no_call_holds_is_unmatched() -> None:
    s = Session("wire")
    s.overflow()  # the proxy's finding: no ProviderCallStarted for it
    counts = totals_of(sessions_of(SOURCE, s.events), files=1).overflow_counts
    assert (counts.answers, counts.unmatched, counts.events) == (0, 1, 1)


def test_the_sentence_adds_up() -> None:
    counts = OverflowCounts(answers=46, recognised=45, look_alike=2)
    text = reconciliation(counts, calls_ending_overflow=44)
    assert "46 overflow answer(s)" in text
    assert "47 error(s) a classifier called an overflow = 45 recognised overflows" in text
    assert "+ 2 look-alikes." in text
    assert "1 overflow answer(s) recorded no classifier event" in text
    assert "44 call(s) ended overflow" in text
    clean = reconciliation(OverflowCounts(answers=3, recognised=3), calls_ending_overflow=3)
    assert "look-alike" not in clean
    assert "call(s) ended overflow" not in clean


def test_the_page_shows_the_counts_and_their_reconciliation(tmp_path: Path) -> None:
    page = html.unescape(build([write(tmp_path / "t.jsonl", _mixed())]).html())
    assert "<b>2</b>overflow answers" in page
    assert "<b>1</b>look-alikes" in page
    assert "2 error(s) a classifier called an overflow = 1 recognised overflows" in page
    assert "rate_limited (a classifier said overflow)" in page
