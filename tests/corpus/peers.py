"""Two peer projects' published overflow detection, run from data (peers.json).

Each peer is read the way its code reads an error: LiteLLM's ``ExceptionCheckers`` over the
error string (rate limit first, then the context-window substrings), pi's
``isContextOverflow`` over the error message (exclusions, then patterns, case-insensitive).
The file names the commit each list was copied from; the project's own code is not copied.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

PEERS_FILE: Final = Path(__file__).with_name("peers.json")


@dataclass(frozen=True)
class Peer:
    name: str
    title: str
    source: str
    reads: str
    is_overflow: Callable[[int | None, str], bool]


def _litellm(data: dict[str, object]) -> Callable[[int | None, str], bool]:
    gated = re.compile(str(data["gated_not_overflow_regex"]))
    gate = {int(s) for s in _strings(data["gate_statuses"])}
    rate = [re.compile(p) for p in _strings(data["not_overflow_regex"])]
    excluded = _strings(data["not_overflow_substrings"])
    excluded_pairs = _pairs(data["not_overflow_pairs"])
    substrings = _strings(data["overflow_substrings"])
    pairs = _pairs(data["overflow_pairs"])

    def is_overflow(status: int | None, body: str) -> bool:
        lower = body.lower()
        if gated.search(body) and (status is None or status in gate):
            return False
        if any(p.search(lower) for p in rate):
            return False
        if any(s in lower for s in excluded) or any(
            a in lower and b in lower for a, b in excluded_pairs
        ):
            return False
        return any(s in lower for s in substrings) or any(
            a in lower and b in lower for a, b in pairs
        )

    return is_overflow


def _any_of(text: str, substrings: list[str], pairs: list[tuple[str, str]]) -> bool:
    return any(s in text for s in substrings) or any(a in text and b in text for a, b in pairs)


def _pi(data: dict[str, object]) -> Callable[[int | None, str], bool]:
    excluded = [re.compile(p, re.IGNORECASE) for p in _strings(data["not_overflow_regex"])]
    patterns = [re.compile(p, re.IGNORECASE) for p in _strings(data["overflow_regex"])]

    def is_overflow(status: int | None, body: str) -> bool:
        del status
        if any(p.search(body) for p in excluded):
            return False
        return any(p.search(body) for p in patterns)

    return is_overflow


def _strings(value: object) -> list[str]:
    assert isinstance(value, list)
    return [str(v) for v in value]


def _pairs(value: object) -> list[tuple[str, str]]:
    assert isinstance(value, list)
    return [(str(a), str(b)) for a, b in value]


def load_peers() -> tuple[Peer, ...]:
    data = json.loads(PEERS_FILE.read_text(encoding="utf-8"))
    builders = {"litellm": _litellm, "pi": _pi}
    return tuple(
        Peer(name, entry["title"], entry["source"], entry["reads"], builders[name](entry))
        for name, entry in data.items()
    )


PEERS: Final = load_peers()
