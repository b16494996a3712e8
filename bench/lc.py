"""langchain-core's ``trim_messages`` on the same histories (the ``bench`` extra installs it).

Rows become langchain messages once, outside every timed region, with the same content:
``system`` -> ``SystemMessage``, ``user`` (carriers included) -> ``HumanMessage``,
``assistant`` (native tool-call rows included, as their JSON text) -> ``AIMessage``,
``tool`` -> ``ToolMessage`` with the row's ``tool_call_id``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from importlib.metadata import version

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)
from langchain_core.messages.utils import count_tokens_approximately

from harness.runtime import ChatMessage

LANGCHAIN_CORE_VERSION = version("langchain-core")
TokenCounter = Callable[[list[BaseMessage]], int]


def to_langchain(rows: Sequence[ChatMessage]) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for row in rows:
        if row.role == "system":
            out.append(SystemMessage(content=row.content))
        elif row.role == "user":
            out.append(HumanMessage(content=row.content))
        elif row.role == "tool":
            call_id = json.loads(row.content).get("tool_call_id", "unknown")
            out.append(ToolMessage(content=row.content, tool_call_id=call_id))
        else:
            out.append(AIMessage(content=row.content))
    return out


def four_chars_per_token(messages: list[BaseMessage]) -> int:
    """The cheapest 4-characters-per-token counter: ``ceil(chars / 4) + 4`` per message.

    (Characters, not bytes: langchain gets no UTF-8 encoding work to do.)
    """
    return sum(-(-len(m.content) // 4) + 4 for m in messages)


def approximate(messages: list[BaseMessage]) -> int:
    """langchain-core's own approximate counter (``chars_per_token=4.0``, its default)."""
    return int(count_tokens_approximately(messages, chars_per_token=4.0))


COUNTERS: dict[str, TokenCounter] = {
    "chars/4 function": four_chars_per_token,
    "count_tokens_approximately": approximate,
}


def lc_trim(messages: list[BaseMessage], budget: int, counter: TokenCounter) -> list[BaseMessage]:
    kept: list[BaseMessage] = trim_messages(
        messages,
        max_tokens=budget,
        strategy="last",
        start_on="human",
        token_counter=counter,
    )
    return kept
