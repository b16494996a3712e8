"""Generate docs/recognition-matrix.md from the corpus, the fakes' catalogue and the peers.

Run ``python -m tests.corpus.matrix`` after changing any of them; tests/corpus/test_matrix.py
fails while the committed document differs from what this renders.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from fakes.catalogue import LOOK_ALIKES, OVERFLOWS
from fakes.scripting.templates import render
from harness.providers import reference_is_overflow
from harness.providers.overflow.classify import extended_verdict
from harness.providers.overflow.structure import count_over_limit
from harness.providers.overflow.text import body_views, in_prose_quote
from tests.corpus import CORPUS, CorpusRow
from tests.corpus.held_out import FIRST_SCORE_FILE, HELD_OUT
from tests.corpus.peers import PEERS

MATRIX_FILE: Final = Path(__file__).parents[2] / "docs" / "recognition-matrix.md"
FIRST_HELD_OUT_RUN: Final = (
    "recall 29/31, false positives 0/18 (commit 89fbe55; the two misses were LiteLLM "
    "reprs of Anthropic bodies, `b'{...}'`, whose bytes prefix the quotation rule read as "
    "prose; the rule now asks for a space before a prose quotation)"
)
SECOND_UNSEEN_BATCH: Final = (
    "20 rows gathered after the rules were written (`batch: 2` in the corpus: 15 "
    "overflows, 5 look-alikes) scored recall 10/15, false positives 0/5 on first run "
    "(commit 72ce627): TabbyAPI's `max_seq_len`, watsonx's maximum sequence length, "
    "SiliconFlow's `prompt_tokens … must be less than max_seq_len` (twice) and Gemini's "
    "`Cannot truncate to N, required M` were new shapes; the rules now cover them"
)
FIRST_HELD_OUT_COMMIT: Final = "4f4124f"
SAMPLE_NUMBERS: Final = {
    "window": 128000,
    "input": 150000,
    "messages": 149000,
    "tools": 1000,
    "completion": 4096,
    "requested": 154096,
    "excess": 22000,
    "model": "fake-model",
    "request_id": "req_fake",
    "uuid": "00000000-0000-0000-0000-000000000000",
    "retry_after": 7,
}


@dataclass(frozen=True)
class Sample:
    id: str
    provider: str
    status: int | None
    body: str
    overflow: bool
    origin: str  # "corpus" or "fakes"
    held_out: bool = False
    batch: int = 1


Verdict = Callable[[Sample], bool]


def _columns() -> list[tuple[str, Verdict]]:
    columns: list[tuple[str, Verdict]] = [
        ("reference", lambda s: reference_is_overflow(s.provider, s.status, s.body)),
        ("extended", lambda s: extended_verdict(s.provider, s.status, s.body).is_overflow),
    ]
    columns += [(peer.title, _peer_verdict(peer.is_overflow)) for peer in PEERS]
    return columns


def _peer_verdict(is_overflow: Callable[[int | None, str], bool]) -> Verdict:
    """A peer's rule (status, body) as a column's verdict on a sample."""
    return lambda sample: is_overflow(sample.status, sample.body)


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def corpus_samples() -> list[Sample]:
    return [_from_row(r) for r in CORPUS]


def _from_row(row: CorpusRow) -> Sample:
    return Sample(
        row.id,
        row.provider,
        row.status,
        row.body,
        row.is_overflow,
        "corpus",
        row.held_out,
        row.batch,
    )


def fake_samples() -> list[Sample]:
    """Every error-delivered overflow variant with a body, and every look-alike the fakes
    can answer. Bodiless variants (Cerebras' bare 400 and 413) give a body reader nothing
    to read; ``bodiless_fakes`` names them."""
    samples = [
        Sample(
            f"fake:{e.provider}:{e.wire}:{e.variant}",
            e.provider,
            e.status,
            _dumps(render(e.body, SAMPLE_NUMBERS)),
            True,
            "fakes",
        )
        for e in OVERFLOWS
        if e.delivery == "error" and e.body is not None
    ]
    samples += [
        Sample(
            f"fake:look-alike:{a.name}",
            a.wire.removesuffix("_chat").removesuffix("_responses"),
            a.status,
            _dumps(render(a.body, SAMPLE_NUMBERS)),
            False,
            "fakes",
        )
        for a in LOOK_ALIKES
    ]
    return samples


def bodiless_fakes() -> list[str]:
    return [
        f"{e.provider} {e.variant} ({e.status})"
        for e in OVERFLOWS
        if e.delivery == "error" and e.body is None
    ]


def _score(samples: Iterable[Sample], verdict: Verdict) -> str:
    rows = list(samples)
    overflows = [s for s in rows if s.overflow]
    others = [s for s in rows if not s.overflow]
    hits = sum(verdict(s) for s in overflows)
    false = sum(verdict(s) for s in others)
    recall = f"{hits}/{len(overflows)}" if overflows else "–"
    return f"{recall} · FP {false}/{len(others)}" if others else recall


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _summary(corpus: list[Sample], fakes: list[Sample]) -> list[str]:
    columns = _columns()
    sets = [
        ("corpus, all rows", corpus),
        ("corpus, rows not held out", [s for s in corpus if not s.held_out]),
        ("corpus, held-out rows", [s for s in corpus if s.held_out]),
        ("corpus, batch 2 (gathered after the rules)", [s for s in corpus if s.batch == 2]),
        ("fakes' catalogue", fakes),
    ]
    rows = []
    for name, samples in sets:
        counts = f"{sum(s.overflow for s in samples)} / {sum(not s.overflow for s in samples)}"
        rows.append([name, counts, *(_score(samples, v) for _, v in columns)])
    header = ["set", "overflows / look-alikes", *(n for n, _ in columns)]
    return _table(header, rows)


def _by_provider(samples: list[Sample]) -> list[str]:
    columns = _columns()
    rows = []
    for provider in sorted({s.provider for s in samples}):
        mine = [s for s in samples if s.provider == provider]
        counts = f"{sum(s.overflow for s in mine)} / {sum(not s.overflow for s in mine)}"
        rows.append([provider, counts, *(_score(mine, v) for _, v in columns)])
    return _table(["provider", "overflows / look-alikes", *(n for n, _ in columns)], rows)


def _rules(corpus: list[Sample]) -> list[str]:
    decided: dict[str, list[str]] = {}
    for s in corpus:
        rule = extended_verdict(s.provider, s.status, s.body).rule
        decided.setdefault(rule, []).append(s.id)
    rows = [[f"`{rule}`", str(len(ids)), ", ".join(ids)] for rule, ids in sorted(decided.items())]
    return _table(["rule", "rows", "corpus rows it decides"], rows)


def _families() -> list[str]:
    counts: dict[str, int] = {}
    for row in CORPUS:
        if row.family is not None:
            counts[row.family] = counts.get(row.family, 0) + 1
    return _table(["look-alike family", "rows"], [[f, str(n)] for f, n in sorted(counts.items())])


def held_out_samples() -> list[Sample]:
    return [_from_row(r) for r in HELD_OUT]


def render_held_out_score(title: str) -> str:
    """One scoring of the December 2026 held-out set: per classifier, per provider, misses.

    Written once to ``FIRST_SCORE_FILE`` before any rule changed (and never rewritten);
    rendered live under the current-score heading."""
    samples = held_out_samples()
    columns = _columns()
    counts = f"{sum(s.overflow for s in samples)} / {sum(not s.overflow for s in samples)}"
    summary = _table(
        ["set", "overflows / look-alikes", *(n for n, _ in columns)],
        [["held-out 2026-12", counts, *(_score(samples, v) for _, v in columns)]],
    )
    misses = [f"- `{name}`: " + _misses(samples, verdict) for name, verdict in columns[:2]]
    parts = [f"## {title}", "", *summary, "", *_by_provider(samples), "", "Misses:", "", *misses]
    return "\n".join(parts) + "\n"


def _structural_alone(corpus: list[Sample]) -> str:
    """How far the structural rule reaches by itself: the measure of how it generalises."""

    def alone(sample: Sample) -> bool:
        raw = body_views(sample.body).raw
        return count_over_limit(raw, lambda start: in_prose_quote(raw, start))

    return (
        f"First scored at commit {FIRST_HELD_OUT_COMMIT}, before any rule changed; the one "
        "`extended` miss (TGI's `inputs` must have less than N tokens. Given: M) is now "
        "decided by the structural rule `count-over-limit` (a token count above a limit in "
        "one sentence or the next, whatever the words; harness/providers/overflow/"
        "structure.py), asked only when no message shape decided. That rule alone, with no "
        f"keyword rule and no exclusion before it: corpus {_score(corpus, alone)}, held-out "
        f"{_score(held_out_samples(), alone)} (its corpus false positives are local "
        "tokenizers' warnings, `N > M` in the tokenizer's own words, which the "
        "tokenizer-warning exclusion keeps out)."
    )


def _held_out_intro() -> str:
    repos = {r.source.split("#")[0] for r in HELD_OUT}
    return (
        f"The December 2026 held-out set (tests/corpus/held_out_2026_12.jsonl): {len(HELD_OUT)} "
        f"real answers from {len(repos)} repositories, copied from issue threads none of which "
        "the tuned corpus cites, gathered after every rule was written and scored once before "
        "any rule changed. The first score is frozen (tests/corpus/"
        "held_out_2026_12_first_score.md); the current score is computed. Rows are never "
        "edited to fit a rule."
    )


def _misses(samples: list[Sample], verdict: Verdict) -> str:
    missed = [f"{s.id} (missed overflow)" for s in samples if s.overflow and not verdict(s)]
    flagged = [f"{s.id} (flagged look-alike)" for s in samples if not s.overflow and verdict(s)]
    return ", ".join(missed + flagged) or "none"


def render_matrix() -> str:
    corpus, fakes = corpus_samples(), fake_samples()
    peers = [f"- **{p.title}**: `{p.source}`. {p.reads}" for p in PEERS]
    parts = [
        "# Overflow recognition matrix",
        "",
        "Generated by `python -m tests.corpus.matrix` from tests/corpus (real answers copied "
        "from public issues and pull requests), the fakes' catalogue and tests/corpus/"
        "peers.json; tests/corpus/test_matrix.py fails when this file is stale. Cells read "
        "`recalled/overflows · FP flagged/look-alikes`.",
        "",
        "## Summary",
        "",
        *_summary(corpus, fakes),
        "",
        f"First run of `extended` on the held-out rows: {FIRST_HELD_OUT_RUN}.",
        "",
        f"A second unseen batch: {SECOND_UNSEEN_BATCH}.",
        "",
        "Left out of the fakes' row: overflow variants without a body, which no classifier "
        f"that reads bodies can recognise: {', '.join(bodiless_fakes())}.",
        "",
        _held_out_intro(),
        "",
        FIRST_SCORE_FILE.read_text(encoding="utf-8"),
        render_held_out_score("Held-out set, December 2026: current score"),
        _structural_alone(corpus),
        "",
        "## By provider (corpus and fakes together)",
        "",
        *_by_provider(corpus + fakes),
        "",
        "## Look-alike families in the corpus",
        "",
        *_families(),
        "",
        "## Which `extended` rule decides each corpus row",
        "",
        *_rules(corpus),
        "",
        "## Peer rules, as data",
        "",
        *peers,
        "",
    ]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    if (argv if argv is not None else sys.argv[1:]) == ["--freeze-first-held-out-score"]:
        if FIRST_SCORE_FILE.exists():
            print(f"{FIRST_SCORE_FILE} exists: the first score is never rewritten", file=sys.stderr)
            return 2
        title = "Held-out set, December 2026: first score"
        FIRST_SCORE_FILE.write_text(render_held_out_score(title), encoding="utf-8")
    MATRIX_FILE.write_text(render_matrix(), encoding="utf-8")
    print(f"wrote {MATRIX_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
