"""JUnit ``classname`` and ``file`` of a scenario: portable between machines.

CI tools split ``classname`` on dots into packages and classes, and show ``file`` next to
the case: an absolute path ending in ``.yaml`` made one package per folder of the machine
that ran it. The class name is the scenario's path inside its library, dotted, with the
library folder's own name first (``scenarios.budget-proactive-drops-oldest-turns``); the
file is that path relative to the current directory, or to the library's parent when the
library lies elsewhere (the bundled one, installed) -- never absolute.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath


@dataclass(frozen=True, slots=True)
class JunitNames:
    """``roots``: the files and folders the run was given (the library by default); a
    scenario's library is the first folder among them that holds it, else its own
    folder."""

    roots: Sequence[Path] = ()

    def __post_init__(self) -> None:
        folders = tuple(Path(os.path.abspath(r)) for r in self.roots if Path(r).is_dir())
        object.__setattr__(self, "roots", folders)

    def _library(self, path: Path) -> Path:
        return next((root for root in self.roots if path.is_relative_to(root)), path.parent)

    def classname(self, path: Path) -> str:
        absolute = Path(os.path.abspath(path))
        library = self._library(absolute)
        inside = absolute.relative_to(library).with_suffix("")
        # a dot inside a name would read as one more package: it becomes "_"
        parts = [library.name or "scenarios", *inside.parts]
        return ".".join(part.replace(".", "_") for part in parts)

    def file(self, path: Path) -> str:
        absolute = Path(os.path.abspath(path))
        cwd = Path.cwd()
        if absolute.is_relative_to(cwd):
            return absolute.relative_to(cwd).as_posix()
        library = self._library(absolute)
        return PurePath(library.name, absolute.relative_to(library)).as_posix()
