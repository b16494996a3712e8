"""The public tokenizers as counters (``fakes.counting.exact_counter``): exact text counts, OpenAI's
message framing, the model's own tokenizer by name (``exact``), and a clear refusal where
there is none or its package is missing."""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest
from typer.testing import CliRunner

from fakes import FakeProvider, get_counter
from fakes.counting.exact_counter import encoding_for_model
from fakes.rows import CanonicalRequest, Row
from harness.cli import app

QUICKTOK_MISSING = "the tokenizers extra (quicktok-v1) is not installed: make .venv installs it"
if importlib.util.find_spec("quicktok") is None and os.environ.get("CI") == "true":
    # under CI the extra is installed by `make test`: a missing one is a failure, not a skip
    raise RuntimeError(QUICKTOK_MISSING)
needs_quicktok = pytest.mark.skipif(
    importlib.util.find_spec("quicktok") is None, reason=QUICKTOK_MISSING
)


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama3"),
        ("Qwen/Qwen2.5-7B-Instruct", "qwen3"),
        ("claude-sonnet-4", None),
        ("gemini-2.5-flash", None),
    ],
)
def test_the_models_tokenizer_by_its_name(model: str, encoding: str | None) -> None:
    assert encoding_for_model(model) == encoding


def test_a_model_without_a_public_tokenizer_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no public tokenizer is known for model 'claude-x'"):
        get_counter("exact", "claude-x")


def test_a_missing_tokenizer_package_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def without_quicktok(name: str, *args: Any) -> Any:
        if name == "quicktok":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", without_quicktok)
    with pytest.raises(
        ValueError, match=r"needs its tokenizer: pip install 'trimscope\[tokenizers\]'"
    ):
        get_counter("o200k_base")


@needs_quicktok
@pytest.mark.parametrize(
    ("encoding", "text", "tokens"),
    [
        # token ids as tiktoken gives them (cl100k_base: [15339, 1917]; o200k_base: [24912, 2375])
        ("cl100k_base", "hello world", 2),
        ("o200k_base", "hello world", 2),
        ("cl100k_base", "", 0),
    ],
)
def test_text_is_counted_exactly(encoding: str, text: str, tokens: int) -> None:
    assert get_counter(encoding).count_text(text) == tokens


@needs_quicktok
def test_a_fake_counts_its_models_tokens_with_openais_framing() -> None:
    fake = FakeProvider("openai", "gpt-4o", counter="exact", context_window=1000)
    assert fake.counter.name == "o200k_base"
    request = CanonicalRequest(model="gpt-4o", rows=(Row("user", "hello world"),))
    # 3 per message + "user" (1) + "hello world" (2) + 3 for the reply's priming
    assert fake.count(request).total == 9


def test_fake_serve_refuses_exact_for_a_model_without_one() -> None:
    result = CliRunner().invoke(
        app,
        ["fake", "serve", "--provider", "anthropic", "--model", "claude-x",
         "--context-window", "9", "--counter", "exact"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--counter" in result.output
