"""``trimscope fake serve --replay DIR``: the proxy's cassettes (``--record DIR``,
docs/proxy.md) read into the records a replay serves (``fakes.serving.replay``).

Every ``*.jsonl`` file of the folder is read, in name order; a torn last line (a crash
mid-write) is skipped as ``harness.proxy.read_cassette`` skips it; any other line that is
not a version-1 exchange is an input error naming ``file:line`` and the key. Exchanges
with no answer (``status`` null) or cut at ``--max-body-bytes`` (``truncated``) cannot be
replayed faithfully and are left out, counted on stderr.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import typer
from starlette.applications import Starlette

from fakes.serving.replay import Recorded, Replay, build_replay_app
from harness.proxy.record import CASSETTE_VERSION, chunks_of

MAX_REPLAY_FILES: Final = 1_000
MAX_REPLAY_EXCHANGES: Final = 100_000
MAX_REPLAY_BYTES: Final = 2**30  # every cassette of the folder together: 1 GiB


@dataclass(frozen=True, slots=True)
class Loaded:
    records: tuple[Recorded, ...]
    skipped: int
    files: int


def _expect(entry: dict[str, Any], key: str, kinds: tuple[type, ...], where: str) -> Any:
    value = entry.get(key)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
        found = "nothing" if key not in entry else type(value).__name__
        raise ValueError(f"{where}: {key}: expected {names}, found {found}")
    return value


def _request_body(entry: dict[str, Any], where: str) -> bytes:
    text = _expect(entry, "request_body", (str,), where)
    encoding = entry.get("request_encoding")
    if encoding == "base64":
        try:
            return base64.b64decode(text, validate=True)
        except binascii.Error as error:
            raise ValueError(f"{where}: request_body: expected base64, found {error}") from error
    if encoding != "utf-8":
        raise ValueError(f"{where}: request_encoding: expected utf-8 or base64, found {encoding!r}")
    return str(text).encode("utf-8")


def _record(entry: dict[str, Any], where: str) -> Recorded | None:
    if entry.get("version") != CASSETTE_VERSION:
        raise ValueError(
            f"{where}: version: expected {CASSETTE_VERSION}, found {entry.get('version')!r}"
        )
    status = _expect(entry, "status", (int, type(None)), where)
    if status is None or entry.get("truncated") is True:
        return None
    headers = _expect(entry, "response_headers", (dict,), where)
    _expect(entry, "response_chunks", (list,), where)
    try:
        chunks = chunks_of(entry)
    except (ValueError, binascii.Error) as error:
        raise ValueError(
            f"{where}: response_chunks: expected the recorded pieces, found {error}"
        ) from error
    return Recorded(
        method=_expect(entry, "method", (str,), where),
        path=_expect(entry, "path", (str,), where),
        query=_expect(entry, "query", (str,), where),
        body=_request_body(entry, where),
        status=status,
        headers=tuple((str(k), str(v)) for k, v in headers.items()),
        chunks=tuple(chunks),
        streamed=_expect(entry, "streamed", (bool,), where),
        source=where,
    )


def _lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    entries: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(lines, 1):
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                continue  # a torn last line: the proxy stopped mid-write
            raise ValueError(
                f"{path}:{number}: expected a JSON exchange, found {line[:40]!r}"
            ) from None
        if not isinstance(value, dict):
            raise ValueError(
                f"{path}:{number}: expected a JSON exchange, found {type(value).__name__}"
            )
        entries.append((number, value))
    return entries


def load_cassettes(folder: Path) -> Loaded:
    """Every replayable exchange of the folder's cassettes, in file and line order."""
    if not folder.is_dir():
        raise ValueError(f"{folder}: expected a folder of cassettes, found no folder")
    files = sorted(p for p in folder.glob("*.jsonl") if p.is_file())
    if not files:
        raise ValueError(f"{folder}: expected cassettes (*.jsonl, proxy --record), found none")
    if len(files) > MAX_REPLAY_FILES:
        raise ValueError(
            f"{folder}: expected at most {MAX_REPLAY_FILES} cassettes, found {len(files)}"
        )
    size = sum(p.stat().st_size for p in files)
    if size > MAX_REPLAY_BYTES:
        raise ValueError(
            f"{folder}: expected at most {MAX_REPLAY_BYTES} bytes of cassettes, found {size}"
        )
    records: list[Recorded] = []
    skipped = 0
    for path in files:
        for number, entry in _lines(path):
            record = _record(entry, f"{path}:{number}")
            if record is None:
                skipped += 1
                continue
            records.append(record)
            if len(records) > MAX_REPLAY_EXCHANGES:
                raise ValueError(
                    f"{folder}: expected at most {MAX_REPLAY_EXCHANGES} exchanges, found more"
                )
    if not records:
        raise ValueError(
            f"{folder}: expected a replayable exchange, found none"
            f" ({skipped} without an answer or truncated)"
        )
    return Loaded(tuple(records), skipped, len(files))


def replay_app(folder: Path) -> Starlette:
    """The replay's app for ``--replay``; a folder that cannot be replayed exits 2."""
    try:
        loaded = load_cassettes(folder)
    except (ValueError, OSError) as error:  # a bad line or folder: its message names where
        raise typer.BadParameter(str(error), param_hint="--replay") from error
    typer.echo(
        f"replaying {len(loaded.records)} exchanges from {loaded.files} cassette(s)"
        f" ({loaded.skipped} left out: no answer or truncated)",
        err=True,
    )
    return build_replay_app(Replay(loaded.records))
