"""Write ``harness/sut/schemas/*.json`` from the protocol's models:
``python -m harness.sut.schemas_gen`` (a test checks the committed files are current)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from harness.atomic import write_text_atomic
from harness.sut.protocol import schema_files

SCHEMA_DIR: Final = Path(__file__).resolve().parent / "schemas"


def main() -> None:
    for name, text in schema_files().items():
        write_text_atomic(SCHEMA_DIR / name, text)


if __name__ == "__main__":
    main()
