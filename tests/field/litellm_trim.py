"""A LiteLLM agent loop that trims its history with ``litellm.utils.trim_messages``.

Run inside the LiteLLM venv (``.tools/field-litellm``), never imported by the test
process: it speaks to ``--base-url`` (the proxy) as an OpenAI-compatible endpoint, one
tool round per turn, and prints one JSON line per turn on stdout:
``{"turn": n, "outcome": "answer"|"error", "detail": ...}``.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

# LiteLLM fetches its model price map from the internet at import unless told not to:
# the tests run offline, and a runtime under test must not reach beyond 127.0.0.1.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # after the variable above: it is read at import
from litellm.utils import trim_messages

QUESTIONS = (
    "Which planets have rings around them?",
    "How many moons does Saturn have today?",
    "Which is the largest moon of Jupiter?",
    "Is Titan larger than the planet Mercury?",
    "How far is Neptune from the Sun?",
    "What is the hottest planet of the solar system?",
)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look a topic up in the encyclopedia.",
            "parameters": {
                "type": "object",
                "properties": {"topic": {"type": "string"}},
                "required": ["topic"],
            },
        },
    }
]


def _lookup(arguments: str) -> str:
    topic = json.loads(arguments or "{}").get("topic", "")
    return f"Encyclopedia entry about {topic}: " + "facts " * 12


def _turn(args: argparse.Namespace, history: list[dict[str, Any]]) -> str:
    """The tool loop of one turn, as LiteLLM's docs write it: trim, call, run the tools."""
    for _ in range(4):  # bounded: the fake answers a tool round, then text
        response = litellm.completion(
            model="openai/m",
            api_base=args.base_url,
            api_key="sk-field-runtime",
            messages=trim_messages(history, model="gpt-4o", max_tokens=args.budget),
            tools=TOOLS,
            num_retries=0,
            extra_headers={"x-trimscope-session": args.session},
        )
        message = response.choices[0].message
        history.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return str(message.content)
        for call in message.tool_calls:
            output = _lookup(call.function.arguments)
            history.append({"role": "tool", "tool_call_id": call.id, "content": output})
    return ""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--session", required=True)
    parser.add_argument("--budget", type=int, required=True)
    parser.add_argument("--turns", type=int, default=len(QUESTIONS))
    args = parser.parse_args()
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "You answer questions about planets."}
    ]
    for number, question in enumerate(QUESTIONS[: args.turns], start=1):
        history.append({"role": "user", "content": question})
        try:
            text = _turn(args, history)
        except (litellm.exceptions.BadRequestError, litellm.exceptions.APIError) as error:
            print(json.dumps({"turn": number, "outcome": "error", "detail": str(error)[:300]}))
            continue
        print(json.dumps({"turn": number, "outcome": "answer", "detail": text}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
