"""pydantic-ai as a protocol runtime: an ``Agent`` trimming with a history processor, or
compacting with its OpenAI compaction capability.

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
- ``last-message``: ``messages[-1:]``, the smallest window a user writes that way;
- ``openai-compaction``: pydantic-ai's compaction, ``OpenAICompaction(
  message_count_threshold=10)`` (``pydantic_ai/models/openai/_compaction.py``, its
  docstring's "Stateless mode" example with the guide's 10 messages): above 10 messages a
  ``before_model_request`` hook requests compaction and the capability calls the
  stateless ``POST /responses/compact`` with everything before the turn being answered,
  then sends the returned compaction item and that turn; a request the model refuses as
  over its window is compacted the same way and retried (``_agent_graph._compact_attempt``,
  reason ``context_overflow``). Responses only (``OpenAIResponsesModel``);
- ``openai-server-compaction``: the same capability in its stateful mode,
  ``OpenAICompaction(token_threshold=N)``: each ``/responses`` request carries
  ``context_management: [{"type": "compaction", "compact_threshold": N}]`` and the
  provider compacts a request over ``N`` input tokens before answering. ``N`` is the
  session's ``budget_tokens`` (the one configuration that declares ``budget``: the
  threshold is a token budget), else the window (OpenAI's own default is not published).
  Responses only.

Wires: ``openai_chat`` (``OpenAIChatModel``) and ``openai_responses``
(``OpenAIResponsesModel``), each on an ``AsyncOpenAI`` client to the ``base_url`` with
``max_retries=0``. pydantic-ai's own ``ModelContextWindowExceededError`` ends the turn
with ``error`` kind ``overflow``; only the compaction configurations recover from one.

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
from pydantic_ai.capabilities import AbstractCapability, ProcessHistory
from pydantic_ai.exceptions import AgentRunError, ModelContextWindowExceededError
from pydantic_ai.models.openai import OpenAIChatModel, OpenAICompaction, OpenAIResponsesModel
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
COMPACTIONS: Final[dict[str, Callable[[int], AbstractCapability[None]]]] = {
    "openai-compaction": lambda tokens: OpenAICompaction(message_count_threshold=KEEP_RECENT),
    "openai-server-compaction": lambda tokens: OpenAICompaction(token_threshold=tokens),
}
"""Each compaction configuration's capability, given the session's budget (else window)."""
BUDGETED: Final = frozenset({"openai-server-compaction"})
"""The configurations whose threshold is ``budget_tokens``: they declare ``budget``."""
CONFIGS: Final = sorted([*PROCESSORS, *COMPACTIONS])


def wires_of(config: str) -> list[str]:
    """OpenAI's compaction is the Responses API's: those configurations speak it only."""
    return ["openai_responses"] if config in COMPACTIONS else list(WIRES)


def scenario_tool(offer: dict[str, Any], session: Session) -> Tool[None]:
    async def run(**arguments: Any) -> str:
        return await session.call_tool(offer["name"], arguments)

    return Tool.from_schema(run, offer["name"], offer["description"], offer["parameters"])


class PydanticAiRuntime:
    def __init__(self, config: str) -> None:
        self.config = config
        self.wires = wires_of(config)

    def capability(self, window: int) -> AbstractCapability[None]:
        if self.config in COMPACTIONS:
            return COMPACTIONS[self.config](window)
        return ProcessHistory(PROCESSORS[self.config])

    async def on_open(self, session: Session) -> None:
        opened = session.open
        provider = opened["provider"]
        if provider["wire"] not in self.wires:
            wires = " and ".join(self.wires)
            raise Unsupported(f"this configuration speaks {wires}, not {provider['wire']}")
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
            capabilities=[self.capability(opened["budget_tokens"] or opened["context_window"])],
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
    parser.add_argument("--config", choices=CONFIGS, default="keep-recent")
    args = parser.parse_args(argv)
    runtime = PydanticAiRuntime(args.config)
    means = "OpenAICompaction" if args.config in COMPACTIONS else "ProcessHistory"
    name = f"pydantic-ai {means} ({args.config})"
    own = f"pydantic-ai-slim {version('pydantic-ai-slim')}, openai {version('openai')}"
    callbacks = Callbacks(runtime.on_open, runtime.on_user)
    features = ["tools", "system", *(["budget"] if args.config in BUDGETED else [])]
    Adapter(name, own, runtime.wires, features, callbacks).main()


if __name__ == "__main__":
    main()
