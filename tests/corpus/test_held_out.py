"""The December 2026 held-out set stays honest: new sources, verbatim rows, a frozen first score."""

from pathlib import Path

import pytest

from harness.providers import reference_is_overflow
from harness.providers.overflow.classify import extended_verdict
from harness.providers.overflow.structure import RULE_NAME
from tests.corpus import CORPUS, CorpusError, CorpusRow
from tests.corpus.held_out import (
    FIRST_SCORE_FILE,
    HELD_OUT,
    HELD_OUT_LOOKALIKES,
    HELD_OUT_OVERFLOWS,
    load_held_out,
)
from tests.corpus.matrix import main, render_held_out_score

MIN_ROWS = 40


def test_the_set_is_as_large_as_the_issue_asks_with_both_kinds() -> None:
    assert len(HELD_OUT) >= MIN_ROWS
    assert len(HELD_OUT_OVERFLOWS) >= MIN_ROWS // 2 - 5
    assert len(HELD_OUT_LOOKALIKES) >= MIN_ROWS // 2 - 5


def test_no_source_of_the_tuned_corpus_is_reused() -> None:
    tuned = {r.source for r in CORPUS}
    assert [r.source for r in HELD_OUT if r.source in tuned] == []


def test_rows_are_distinct_from_each_other_and_from_the_tuned_corpus() -> None:
    bodies = [r.body for r in HELD_OUT]
    assert len(set(bodies)) == len(bodies)
    assert set(bodies).isdisjoint(r.body for r in CORPUS)
    ids = [r.id for r in HELD_OUT]
    assert len(set(ids)) == len(ids)
    assert set(ids).isdisjoint(r.id for r in CORPUS)


def test_a_row_without_a_kind_is_refused_naming_file_line_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "held_out.jsonl"
    bad.write_text('{"id": "x", "provider": "p", "status": null}\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"held_out\.jsonl:1: kind: expected"):
        load_held_out(bad)


def test_the_first_score_is_frozen_and_never_rewritten() -> None:
    text = FIRST_SCORE_FILE.read_text(encoding="utf-8")
    assert text.startswith("## Held-out set, December 2026: first score\n")
    assert main(["--freeze-first-held-out-score"]) == 2
    assert FIRST_SCORE_FILE.read_text(encoding="utf-8") == text


def test_the_current_score_renders_every_row() -> None:
    text = render_held_out_score("current")
    assert f"{len(HELD_OUT_OVERFLOWS)} / {len(HELD_OUT_LOOKALIKES)}" in text


@pytest.mark.parametrize("row", HELD_OUT, ids=lambda r: r.id)
def test_extended_decides_every_held_out_row_after_the_mend(row: CorpusRow) -> None:
    verdict = extended_verdict(row.provider, row.status, row.body)
    assert verdict.is_overflow == row.is_overflow, f"{row.source}: decided by {verdict.rule}"


def test_the_structural_rule_decides_a_held_out_row_no_message_shape_knew() -> None:
    decided = {extended_verdict(r.provider, r.status, r.body).rule for r in HELD_OUT}
    assert RULE_NAME in decided


def test_the_reference_keeps_its_first_score() -> None:
    """The reference is the ZeroClaw oracle: mending ``extended`` never moves it."""
    first = FIRST_SCORE_FILE.read_text(encoding="utf-8")
    hits = sum(reference_is_overflow(r.provider, r.status, r.body) for r in HELD_OUT_OVERFLOWS)
    flagged = sum(reference_is_overflow(r.provider, r.status, r.body) for r in HELD_OUT_LOOKALIKES)
    cell = f"{hits}/{len(HELD_OUT_OVERFLOWS)} · FP {flagged}/{len(HELD_OUT_LOOKALIKES)}"
    assert f"| held-out 2026-12 | 30 / 28 | {cell} |" in first
