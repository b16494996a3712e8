"""A LangChain agent loop that trims its history with ``trim_messages`` before each call.

Run inside the LangChain venv (``.tools/field-langchain``), never imported by the test
process: it speaks to ``--base-url`` (the proxy) with ``ChatOpenAI`` as a user's agent
would, one tool round per turn, and prints one JSON line per turn on stdout:
``{"turn": n, "outcome": "answer"|"error", "detail": ...}``.
"""

from __future__ import annotations

import argparse
import json
import sys

import openai
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

QUESTIONS = (
    "Which planets have rings around them?",
    "How many moons does Saturn have today?",
    "Which is the largest moon of Jupiter?",
    "Is Titan larger than the planet Mercury?",
    "How far is Neptune from the Sun?",
    "What is the hottest planet of the solar system?",
)


@tool  # type: ignore[untyped-decorator]  # langchain-core is not in the checking venv
def lookup(topic: str) -> str:
    """Look a topic up in the encyclopedia."""
    return f"Encyclopedia entry about {topic}: " + "facts " * 12


def _trimmed(history: list[BaseMessage], budget: int, start_on: str | None) -> list[BaseMessage]:
    return list(
        trim_messages(
            history,
            strategy="last",
            token_counter="approximate",
            max_tokens=budget,
            include_system=True,
            start_on=start_on,
        )
    )


def _turn(
    model: ChatOpenAI, history: list[BaseMessage], budget: int, start_on: str | None
) -> AIMessage:
    """The tool loop of one turn: call, run the tools asked for, call again."""
    bound = model.bind_tools([lookup])
    for _ in range(4):  # bounded: the fake answers a tool round, then text
        reply = bound.invoke(_trimmed(history, budget, start_on))
        assert isinstance(reply, AIMessage)
        history.append(reply)
        if not reply.tool_calls:
            return reply
        for call in reply.tool_calls:
            output = lookup.invoke(call["args"])
            history.append(ToolMessage(content=str(output), tool_call_id=str(call["id"])))
    return reply


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--session", required=True)
    parser.add_argument("--budget", type=int, required=True)
    parser.add_argument("--turns", type=int, default=len(QUESTIONS))
    parser.add_argument("--start-on", default=None)
    args = parser.parse_args()
    model = ChatOpenAI(
        base_url=args.base_url,
        api_key="sk-field-runtime",
        model="m",
        max_retries=0,
        timeout=30,
        default_headers={"x-trimscope-session": args.session},
    )
    history: list[BaseMessage] = [SystemMessage("You answer questions about planets.")]
    for number, question in enumerate(QUESTIONS[: args.turns], start=1):
        history.append(HumanMessage(question))
        try:
            reply = _turn(model, history, args.budget, args.start_on)
        except openai.APIStatusError as error:
            print(json.dumps({"turn": number, "outcome": "error", "detail": str(error)[:300]}))
            continue
        print(json.dumps({"turn": number, "outcome": "answer", "detail": str(reply.content)}))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
