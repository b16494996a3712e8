"""Hypothesis strategies for the wire tests: conversations in the runtime's canonical rows.

Every row's text is unique within a conversation (it names the conversation, the turn and
the row), so a cut is the only way two requests can share a run of rows; the inference
reads equal rows as the same row, and a test of it should not hinge on look-alikes.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from harness.runtime import ChatMessage, ToolCall
from harness.runtime.messages import native_tool_call_row, native_tool_result_row


@dataclass(frozen=True, slots=True)
class Conversation:
    """System rows, then turns: each a user row, tool rounds (a call row, its results),
    and a final assistant row."""

    system: tuple[ChatMessage, ...]
    turns: tuple[tuple[ChatMessage, ...], ...]

    @property
    def rows(self) -> list[ChatMessage]:
        return [*self.system, *(row for turn in self.turns for row in turn)]


def _turn(tag: str, index: int, rounds: list[int], words: int) -> tuple[ChatMessage, ...]:
    text = " ".join(["word"] * words)
    rows = [ChatMessage("user", f"{tag} turn {index}: {text}")]
    for number, calls in enumerate(rounds):
        ids = [f"{tag}-{index}-{number}-{i}" for i in range(calls)]
        rows.append(native_tool_call_row(None, [ToolCall(i, "lookup", '{"q":"x"}') for i in ids]))
        rows += [native_tool_result_row(i, f"result {i}: {text}") for i in ids]
    rows.append(ChatMessage("assistant", f"{tag} answer {index}: {text}"))
    return tuple(rows)


@st.composite
def conversations(
    draw: st.DrawFn, tag: str = "c", min_turns: int = 1, max_turns: int = 6
) -> Conversation:
    systems = draw(st.integers(min_value=0, max_value=2))
    count = draw(st.integers(min_value=min_turns, max_value=max_turns))
    turns = tuple(
        _turn(
            tag,
            index,
            draw(st.lists(st.integers(min_value=1, max_value=2), max_size=2)),
            draw(st.integers(min_value=1, max_value=40)),
        )
        for index in range(count)
    )
    system = tuple(ChatMessage("system", f"{tag} system {i}") for i in range(systems))
    return Conversation(system, turns)
