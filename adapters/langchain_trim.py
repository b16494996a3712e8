"""LangChain as a protocol runtime: ``ChatOpenAI`` with ``trim_messages(strategy="last")``,
or a ``create_agent`` agent with ``SummarizationMiddleware``.

Run with the LangChain venv's python (``.tools/field-langchain``)::

    trimscope run --sut ".tools/field-langchain/bin/python adapters/langchain_trim.py \
        --config last"

Each session keeps its whole history and trims a copy before every request, as
LangChain's docs write the loop: ``trim_messages(history, strategy="last",
token_counter="approximate", max_tokens=budget, include_system=True, start_on=...)``.
The budget is the ``budget_tokens`` trimscope gives or, without one, the window times
``--budget-ratio``. Configurations (``--config``): ``last`` (no ``start_on``) and
``last-start-on-human`` (``start_on="human"``). Only the ``openai_chat`` wire.

``summarization`` is LangChain's own summarising agent (``langchain`` 1.5.2,
``langchain/agents/middleware/summarization.py``): ``create_agent(model, tools,
system_prompt=..., middleware=[SummarizationMiddleware(model, trigger=("tokens",
budget))])`` with the middleware's default ``keep=("messages", 20)`` and its default
approximate token counter, the shape of its docstring's examples. Before a model call over
``budget`` tokens it asks the same model for a summary of all but the newest 20 messages
(never splitting an AI message from its tool results) and replaces them with it, in the
agent's state, which the session passes back as the next turn's ``messages``; the
summary request is a request of the session like any other. It needs the ``langchain``
package (imported only for this configuration).

The protocol helper is ``harness/sut/adapter.py`` (stdlib only): the repository's root
is appended to ``sys.path`` so this venv imports it without the rest of trimscope.
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the venv's packages

import openai
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)
from langchain_openai import ChatOpenAI

from harness.sut.adapter import Adapter, Callbacks, Session, TurnFailed, Unsupported

START_ON: Final[dict[str, str | None]] = {"last": None, "last-start-on-human": "human"}
SUMMARIZATION: Final = "summarization"
CONFIGS: Final = sorted([*START_ON, SUMMARIZATION])
MAX_TOOL_ROUNDS: Final = 50
HTTP_TIMEOUT_S: Final = 60.0


class LangChainRuntime:
    def __init__(self, start_on: str | None, budget_ratio: float) -> None:
        self.start_on = start_on
        self.budget_ratio = budget_ratio

    async def on_open(self, session: Session) -> None:
        opened = session.open
        provider = opened["provider"]
        if provider["wire"] != "openai_chat":
            raise Unsupported(f"this adapter speaks openai_chat, not {provider['wire']}")
        model = ChatOpenAI(
            base_url=provider["base_url"],
            api_key=provider["api_key"],
            model=provider["model"],
            max_retries=0,
            timeout=HTTP_TIMEOUT_S,
        )
        tools = [
            {"type": "function", "function": {"name": t["name"], "description":
             t["description"], "parameters": t["parameters"]}}
            for t in opened["tools"]
        ]  # fmt: skip
        budget = opened["budget_tokens"]
        if budget is None:
            budget = int(opened["context_window"] * self.budget_ratio)
        history: list[BaseMessage] = []
        if opened["system"] is not None:
            history.append(SystemMessage(opened["system"]))
        session.state = (model.bind_tools(tools) if tools else model, history, budget)

    def trimmed(self, history: list[BaseMessage], budget: int) -> list[BaseMessage]:
        return list(
            trim_messages(
                history,
                strategy="last",
                token_counter="approximate",
                max_tokens=budget,
                include_system=True,
                start_on=self.start_on,
            )
        )

    async def on_user(self, session: Session, text: str) -> str:
        model, history, budget = session.state
        history.append(HumanMessage(text))
        try:
            for _ in range(MAX_TOOL_ROUNDS):
                reply = await model.ainvoke(self.trimmed(history, budget))
                assert isinstance(reply, AIMessage)
                history.append(reply)
                if not reply.tool_calls:
                    return str(reply.text)
                for call in reply.tool_calls:
                    output = await session.call_tool(call["name"], dict(call["args"]))
                    history.append(ToolMessage(content=output, tool_call_id=str(call["id"])))
        except ContextOverflowError as error:
            raise TurnFailed("overflow", str(error)) from error
        except openai.APIError as error:
            raise TurnFailed("provider", str(error)) from error
        raise TurnFailed("internal", f"no answer after {MAX_TOOL_ROUNDS} tool rounds")


class SummarizingRuntime:
    """``create_agent`` with ``SummarizationMiddleware`` (the module docstring)."""

    def __init__(self, budget_ratio: float) -> None:
        self.budget_ratio = budget_ratio

    async def on_open(self, session: Session) -> None:
        from langchain.agents import create_agent  # noqa: PLC0415
        from langchain.agents.middleware import SummarizationMiddleware  # noqa: PLC0415
        from langchain_core.tools import StructuredTool  # noqa: PLC0415

        opened = session.open
        provider = opened["provider"]
        if provider["wire"] != "openai_chat":
            raise Unsupported(f"this adapter speaks openai_chat, not {provider['wire']}")
        model = ChatOpenAI(
            base_url=provider["base_url"],
            api_key=provider["api_key"],
            model=provider["model"],
            max_retries=0,
            timeout=HTTP_TIMEOUT_S,
        )

        def tool(offer: dict[str, Any]) -> StructuredTool:
            async def run(**arguments: Any) -> str:
                return await session.call_tool(offer["name"], arguments)

            return StructuredTool.from_function(
                coroutine=run, name=offer["name"], description=offer["description"],
                args_schema=offer["parameters"],
            )  # fmt: skip

        budget = opened["budget_tokens"]
        if budget is None:
            budget = int(opened["context_window"] * self.budget_ratio)
        agent = create_agent(
            model,
            [tool(offer) for offer in opened["tools"]],
            system_prompt=opened["system"],
            middleware=[SummarizationMiddleware(model, trigger=("tokens", budget))],
        )
        session.state = (agent, [])

    async def on_user(self, session: Session, text: str) -> str:
        agent, history = session.state
        try:
            state = await agent.ainvoke({"messages": [*history, HumanMessage(text)]})
        except ContextOverflowError as error:
            raise TurnFailed("overflow", str(error)) from error
        except openai.APIError as error:
            raise TurnFailed("provider", str(error)) from error
        history[:] = state["messages"]
        reply = history[-1]
        if not isinstance(reply, AIMessage):
            raise TurnFailed("internal", f"the agent ended on a {type(reply).__name__}")
        return str(reply.text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--config", choices=CONFIGS, default="last")
    parser.add_argument("--budget-ratio", type=float, default=1.0)
    args = parser.parse_args(argv)
    own = f"langchain-core {version('langchain-core')}, langchain-openai " + version(
        "langchain-openai"
    )
    runtime: LangChainRuntime | SummarizingRuntime
    if args.config == SUMMARIZATION:
        runtime = SummarizingRuntime(args.budget_ratio)
        name = "langchain SummarizationMiddleware (summarization)"
        own = f"langchain {version('langchain')}, {own}"
    else:
        runtime = LangChainRuntime(START_ON[args.config], args.budget_ratio)
        name = f"langchain trim_messages ({args.config})"
    callbacks = Callbacks(runtime.on_open, runtime.on_user)
    Adapter(name, own, ["openai_chat"], ["tools", "system", "budget"], callbacks).main()


if __name__ == "__main__":
    main()
