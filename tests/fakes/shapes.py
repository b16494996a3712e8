"""Structural comparison for the fidelity fixtures (``tests/fakes/fidelity/*.json``): the
JSON key paths of an answer (values ignored, list items merged), and the fixtures' loader.
Each fixture holds real answers' shapes and cites its record (``source``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIDELITY = Path(__file__).parent / "fidelity"


def key_paths(value: Any, prefix: str = "$") -> set[str]:
    paths = {prefix}
    if isinstance(value, dict):
        for key, inner in value.items():
            paths |= key_paths(inner, f"{prefix}.{key}")
    elif isinstance(value, list):
        for inner in value:
            paths |= key_paths(inner, f"{prefix}[]")
    return paths


def fixture(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIDELITY / name).read_text(encoding="utf-8"))
    entries = [v for v in loaded.values() if isinstance(v, dict)]
    cited = loaded.get("source") or (entries and all(e.get("source") for e in entries))
    assert cited, f"{name} cites no source (at the top, or in each entry)"
    return loaded
