"""Google ADK as a protocol runtime: an ``LlmAgent`` on ``Gemini`` in an ``App`` with
``EventsCompactionConfig``, run by a ``Runner`` over an ``InMemorySessionService``.

Run with the ADK venv's python (``.tools/field-google-adk``)::

    trimscope run --sut ".tools/field-google-adk/bin/python adapters/adk_compaction.py \
        --config sliding-window"

ADK keeps the session's events itself; its context compaction summarizes older events
with the agent's own model (``LlmEventSummarizer``, the default when no summarizer is
given: ``google/adk/apps/compaction.py`` ``_ensure_compaction_summarizer``), so the
summary requests go to the same provider and are on the wire like the agent's own.
Configured as ADK's docs write it ("Compress agent context for performance",
adk-docs ``docs/context/compaction.md``: ``App(..., events_compaction_config=
EventsCompactionConfig(compaction_interval=3, overlap_size=1))`` for the sliding window;
``token_threshold`` with ``event_retention_size`` for the token-based mode, both set
together as ``google/adk/apps/_configs.py`` requires). Configurations (``--config``):

- ``sliding-window``: ``compaction_interval=3, overlap_size=1`` (the docs' sample);
- ``token-threshold``: ``token_threshold`` = ``budget_tokens`` (without one, the window
  times ``--budget-ratio``), ``event_retention_size=2`` (this adapter's choice); only this
  configuration declares the ``budget`` feature.

Only the ``gemini`` wire: ``Gemini(model=M, base_url=U)`` with the key in
``client_kwargs`` (``google/adk/models/google_llm.py``: ``base_url`` and
``client_kwargs`` are passed to ``google.genai.Client``). ADK has no recovery of its own
and the adapter adds none: a 400 whose message says the input token count exceeds the
maximum ends the turn with ``error`` kind ``overflow``.

The protocol helper is ``harness/sut/adapter.py`` (stdlib only): the repository's root
is appended to ``sys.path`` so this venv imports it without the rest of trimscope.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the venv's packages

from google.adk.agents import LlmAgent
from google.adk.apps.app import App, EventsCompactionConfig
from google.adk.models import Gemini
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import errors, types

from harness.sut.adapter import Adapter, Callbacks, Session, TurnFailed, Unsupported

CONFIGS: Final = ("sliding-window", "token-threshold")
COMPACTION_INTERVAL: Final = 3
OVERLAP_SIZE: Final = 1
EVENT_RETENTION_SIZE: Final = 2
APP_NAME: Final = "trimscope_sut"
USER_ID: Final = "trimscope"
OVERFLOW_HINT: Final = "exceeds the maximum number of tokens"
"""Gemini's over-window answer: 'The input token count (N) exceeds the maximum number of
tokens allowed (W).' (the fake's, ``fakes/wire/gemini.py``)."""


class ScenarioTool(BaseTool):  # type: ignore[misc]  # google-adk is not in the checking venv
    """A tool trimscope offers: its JSON schema as given, run by asking trimscope."""

    def __init__(self, offer: dict[str, Any], session: Session) -> None:
        super().__init__(name=offer["name"], description=offer["description"])
        self.parameters = offer["parameters"]
        self.session = session

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters_json_schema=self.parameters,
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {"result": await self.session.call_tool(self.name, dict(args))}


def compaction_config(config: str, budget: int) -> EventsCompactionConfig:
    if config == "sliding-window":
        return EventsCompactionConfig(
            compaction_interval=COMPACTION_INTERVAL, overlap_size=OVERLAP_SIZE
        )
    return EventsCompactionConfig(token_threshold=budget, event_retention_size=EVENT_RETENTION_SIZE)


class AdkRuntime:
    def __init__(self, config: str, budget_ratio: float) -> None:
        self.config = config
        self.budget_ratio = budget_ratio

    async def on_open(self, session: Session) -> None:
        opened = session.open
        provider = opened["provider"]
        if provider["wire"] != "gemini":
            raise Unsupported(f"this adapter speaks gemini, not {provider['wire']}")
        budget = opened["budget_tokens"]
        if budget is None:
            budget = int(opened["context_window"] * self.budget_ratio)
        model = Gemini(
            model=provider["model"],
            base_url=provider["base_url"],
            client_kwargs={"api_key": provider["api_key"]},
        )
        agent = LlmAgent(
            name="agent",
            model=model,
            instruction=opened["system"] or "",
            tools=[ScenarioTool(offer, session) for offer in opened["tools"]],
        )
        app = App(
            name=APP_NAME,
            root_agent=agent,
            events_compaction_config=compaction_config(self.config, budget),
        )
        sessions = InMemorySessionService()
        runner = Runner(app=app, session_service=sessions)
        await sessions.create_session(app_name=APP_NAME, user_id=USER_ID, session_id=session.id)
        session.state = runner

    async def on_user(self, session: Session, text: str) -> str:
        runner: Runner = session.state
        message = types.Content(role="user", parts=[types.Part(text=text)])
        answer, failure = "", None
        # Every event is read and the generator closed here, never left to the garbage
        # collector: ADK's own end of the invocation (its compaction) then runs inside
        # the turn, not concurrently with the next one.
        events = runner.run_async(user_id=USER_ID, session_id=session.id, new_message=message)
        try:
            async with contextlib.aclosing(events):
                async for event in events:
                    if event.error_message and failure is None:
                        failure = TurnFailed("provider", event.error_message)
                    if event.is_final_response() and event.content and event.content.parts:
                        parts = event.content.parts
                        answer = "".join(p.text or "" for p in parts if not p.thought)
        except errors.APIError as error:
            kind = "overflow" if OVERFLOW_HINT in str(error) else "provider"
            raise TurnFailed(kind, str(error)) from error
        if failure is not None:
            raise failure
        return answer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--config", choices=CONFIGS, default="sliding-window")
    parser.add_argument("--budget-ratio", type=float, default=1.0)
    args = parser.parse_args(argv)
    runtime = AdkRuntime(args.config, args.budget_ratio)
    name = f"google-adk EventsCompactionConfig ({args.config})"
    own = f"google-adk {version('google-adk')}, google-genai {version('google-genai')}"
    callbacks = Callbacks(runtime.on_open, runtime.on_user)
    features = ["tools", "system"] + (["budget"] if args.config == "token-threshold" else [])
    Adapter(name, own, ["gemini"], features, callbacks).main()


if __name__ == "__main__":
    main()
