"""The public overflow corpus: real answers other projects' users captured from live providers.

Two JSON-lines files beside this module, one row per capture:

``overflow.jsonl``    answers that say the context window was exceeded (trim and retry)
``lookalikes.jsonl``  answers that merely look like it (never trim); each names its ``family``

Every row carries ``source`` (``owner/repo#number``: the public issue or pull request the body
was copied from), ``status`` (the HTTP status when the capture shows it, else ``null``) and
``capture``: ``body`` (the provider's own body), ``sdk-repr`` (an SDK's rendering of it),
``log`` (a log line around it), ``message`` (the message alone), ``excerpt`` (a verbatim
fragment cut short by the capture), ``stream-event`` or ``user-text``. Bodies are verbatim,
line wraps and typos included: the classifier meets them as users met them.

Held out: a fifth of the rows, chosen by a hash of the row id (so the choice cannot follow
the rules), were kept out of sight while ``extended``'s corpus rules were written; the
recognition matrix reports them separately. ``batch: 2`` marks rows gathered after the
rules were written, scored once before any rule changed.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

CORPUS_DIR: Final = Path(__file__).parent
OVERFLOW_FILE: Final = CORPUS_DIR / "overflow.jsonl"
LOOKALIKE_FILE: Final = CORPUS_DIR / "lookalikes.jsonl"
HELD_OUT_MODULUS: Final = 5  # one row in five
SOURCE_PATTERN: Final = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+#\d+$")
CAPTURES: Final = frozenset(
    {"body", "sdk-repr", "log", "message", "excerpt", "stream-event", "user-text"}
)
FAMILIES: Final = frozenset(
    {
        "tpm-rate-limit",
        "throttle",
        "quota",
        "billing",
        "output-limit",
        "payload-size",
        "field-length",
        "tokenizer-warning",
        "quoted-text",
        "bad-parameter",
    }
)
Kind = Literal["overflow", "lookalike"]


@dataclass(frozen=True, slots=True)
class CorpusRow:
    id: str
    kind: Kind
    provider: str
    status: int | None
    capture: str
    source: str
    body: str
    family: str | None = None
    batch: int = 1

    @property
    def is_overflow(self) -> bool:
        return self.kind == "overflow"

    @property
    def held_out(self) -> bool:
        digest = hashlib.sha256(self.id.encode()).digest()
        return digest[0] % HELD_OUT_MODULUS == 0


class CorpusError(ValueError):
    """A corpus file breaks its own format; the message names file:line and the key."""


def _row(path: Path, line_no: int, raw: object, kind: Kind) -> CorpusRow:
    where = f"{path.name}:{line_no}"
    if not isinstance(raw, dict):
        raise CorpusError(f"{where}: expected an object, found {type(raw).__name__}")
    required = {"id", "provider", "status", "capture", "source", "body"}
    if kind == "lookalike":
        required = required | {"family"}
    missing = sorted(required - raw.keys())
    if missing:
        raise CorpusError(f"{where}: {missing[0]}: expected a value, found nothing")
    if not SOURCE_PATTERN.match(str(raw["source"])):
        raise CorpusError(f"{where}: source: expected owner/repo#N, found {raw['source']!r}")
    if raw["capture"] not in CAPTURES:
        raise CorpusError(f"{where}: capture: expected one of {sorted(CAPTURES)}")
    if kind == "lookalike" and raw["family"] not in FAMILIES:
        raise CorpusError(f"{where}: family: expected one of {sorted(FAMILIES)}")
    status = raw["status"]
    if status is not None and not isinstance(status, int):
        raise CorpusError(f"{where}: status: expected an integer or null, found {status!r}")
    return CorpusRow(
        id=str(raw["id"]),
        kind=kind,
        provider=str(raw["provider"]),
        status=status,
        capture=str(raw["capture"]),
        source=str(raw["source"]),
        body=str(raw["body"]),
        family=raw.get("family"),
        batch=int(raw.get("batch", 1)),
    )


def _load(path: Path, kind: Kind) -> tuple[CorpusRow, ...]:
    rows = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            rows.append(_row(path, line_no, json.loads(line), kind))
    return tuple(rows)


def load_corpus() -> tuple[CorpusRow, ...]:
    """Every row, overflows first; ids are unique across both files."""
    rows = _load(OVERFLOW_FILE, "overflow") + _load(LOOKALIKE_FILE, "lookalike")
    seen: set[str] = set()
    for row in rows:
        if row.id in seen:
            raise CorpusError(f"id: expected unique ids, found {row.id!r} twice")
        seen.add(row.id)
    return rows


CORPUS: Final = load_corpus()
OVERFLOW_ROWS: Final = tuple(r for r in CORPUS if r.is_overflow)
LOOKALIKE_ROWS: Final = tuple(r for r in CORPUS if not r.is_overflow)
