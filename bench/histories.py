"""Deterministic, realistic provider-facing histories for the benchmark.

A history is a system prompt followed by whole turns: a user row (sometimes with a
loadable image marker), zero to three tool rounds (native: an assistant tool-call JSON row
plus one ``tool`` row per call; prompt mode: an assistant row plus one ``[Tool results]``
carrier), and an assistant reply. Sizes vary from a few bytes to several kilobytes, some
text is non-ASCII, and a few tool results declare image attachments. The generator is
seeded, so every run and every engine sees the same rows.
"""

from __future__ import annotations

import random

from harness.runtime import (
    Attachment,
    ChatMessage,
    ToolCall,
    ToolResultMessage,
    native_tool_call_row,
    native_tool_result_row,
    prompt_tool_results_row,
)

_ASCII_WORDS = (
    "the agent reads file config yaml build test error warning line function return "
    "value list map context window token budget trim history turn tool result shell "
    "grep python rust compile module import path user assistant cargo pytest diff"
)
_OTHER_WORDS = "système données café naïve résumé 🦀 ✓ → δ λ"
NON_ASCII_SHARE = 0.15


class _Text:
    """Slices of long pseudo-texts: varied rows without generating megabytes of fresh text.

    About one row in seven is drawn from a pool with non-ASCII words (accents, arrows, an
    emoji), so the estimate has to count UTF-8 bytes there; the rest is ASCII, like most
    code, shell output and English prose.
    """

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        ascii_words = _ASCII_WORDS.split()
        mixed_words = ascii_words + _OTHER_WORDS.split()
        self._ascii = " ".join(rng.choice(ascii_words) for _ in range(40_000))
        self._mixed = " ".join(rng.choice(mixed_words) for _ in range(40_000))

    def take(self, low: int, high: int) -> str:
        # Log-uniform sizes: mostly short rows, a long tail of large ones.
        size = int(low * (high / low) ** self._rng.random())
        pool = self._mixed if self._rng.random() < NON_ASCII_SHARE else self._ascii
        start = self._rng.randrange(0, len(pool) - size)
        return pool[start : start + size]


TOOL_IMAGE_SHARE = 0.03
"""Tool rounds whose results declare a screenshot."""
NATIVE_ROUND_SHARE = 0.6
"""Tool rounds in native mode (the rest are prompt-mode carriers)."""
CALL_NOTE_SHARE = 0.5
"""Native tool calls that come with assistant text."""
USER_IMAGE_SHARE = 0.05
"""User prompts that attach an image."""


def _tool_round(rng: random.Random, text: _Text, turn: int, round_no: int) -> list[ChatMessage]:
    images = []
    if rng.random() < TOOL_IMAGE_SHARE:
        images.append(Attachment("image", f"/tmp/screens/{turn}_{round_no}.png"))
    if rng.random() < NATIVE_ROUND_SHARE:
        ids = [f"call_{turn}_{round_no}_{n}" for n in range(rng.randint(1, 3))]
        calls = [ToolCall(i, "shell", f'{{"command":"{text.take(8, 120)}"}}') for i in ids]
        note = text.take(5, 200) if rng.random() < CALL_NOTE_SHARE else None
        results = [native_tool_result_row(i, text.take(40, 4000), images) for i in ids]
        return [native_tool_call_row(note, calls), *results]
    outputs = [
        ToolResultMessage(f"x{n}", text.take(40, 3000), "shell") for n in range(rng.randint(1, 2))
    ]
    return [
        ChatMessage("assistant", text.take(10, 300)),
        prompt_tool_results_row(outputs, images),
    ]


def _turn(rng: random.Random, text: _Text, turn: int) -> list[ChatMessage]:
    prompt = text.take(10, 800)
    if rng.random() < USER_IMAGE_SHARE:
        prompt += f" [IMAGE:/tmp/uploads/{turn}.png]"
    rows = [ChatMessage("user", prompt)]
    for round_no in range(rng.choice((0, 0, 1, 1, 2, 3))):
        rows.extend(_tool_round(rng, text, turn, round_no))
    rows.append(ChatMessage("assistant", text.take(20, 1500)))
    return rows


class HistoryGenerator:
    """A seeded source of rows: ``history(n)`` for a whole history, ``turn()`` for one more."""

    def __init__(self, seed: int = 7) -> None:
        self._rng = random.Random(seed)
        self._text = _Text(self._rng)
        self._turns = 0

    def turn(self) -> list[ChatMessage]:
        rows = _turn(self._rng, self._text, self._turns)
        self._turns += 1
        return rows

    def history(self, messages: int) -> list[ChatMessage]:
        """Exactly ``messages`` rows: a system prompt, then whole turns (the last may be cut)."""
        prompt = "You are a careful coding agent. " + self._text.take(500, 2000)
        rows = [ChatMessage("system", prompt)]
        while len(rows) < messages:
            rows.extend(self.turn())
        return rows[:messages]


def generate_history(messages: int, seed: int = 7) -> list[ChatMessage]:
    return HistoryGenerator(seed).history(messages)
