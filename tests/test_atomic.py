"""``harness.atomic``: an output is the old file or the whole new one, never a part."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.atomic import FILE_MODE, atomic_write, write_bytes_atomic, write_text_atomic


class Boom(Exception):
    pass


def test_a_failed_fill_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")

    def fill(stream: IO[bytes]) -> None:
        stream.write(b"half of the new")
        raise Boom

    with pytest.raises(Boom):
        atomic_write(target, fill)
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_an_interruption_is_cleaned_up_too(tmp_path: Path) -> None:
    """``KeyboardInterrupt`` is no ``Exception``: the temporary file must still go."""
    target = tmp_path / "deep" / "out.xml"

    def fill(stream: IO[bytes]) -> None:
        stream.write(b"<partial")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, fill)
    assert not target.exists()
    assert list(target.parent.iterdir()) == []


def test_the_file_is_created_with_its_folder_and_a_readable_mode(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "report.html"
    write_text_atomic(target, "<p>é</p>")
    assert target.read_bytes() == "<p>é</p>".encode()
    assert target.stat().st_mode & 0o777 == FILE_MODE


def test_a_folder_in_the_way_fails_and_leaves_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()
    with pytest.raises(IsADirectoryError):
        write_bytes_atomic(target, b"x")
    assert target.is_dir()
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]


# The same file is rewritten each example: a shared tmp_path is what is meant.
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(old=st.binary(max_size=64), new=st.binary(max_size=64))
def test_whatever_is_written_is_read_back_exactly(tmp_path: Path, old: bytes, new: bytes) -> None:
    target = tmp_path / "prop.bin"
    write_bytes_atomic(target, old)
    write_bytes_atomic(target, new)
    assert target.read_bytes() == new
    assert [p for p in os.listdir(tmp_path) if p.endswith(".tmp")] == []


def test_a_failed_write_names_the_target(tmp_path: Path) -> None:
    """A full disk fails ``write`` on the open stream, whose ``OSError`` names no file: it
    is raised again naming the target (issue 28: the crash guard took it for a bug)."""
    target = tmp_path / "summary.json"

    def fill(stream: IO[bytes]) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left on device") as raised:
        atomic_write(target, fill)
    assert raised.value.filename == str(target)
    assert raised.value.errno == 28
    assert list(tmp_path.iterdir()) == []
