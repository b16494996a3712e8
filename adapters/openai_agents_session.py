"""The OpenAI Agents SDK as a protocol runtime: ``Runner.run`` with a session.

Run with the Agents SDK venv's python (``.tools/field-openai-agents``)::

    trimscope run --sut ".tools/field-openai-agents/bin/python adapters/openai_agents_session.py \
        --config session-limit"

The SDK keeps a conversation in a session: ``Runner.run(agent, text, session=session)``
fetches the stored items, prepends them to the turn and stores the new ones ("Sessions",
openai-agents-python ``docs/sessions/index.md``). Its history controls are the session's
retrieval limit, ``SessionSettings(limit=N)`` ("Maximum number of items to retrieve",
``agents/memory/session_settings.py``), and, on the Responses API, the decorator
``OpenAIResponsesCompactionSession`` that calls ``responses.compact`` when the stored
history grows (``agents/memory/openai_responses_compaction_session.py``: by default once
10 candidate items are stored). Configurations (``--config``):

- ``session-limit``: ``SQLiteSession(id, session_settings=SessionSettings(limit=10))``
  (in memory; 10 items is this adapter's choice, the SDK has no default);
- ``responses-compaction``: ``OpenAIResponsesCompactionSession(id, SQLiteSession(id),
  client=..., model=M)`` with the SDK's default trigger; the Responses wire only, and
  only for a model the SDK calls an OpenAI model (``gpt-*``, ``o<digit>*``): the SDK
  refuses others, and its default compaction model (``gpt-4.1``) is not the one the
  provider serves (the fake answers 400 "The requested model 'gpt-4.1' does not exist").

Wires: ``openai_responses`` (``OpenAIResponsesModel``) and ``openai_chat``
(``OpenAIChatCompletionsModel``), on an ``AsyncOpenAI`` client to the ``base_url`` with
``max_retries=0``; tracing is disabled (it would export to OpenAI). A 400 whose code is
``context_length_exceeded`` ends the turn with ``error`` kind ``overflow``; the SDK has no
recovery of its own and the adapter adds none.

The protocol helper is ``harness/sut/adapter.py`` (stdlib only): the repository's root
is appended to ``sys.path`` so this venv imports it without the rest of trimscope.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the venv's packages

import openai
from agents import (
    Agent,
    FunctionTool,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    SQLiteSession,
    set_tracing_disabled,
)
from agents.exceptions import AgentsException
from agents.memory import OpenAIResponsesCompactionSession, SessionSettings
from agents.memory.openai_responses_compaction_session import is_openai_model_name
from agents.tool_context import ToolContext

from harness.sut.adapter import Adapter, Callbacks, Session, TurnFailed, Unsupported

CONFIGS: Final = ("session-limit", "responses-compaction")
SESSION_LIMIT: Final = 10
HTTP_TIMEOUT_S: Final = 60.0
MAX_TURNS: Final = 50
OVERFLOW_CODE: Final = "context_length_exceeded"


def scenario_tool(offer: dict[str, Any], session: Session) -> FunctionTool:
    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        return await session.call_tool(offer["name"], json.loads(arguments or "{}"))

    return FunctionTool(
        name=offer["name"],
        description=offer["description"],
        params_json_schema=offer["parameters"],
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


class AgentsRuntime:
    def __init__(self, config: str) -> None:
        self.config = config

    async def on_open(self, session: Session) -> None:
        opened = session.open
        provider = opened["provider"]
        wire, model_name = provider["wire"], provider["model"]
        if wire not in ("openai_responses", "openai_chat"):
            raise Unsupported(f"this adapter speaks openai_responses and openai_chat, not {wire}")
        client = openai.AsyncOpenAI(
            base_url=provider["base_url"],
            api_key=provider["api_key"],
            max_retries=0,
            timeout=HTTP_TIMEOUT_S,
        )
        model: OpenAIResponsesModel | OpenAIChatCompletionsModel
        if wire == "openai_responses":
            model = OpenAIResponsesModel(model=model_name, openai_client=client)
        else:
            model = OpenAIChatCompletionsModel(model=model_name, openai_client=client)
        agent = Agent(
            name="agent",
            instructions=opened["system"],
            model=model,
            tools=[scenario_tool(offer, session) for offer in opened["tools"]],
        )
        if self.config == "session-limit":
            store: Any = SQLiteSession(
                session.id, session_settings=SessionSettings(limit=SESSION_LIMIT)
            )
        elif wire != "openai_responses":
            raise Unsupported("responses.compact is the Responses API's: not on openai_chat")
        elif not is_openai_model_name(model_name):
            raise Unsupported(f"the SDK compacts only OpenAI model names, not {model_name!r}")
        else:  # compact with the agent's own model (the SDK's default is gpt-4.1)
            store = OpenAIResponsesCompactionSession(
                session.id, SQLiteSession(session.id), client=client, model=model_name
            )
        session.state = (agent, store)

    async def on_user(self, session: Session, text: str) -> str:
        agent, store = session.state
        try:
            result = await Runner.run(agent, text, session=store, max_turns=MAX_TURNS)
        except openai.BadRequestError as error:
            kind = "overflow" if error.code == OVERFLOW_CODE else "provider"
            raise TurnFailed(kind, str(error)) from error
        except (openai.APIError, AgentsException) as error:
            raise TurnFailed("provider", f"{type(error).__name__}: {error}") from error
        return str(result.final_output)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--config", choices=CONFIGS, default="session-limit")
    args = parser.parse_args(argv)
    set_tracing_disabled(True)
    runtime = AgentsRuntime(args.config)
    name = f"openai-agents ({args.config})"
    own = f"openai-agents {version('openai-agents')}, openai {version('openai')}"
    callbacks = Callbacks(runtime.on_open, runtime.on_user)
    wires = ["openai_responses", "openai_chat"]
    Adapter(name, own, wires, ["tools", "system"], callbacks).main()


if __name__ == "__main__":
    main()
