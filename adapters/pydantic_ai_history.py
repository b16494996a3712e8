"""pydantic-ai as a protocol runtime: an ``Agent`` trimming with a history processor.

Run with the pydantic-ai venv's python (``.tools/field-pydantic-ai``)::

    trimscope run --sut ".tools/field-pydantic-ai/bin/python adapters/pydantic_ai_history.py \
        --config keep-recent"

pydantic-ai 2 removed ``Agent(history_processors=...)``: a processor is the capability
``ProcessHistory(fn)`` (``pydantic_ai/capabilities/process_history.py``; the package's
own guide ``pydantic_ai/.agents/skills/building-pydantic-ai-agents/SKILL.md``: "
``history_processors=`` was removed in v2; use ``capabilities=[ProcessHistory(p), ...]``").
It runs before every model request, on the whole history, and its result replaces the
history (``ctx.messages[:] = messages``). Each session keeps the run's
``all_messages()`` and passes them as ``message_history`` to the next turn, as the docs
write a conversation; the system prompt is the agent's ``instructions`` (the guide's
"Prefer instructions", ``references/AGENTS-CORE.md``), sent with every request.
Configurations (``--config``):

- ``keep-recent``: the guide's example (``references/INPUT-AND-HISTORY.md``):
  ``messages[-10:] if len(messages) > 10 else messages``;
- ``last-message``: ``messages[-1:]``, the smallest window a user writes that way.

Wires: ``openai_chat`` (``OpenAIChatModel``) and ``openai_responses``
(``OpenAIResponsesModel``), each on an ``AsyncOpenAI`` client to the ``base_url`` with
``max_retries=0``. pydantic-ai's own ``ModelContextWindowExceededError`` ends the turn
with ``error`` kind ``overflow``; it has no recovery the adapter turns on.

The protocol helper is ``harness/sut/adapter.py`` (stdlib only): the repository's root
is appended to ``sys.path`` so this venv imports it without the rest of trimscope.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the venv's packages

from openai import AsyncOpenAI
from pydantic_ai import Agent, ModelMessage, Tool
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.exceptions import AgentRunError, ModelContextWindowExceededError
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

from harness.sut.adapter import Adapter, Callbacks, Session, TurnFailed, Unsupported

KEEP_RECENT: Final = 10
HTTP_TIMEOUT_S: Final = 60.0
WIRES: Final = ("openai_chat", "openai_responses")


def keep_recent(messages: list[ModelMessage]) -> list[ModelMessage]:
    return messages[-KEEP_RECENT:] if len(messages) > KEEP_RECENT else messages


def last_message(messages: list[ModelMessage]) -> list[ModelMessage]:
    return messages[-1:]


PROCESSORS: Final[dict[str, Callable[[list[ModelMessage]], list[ModelMessage]]]] = {
    "keep-recent": keep_recent,
    "last-message": last_message,
}


def scenario_tool(offer: dict[str, Any], session: Session) -> Tool[None]:
    async def run(**arguments: Any) -> str:
        return await session.call_tool(offer["name"], arguments)

    return Tool.from_schema(run, offer["name"], offer["description"], offer["parameters"])


class PydanticAiRuntime:
    def __init__(self, config: str) -> None:
        self.processor = PROCESSORS[config]

    async def on_open(self, session: Session) -> None:
        opened = session.open
        provider = opened["provider"]
        if provider["wire"] not in WIRES:
            raise Unsupported(f"this adapter speaks {' and '.join(WIRES)}, not {provider['wire']}")
        client = AsyncOpenAI(
            base_url=provider["base_url"],
            api_key=provider["api_key"],
            max_retries=0,
            timeout=HTTP_TIMEOUT_S,
        )
        model_type = OpenAIChatModel if provider["wire"] == "openai_chat" else OpenAIResponsesModel
        model = model_type(provider["model"], provider=OpenAIProvider(openai_client=client))
        agent: Agent[None, str] = Agent(
            model,
            instructions=opened["system"],
            tools=[scenario_tool(offer, session) for offer in opened["tools"]],
            capabilities=[ProcessHistory(self.processor)],
        )
        session.state = (agent, [])

    async def on_user(self, session: Session, text: str) -> str:
        agent, history = session.state
        try:
            result = await agent.run(text, message_history=history)
        except ModelContextWindowExceededError as error:
            raise TurnFailed("overflow", str(error)) from error
        except AgentRunError as error:
            raise TurnFailed("provider", f"{type(error).__name__}: {error}") from error
        history[:] = result.all_messages()
        return str(result.output)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--config", choices=sorted(PROCESSORS), default="keep-recent")
    args = parser.parse_args(argv)
    runtime = PydanticAiRuntime(args.config)
    name = f"pydantic-ai ProcessHistory ({args.config})"
    own = f"pydantic-ai-slim {version('pydantic-ai-slim')}, openai {version('openai')}"
    callbacks = Callbacks(runtime.on_open, runtime.on_user)
    Adapter(name, own, list(WIRES), ["tools", "system"], callbacks).main()


if __name__ == "__main__":
    main()
