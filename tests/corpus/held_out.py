"""The December 2026 held-out set: real answers gathered after every rule was written.

tests/corpus/held_out_2026_12.jsonl holds overflows and look-alikes copied verbatim from
public issue threads none of which the tuned corpus (overflow.jsonl, lookalikes.jsonl) cites.
Each row names its ``kind`` (``overflow`` or ``lookalike``); the other keys are the corpus
format (tests/corpus/__init__.py). The set was scored once, before any rule changed; that
first score is frozen in held_out_2026_12_first_score.md and the recognition matrix shows
it beside the current one. Rules may be mended from its misses; rows are never edited to
fit a rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final, cast

from tests.corpus import CORPUS_DIR, CorpusError, CorpusRow, Kind, _row

HELD_OUT_FILE: Final = CORPUS_DIR / "held_out_2026_12.jsonl"
FIRST_SCORE_FILE: Final = CORPUS_DIR / "held_out_2026_12_first_score.md"
KINDS: Final = frozenset({"overflow", "lookalike"})


def load_held_out(path: Path = HELD_OUT_FILE) -> tuple[CorpusRow, ...]:
    rows = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        raw = json.loads(line)
        kind = raw.get("kind") if isinstance(raw, dict) else None
        if kind not in KINDS:
            raise CorpusError(f"{path.name}:{line_no}: kind: expected one of {sorted(KINDS)}")
        rows.append(_row(path, line_no, raw, cast(Kind, kind)))
    return tuple(rows)


HELD_OUT: Final = load_held_out()
HELD_OUT_OVERFLOWS: Final = tuple(r for r in HELD_OUT if r.is_overflow)
HELD_OUT_LOOKALIKES: Final = tuple(r for r in HELD_OUT if not r.is_overflow)
