"""The scenario library the package ships, wherever the package is installed.

In a wheel the library (its scenario files, README and JSON Schema) is package data under
``harness/_library/``: ``setup.py`` maps the repository's top-level ``scenarios/`` folder
there, so the repository keeps its layout. In a source checkout or an editable install the
library is that ``scenarios/`` folder itself. ``trimscope run`` with no path runs it;
``trimscope scenarios export DIR`` copies it out for users to edit.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Final

from harness.runtime.errors import HarnessError

PACKAGED_LIBRARY: Final = "_library"
"""The library's folder inside the installed ``harness`` package (a wheel)."""

CHECKOUT_LIBRARY: Final = "scenarios"
"""The library's folder at the root of a source checkout."""

LIBRARY_FILES: Final = ("*.yaml", "*.yml", "README.md", "schema.json")
"""What belongs to the library: scenario files, their README (rule index) and JSON Schema.
``setup.py`` ships the same patterns."""

_HARNESS: Final = Path(__file__).resolve().parents[1]


class ExportError(HarnessError):
    """``export_library`` would overwrite a file the user has."""


def scenario_library() -> Path:
    """The folder of the bundled scenario library: the wheel's package data when present,
    else the checkout's ``scenarios/`` beside the ``harness`` package."""
    packaged = _HARNESS / PACKAGED_LIBRARY
    return packaged if packaged.is_dir() else _HARNESS.parent / CHECKOUT_LIBRARY


def library_files(library: Path | None = None) -> list[Path]:
    """The library's files, sorted by name (no subfolders: the library is flat)."""
    folder = library or scenario_library()
    found = {path for pattern in LIBRARY_FILES for path in folder.glob(pattern) if path.is_file()}
    return sorted(found, key=lambda path: path.name)


def export_library(target: Path, *, overwrite: bool = False) -> list[Path]:
    """Copy the bundled library into ``target`` (created when missing); returns the files
    written. Raises ``ExportError``, before writing anything, when ``target`` is not a
    folder, or naming the first file that exists already unless ``overwrite``; ``OSError``
    when a file cannot be written."""
    sources = library_files()
    if target.exists() and not target.is_dir():
        raise ExportError(f"{target}: exists and is not a folder")
    if not overwrite:
        for source in sources:
            if (target / source.name).exists():
                raise ExportError(f"{target / source.name}: exists (pass --force to overwrite)")
    target.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copyfile(source, target / source.name)) for source in sources]


__all__ = [
    "CHECKOUT_LIBRARY",
    "LIBRARY_FILES",
    "PACKAGED_LIBRARY",
    "ExportError",
    "export_library",
    "library_files",
    "scenario_library",
]
