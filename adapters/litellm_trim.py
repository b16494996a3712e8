"""LiteLLM as a protocol runtime: ``litellm.acompletion`` with ``litellm.utils.trim_messages``.

Run with the LiteLLM venv's python (``.tools/field-litellm``)::

    trimscope run --sut ".tools/field-litellm/bin/python adapters/litellm_trim.py"

Each session keeps its whole history and trims a copy before every request, as LiteLLM's
docs write it: ``trim_messages(history, model="gpt-4o", max_tokens=budget)``. The budget
is the ``budget_tokens`` trimscope gives or, without one, the window times
``--budget-ratio``. One configuration (``--config default``). Only the ``openai_chat``
wire, as an OpenAI-compatible endpoint (``model="openai/<model>"``, ``api_base``).

The protocol helper is ``harness/sut/adapter.py`` (stdlib only): the repository's root
is appended to ``sys.path`` so this venv imports it without the rest of trimscope.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

# LiteLLM fetches its model price map from the internet at import unless told not to: a
# runtime under test must not reach beyond 127.0.0.1.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the venv's packages

import litellm  # after the variable above: it is read at import
import openai
from litellm.utils import trim_messages

from harness.sut.adapter import Adapter, Callbacks, Session, TurnFailed, Unsupported

CONFIGS: Final = ("default",)
TRIM_MODEL: Final = "gpt-4o"
"""The model whose tokenizer ``trim_messages`` counts with (LiteLLM's documented call)."""
MAX_TOOL_ROUNDS: Final = 50
HTTP_TIMEOUT_S: Final = 60.0


class LiteLLMRuntime:
    def __init__(self, budget_ratio: float) -> None:
        self.budget_ratio = budget_ratio

    async def on_open(self, session: Session) -> None:
        opened = session.open
        if opened["provider"]["wire"] != "openai_chat":
            raise Unsupported(f"this adapter speaks openai_chat, not {opened['provider']['wire']}")
        budget = opened["budget_tokens"]
        if budget is None:
            budget = int(opened["context_window"] * self.budget_ratio)
        history: list[dict[str, Any]] = []
        if opened["system"] is not None:
            history.append({"role": "system", "content": opened["system"]})
        session.state = (history, budget)

    async def request(self, session: Session, messages: list[dict[str, Any]]) -> Any:
        provider = session.open["provider"]
        tools = [
            {"type": "function", "function": {"name": t["name"], "description":
             t["description"], "parameters": t["parameters"]}}
            for t in session.open["tools"]
        ]  # fmt: skip
        return await litellm.acompletion(
            model=f"openai/{provider['model']}",
            api_base=provider["base_url"],
            api_key=provider["api_key"],
            messages=messages,
            tools=tools or None,
            num_retries=0,
            timeout=HTTP_TIMEOUT_S,
        )

    async def on_user(self, session: Session, text: str) -> str:
        history, budget = session.state
        history.append({"role": "user", "content": text})
        try:
            for _ in range(MAX_TOOL_ROUNDS):
                trimmed = trim_messages(history, model=TRIM_MODEL, max_tokens=budget)
                response = await self.request(session, trimmed)
                message = response.choices[0].message
                history.append(message.model_dump(exclude_none=True))
                if not message.tool_calls:
                    return str(message.content or "")
                for call in message.tool_calls:
                    arguments = json.loads(call.function.arguments or "{}")
                    output = await session.call_tool(call.function.name, arguments)
                    history.append({"role": "tool", "tool_call_id": call.id, "content": output})
        except litellm.ContextWindowExceededError as error:
            raise TurnFailed("overflow", str(error)) from error
        except openai.APIError as error:  # LiteLLM's exceptions subclass the SDK's
            raise TurnFailed("provider", str(error)) from error
        raise TurnFailed("internal", f"no answer after {MAX_TOOL_ROUNDS} tool rounds")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--config", choices=CONFIGS, default="default")
    parser.add_argument("--budget-ratio", type=float, default=1.0)
    args = parser.parse_args(argv)
    runtime = LiteLLMRuntime(args.budget_ratio)
    name = f"litellm trim_messages ({args.config})"
    callbacks = Callbacks(runtime.on_open, runtime.on_user)
    features = ["tools", "system", "budget"]
    Adapter(name, f"litellm {version('litellm')}", ["openai_chat"], features, callbacks).main()


if __name__ == "__main__":
    main()
