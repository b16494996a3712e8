"""The README and the pages of docs/ work as written: every command in their shell blocks
runs verbatim, in a shell where ``.venv/bin`` is on PATH (what ``. .venv/bin/activate``
does), from the repository's root, bounded in time, on loopback only, and leaves no file
outside the git-ignored ``out/``.

A block is a shell block when its first line starts like a command (``trimscope``, ``make``,
``.``, a variable assignment, ...); output samples and YAML are not. The few commands that
cannot run here are listed in ``NOT_RUN`` with the reason; a test checks that the list
names only commands the pages still have, so it cannot hide new ones.

The README stays short enough to read in ten minutes (at most ``README_MAX_LINES`` lines)
and links every page of docs/; that every relative link of the tracked Markdown resolves,
heading included, is tests/test_standalone.py's check.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES: tuple[Path, ...] = (README, *sorted(DOCS.glob("*.md")))
README_MAX_LINES = 300  # issue 27: a newcomer reads it in ten minutes
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
COMMAND_START = re.compile(r"^(trimscope |make |\. |\.venv/bin/|locust |export |rm |[A-Z_]+=)")
BLOCK_TIMEOUT_S = 600.0
OTLP_PORT = 4318  # the port the README's OTLP example names

NOT_RUN: dict[str, str] = {
    "make test": "runs this test suite itself",
    "make bench": "the benchmarks: minutes of CPU, run by make bench on purpose",
    ".venv/bin/python -m bench load": "the load benchmark: minutes of CPU, run by make bench",
    "--base-url https://api.openai.com/v1": "a real provider: needs the network and a paid key",
    "--upstream https://api.openai.com/v1": "a real provider: needs the network and a paid key",
    "python my_adapter.py": "the reader's own adapter (docs/sut-protocol.md shows one)",
    "trimscope load --locust": "Locust: covered by tests/load (issue 11's Locust part)",
    "--write-plan": "the multi-machine Locust flow: covered by tests/load",
    "LOCUSTFILE=": "the multi-machine Locust flow: covered by tests/load",
    "locust -f": "the multi-machine Locust flow (MASTER_HOST is a machine of yours)",
    "export TRIMSCOPE_LOAD_PLAN": "the multi-machine Locust flow: covered by tests/load",
    "PROMETHEUS_MULTIPROC_DIR": "the multi-machine Locust flow: covered by tests/load",
    # The Phoenix block leaves a server running for a person to browse (a background job
    # keeps the block's output open); tests/telemetry/test_phoenix.py runs the same flow
    # (install, loopback start, --otlp) and reads every span back.
    "make phoenix": "installs Phoenix: tests/telemetry/test_phoenix.py (via .ci/run)",
    "scripts/phoenix_loopback.py": "starts Phoenix for a person: tests/telemetry/test_phoenix.py",
    "127.0.0.1:6006/v1/traces": "exports to that Phoenix: tests/telemetry/test_phoenix.py",
}
EXPECTED_EXIT: dict[str, int] = {
    # The README says so: the Ollama fake truncates silently, so it does not conform.
    "trimscope conformance --provider ollama-openai": 1,
}


@dataclass(frozen=True)
class Block:
    page: str
    section: str
    commands: tuple[str, ...]  # continuation lines joined

    @property
    def id(self) -> str:
        return f"{self.page}: {self.section}: {self.commands[0][:50]}"


def _commands(text: str) -> tuple[str, ...]:
    joined = re.sub(r"\\\n\s*", "", text)
    lines = (line.rstrip() for line in joined.splitlines())
    return tuple(line for line in lines if line.strip() and not line.lstrip().startswith("#"))


def shell_blocks(text: str, page: str = "README.md") -> list[Block]:
    blocks = []
    for match in FENCE.finditer(text):
        language, body = match.group(1), match.group(2)
        if language not in ("", "sh", "shell", "bash") or not COMMAND_START.match(body):
            continue
        headings = re.findall(r"^#+ (.+)$", text[: match.start()], re.M)
        blocks.append(Block(page, headings[-1] if headings else "top", _commands(body)))
    return blocks


def _skipped(command: str) -> str | None:
    return next((why for key, why in NOT_RUN.items() if key in command), None)


def _page_blocks(page: Path) -> list[Block]:
    return shell_blocks(page.read_text(encoding="utf-8"), str(page.relative_to(ROOT)))


BLOCKS = [block for page in PAGES for block in _page_blocks(page)]
RUNNABLE = [b for b in BLOCKS if any(_skipped(c) is None for c in b.commands)]


def test_the_pages_have_shell_blocks_and_each_exception_is_still_in_them() -> None:
    commands = [c for b in BLOCKS for c in b.commands]
    assert any(c.startswith("trimscope run") for c in commands)
    assert {b.page for b in RUNNABLE} >= {"README.md", "docs/load.md", "docs/telemetry.md"}
    for key in [*NOT_RUN, *EXPECTED_EXIT]:
        assert any(key in c for c in commands), f"{key!r} is no longer in the README or docs/"


def test_the_blocks_of_a_page_are_found_with_the_section_they_are_in() -> None:
    page = "# Title\n\n## Two\n\n```\ntrimscope run \\\n    -q\n```\n\n```yaml\nid: x\n```\n"
    assert shell_blocks(page, "docs/x.md") == [Block("docs/x.md", "Two", ("trimscope run -q",))]


def test_the_readme_is_read_in_ten_minutes() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines: move some into docs/"


def test_the_readme_links_every_page_of_docs() -> None:
    links = set(re.findall(r"\]\((docs/[^)#\s]+)", README.read_text(encoding="utf-8")))
    pages = {str(page.relative_to(ROOT)) for page in PAGES[1:]}
    assert pages - links == set(), "pages of docs/ the README does not link"


def test_every_trimscope_command_writes_under_the_ignored_out_folder() -> None:
    output_options = ("--json", "--markdown", "--junit-xml", "--transcript", "--otel-jsonl",
                      "--metrics-out", "--write-plan", "--html", "-o")  # fmt: skip
    for block in RUNNABLE:
        for command in block.commands:
            words = command.split()
            for option in output_options:
                if option in words and _skipped(command) is None:
                    target = words[words.index(option) + 1]
                    assert target.startswith("out/"), f"{command}: {option} {target}"


class _Sink(BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver that accepts everything and counts the trace exports."""

    posts = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.path == "/v1/traces":
            type(self).posts += 1
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def otlp_sink() -> Iterator[type[_Sink] | None]:
    try:
        server = ThreadingHTTPServer(("127.0.0.1", OTLP_PORT), _Sink)
    except OSError:
        yield None  # someone else listens there: the command still runs, exports unchecked
        return
    _Sink.posts = 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield _Sink
    server.shutdown()
    server.server_close()


def _git_status() -> str:
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout if done.returncode == 0 else ""


def _run(block: Block) -> list[tuple[str, int]]:
    """Run the block's commands in one bash, as typed; each command's exit status is
    reported on a pipe after it. The whole process group is stopped at the end."""
    read_end, write_end = os.pipe()
    script = []
    runnable = [c for c in block.commands if _skipped(c) is None]
    for command in runnable:
        script += [command, f'echo "$?" >&{write_end}']
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("CI", None)
    process = subprocess.Popen(
        ["bash", "-c", "\n".join(script)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        pass_fds=(write_end,),
        start_new_session=True,
        text=True,
    )
    os.close(write_end)
    try:
        output, _ = process.communicate(timeout=BLOCK_TIMEOUT_S)
    finally:
        # Whatever the block left running (a fake server it started with &) stops too.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    with os.fdopen(read_end) as statuses:
        codes = [int(line) for line in statuses.read().split()]
    assert len(codes) == len(runnable), output
    return list(zip(runnable, codes, strict=True))


@pytest.mark.integration
@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.id)
def test_the_readme_block_runs_verbatim(block: Block, otlp_sink: type[_Sink] | None) -> None:
    before = _git_status()
    for command, code in _run(block):
        expected = next((c for key, c in EXPECTED_EXIT.items() if key in command), 0)
        assert code == expected, f"{command!r} exited {code}"
    assert _git_status() == before, f"a command of {block.page} wrote outside out/"
    if otlp_sink is not None and any("--otlp" in c for c in block.commands):
        assert otlp_sink.posts > 0, "the OTLP example exported no spans"
