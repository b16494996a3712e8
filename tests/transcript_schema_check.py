"""Check transcripts against ``harness/telemetry/transcript.schema.json``: used by the
session hook of ``tests/conftest.py`` (every transcript a test's code wrote under pytest's
temporary folders) and by ``tests/telemetry/test_transcript_schema.py``.

A file counts as written by ``TranscriptWriter`` when its first line is in the writer's form
(compact JSON, ``kind`` first): a test's hand-made input, good or deliberately broken, is
written otherwise (``json.dumps`` with its default separators, or bytes) and is the
business of the test that wrote it. An incomplete last line (no newline: the writer was
stopped mid-line) is skipped, as the readers skip it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema

from harness.telemetry.transcript_schema import SCHEMA_PATH

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
_WRITER_START = b'{"kind":"'
HEAD_BYTES = 4096


def written_by_the_writer(path: Path) -> bool:
    with path.open("rb") as stream:
        head = stream.read(HEAD_BYTES)
    first = head.split(b"\n", 1)[0]
    if not first.startswith(_WRITER_START):
        return False
    try:
        record = json.loads(first)
    except ValueError:
        return False
    compact = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return compact.encode("utf-8") == first


def transcripts_under(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*.jsonl")):
        try:
            if path.is_file() and written_by_the_writer(path):
                yield path
        except OSError:  # removed meanwhile (a test's cleanup, a socket named .jsonl)
            continue


def schema_errors(path: Path) -> list[str]:
    """``file:line: message`` for each line the schema refuses (every line, not the first)."""
    lines = path.read_bytes().split(b"\n")
    errors: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or (number == len(lines) and not _is_json(line)):
            continue  # blank, or the incomplete last line of a stopped writer
        try:
            record = json.loads(line)
        except ValueError as exc:
            errors.append(f"{path}:{number}: not JSON: {exc}")
            continue
        errors += [
            f"{path}:{number}: {'.'.join(map(str, e.absolute_path)) or '(line)'}: {e.message}"
            for e in VALIDATOR.iter_errors(record)
        ]
    return errors


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True
