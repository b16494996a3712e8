"""Input checks every command runs before it does any work: output paths, ports, hosts.

Each check raises ``typer.BadParameter`` naming the option and the value, which click turns
into exit code 2 with ``Invalid value for '--json': ...`` and no traceback. Running them
first is the point: an output found unwritable after an hour of work is an hour lost.

Only stdlib and typer here, so importing this module costs the CLI's start-up nothing.
"""

from __future__ import annotations

import os
import re
import socket
import stat
import tempfile
import urllib.parse
from pathlib import Path
from typing import Final

import typer

MAX_PORT: Final = 65_535


def _bad(option: str, value: object, why: str) -> typer.BadParameter:
    return typer.BadParameter(f"{str(value)!r}: {why}", param_hint=f"'{option}'")


def _existing_parent(option: str, path: Path) -> Path:
    """The folder ``path`` will be created in, which must exist: a typo in an output path
    must not build a tree of folders (``--junit-xml /nonexistent/dir/j.xml``)."""
    parent = path.absolute().parent
    if parent.exists():
        return parent
    ancestor = parent.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise _bad(option, path, f"{ancestor} is not a folder")
    raise _bad(option, path, f"folder {parent} does not exist (create it first)")


def _probe_folder(option: str, value: object, folder: Path) -> None:
    """Create and remove a temporary file in ``folder``: the only test that also catches
    read-only filesystems, and that holds for root (``os.access`` says yes to root)."""
    if not folder.is_dir():
        raise _bad(option, value, f"{folder} is not a folder")
    try:
        handle, probe = tempfile.mkstemp(prefix=".trimscope-probe-", dir=folder)
    except OSError as error:
        raise _bad(option, value, f"cannot write in {folder}: {error.strerror}") from None
    os.close(handle)
    os.unlink(probe)


def check_output_file(option: str, path: Path | None) -> None:
    """``path`` can be written as a file: it is not a folder, and it or the folder it will be
    created in (which must exist: no folder is created silently) is writable. Nothing is
    left behind."""
    if path is None:
        return
    if path.exists():
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise _bad(option, path, "is a folder; expected a file")
        if not stat.S_ISREG(mode):
            raise _bad(option, path, "is not a regular file")
        if not os.access(path, os.W_OK):
            raise _bad(option, path, "is not writable")
        _probe_folder(option, path, path.absolute().parent)
        return
    _probe_folder(option, path, _existing_parent(option, path))


def check_output_dir(option: str, path: Path | None) -> None:
    """``path`` is, or can be created as, a writable folder: the folder itself may be made,
    never its missing parents. Nothing is left behind."""
    if path is None:
        return
    if path.exists():
        if not path.is_dir():
            raise _bad(option, path, "is a file; expected a folder")
        _probe_folder(option, path, path)
        return
    _probe_folder(option, path, _existing_parent(option, path))


def check_outputs(files: dict[str, Path | None], dirs: dict[str, Path | None]) -> None:
    """Every output of one command, and no two of them the same file."""
    for option, path in files.items():
        check_output_file(option, path)
    for option, path in dirs.items():
        check_output_dir(option, path)
    seen: dict[Path, str] = {}
    for option, path in files.items():
        if path is None:
            continue
        resolved = path.resolve()
        if resolved in seen:
            raise _bad(option, path, f"is also given to {seen[resolved]}")
        seen[resolved] = option


def check_host(option: str, host: str) -> None:
    """``host`` resolves to an address (a name that does not is an input error)."""
    if not host.strip():
        raise _bad(option, host, "expected a host name or address, found an empty string")
    try:
        socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise _bad(option, host, f"does not resolve ({error})") from None


def check_port(option: str, port: int | None, host: str, *, free: bool = True) -> None:
    """``port`` is 0 (pick a free one) or 1..65535 and, when ``free``, can be bound on
    ``host`` now. SO_REUSEADDR as the servers set it, so a port in TIME_WAIT is not refused
    here and then accepted by the server."""
    if port is None:
        return
    if not 0 <= port <= MAX_PORT:
        raise _bad(option, port, f"expected a port in 0..{MAX_PORT}")
    if port == 0 or not free:
        return
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        raise _bad(option, port, f"cannot listen on {host}:{port} ({error.strerror})") from None


def check_pattern(option: str, pattern: str | None) -> None:
    """``pattern`` is a valid regular expression (``-k '['`` is a bad option, not a crash)."""
    if pattern is None:
        return
    try:
        re.compile(pattern)
    except re.error as error:
        raise _bad(option, pattern, f"not a regular expression ({error})") from None


def check_url(option: str, url: str) -> None:
    """``url`` parses and, if it names a port, the port is in 1..65535 (the scheme is the
    conformance plan's to check). Give it without userinfo (``secrets.split_userinfo``):
    the value is shown."""
    try:
        port = urllib.parse.urlsplit(url).port
    except ValueError as error:
        raise _bad(option, url, f"not a valid URL ({error})") from None
    if port == 0:
        raise _bad(option, url, f"expected a port in 1..{MAX_PORT}, found 0")


__all__ = [
    "MAX_PORT",
    "check_host",
    "check_output_dir",
    "check_output_file",
    "check_outputs",
    "check_pattern",
    "check_port",
    "check_url",
]
