"""Render the dashboards to the JSON that is committed under ``dashboards/json/``.

The output is deterministic (sorted keys, two-space indent, a final newline), so a test
can regenerate it and compare byte for byte with the committed files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import Dashboard

from dashboards import conformance, overview, wire
from dashboards.grafana_fit import fit_grafana

DASHBOARDS: Final[dict[str, Callable[[], Dashboard]]] = {
    f"{overview.UID}.json": overview.build,
    f"{conformance.UID}.json": conformance.build,
    f"{wire.UID}.json": wire.build,
}
"""File name → builder, for every dashboard the project ships."""

DEFAULT_OUT: Final = Path(__file__).resolve().parent / "json"
"""``dashboards/json/`` next to this module (the committed files)."""


def render(dashboard: Dashboard) -> str:
    """The JSON of ``dashboard``, made to fit the Grafana release it targets."""
    return JSONEncoder(sort_keys=True, indent=2).encode(fit_grafana(dashboard)) + "\n"


def render_all() -> dict[str, str]:
    """File name → JSON text of every dashboard."""
    return {name: render(build()) for name, build in DASHBOARDS.items()}


def write_all(
    out: Path = DEFAULT_OUT, write: Callable[[Path, str], None] | None = None
) -> list[Path]:
    """Write every dashboard into ``out``; returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_all().items():
        path = out / name
        if write is None:
            path.write_text(text, encoding="utf-8")
        else:  # the CLI's atomic writer (the dashboards package imports no harness I/O)
            write(path, text)
        written.append(path)
    return written


def stale(out: Path = DEFAULT_OUT) -> list[str]:
    """Files in ``out`` that differ from what the builders produce now (or are missing)."""
    return [
        name
        for name, text in render_all().items()
        if not (out / name).is_file() or (out / name).read_text(encoding="utf-8") != text
    ]
