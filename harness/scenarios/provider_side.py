"""Scenario keys for context management on the provider's side (issue 17).

``providers.<ref>.context_management`` is what the route asks the provider to do (the
client sends it: ``harness.providers.clients.context_management``); ``providers.<ref>.fake.
provider_side`` is how the fake behind it treats the fields (``fakes.simulations.provider_side``):
``honour`` them, ``ignore`` them (a gateway that drops them silently) or ``reject`` them,
whether its compactions fail, and whether history signed by the real provider is taken as
opaque (``foreign_history``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from fakes.simulations.provider_side import DEFAULT_FOREIGN_HISTORY, ForeignHistory
from harness.scenarios.vocabulary import Loc

if TYPE_CHECKING:  # imported when resolved: validating a scenario loads no provider client
    from harness.providers.clients.context_management import ProviderContext

NonNegative = Annotated[int, Field(ge=0)]
Positive = Annotated[int, Field(gt=0)]
ANTHROPIC_KINDS = frozenset({"anthropic"})
RESPONSES_KINDS = frozenset({"openai-responses"})
DEFAULT_COMPACT_ON_BUDGET = False
"""Whether an OpenAI Responses route compacts through ``/responses/compact`` where the
agent's proactive budget check would trim (outside the reference: docs/decisions.md,
"Endpoint compaction (`/responses/compact`)"); the agent's
side is ``LoopConfig.compacting_routes``."""


class _Strict(BaseModel):
    # strict, as every scenario model: YAML's ``yes`` is not true, ``"5"`` is not 5
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ClearToolUsesSpec(_Strict):
    """Anthropic ``clear_tool_uses_20250919``; unset fields keep the provider's defaults."""

    trigger_input_tokens: Positive | None = None
    trigger_tool_uses: NonNegative | None = None
    keep_tool_uses: NonNegative | None = None
    clear_at_least_tokens: NonNegative | None = None
    exclude_tools: list[str] = []
    clear_tool_inputs: bool = False


class ClearThinkingSpec(_Strict):
    """Anthropic ``clear_thinking_20251015``: ``keep_turns`` null keeps every turn's."""

    keep_turns: NonNegative | None = None


class CompactSpec(_Strict):
    """Anthropic ``compact_20260112``."""

    trigger_input_tokens: Positive | None = None
    instructions: str | None = None
    pause_after_compaction: bool = False


class ContextManagementSpec(_Strict):
    """A route's provider-side context management: the Anthropic edits, or the OpenAI
    Responses ``truncation`` and compaction threshold."""

    clear_tool_uses: ClearToolUsesSpec | None = None
    clear_thinking: ClearThinkingSpec | None = None
    compact: CompactSpec | None = None
    truncation: Literal["auto", "disabled"] | None = None
    compact_threshold: Positive | None = None
    compact_on_budget: bool = Field(
        default=DEFAULT_COMPACT_ON_BUDGET,
        description=(
            "openai-responses only: where the agent's proactive budget trim would run and "
            "what the route sends (its kept compacted window and the rows after it) is over "
            "the budget, compact every row before the newest user message through "
            "/responses/compact instead (the client trim runs if that fails); not sent as a "
            "field"
        ),
    )

    def resolved(self) -> ProviderContext:
        from harness.providers.clients.context_management import (  # noqa: PLC0415  (see the import)
            ClearThinking,
            ClearToolUses,
            Compact,
            ProviderContext,
        )

        tools, thinking, compact = self.clear_tool_uses, self.clear_thinking, self.compact
        return ProviderContext(
            clear_tool_uses=ClearToolUses(
                tools.trigger_input_tokens,
                tools.trigger_tool_uses,
                tools.keep_tool_uses,
                tools.clear_at_least_tokens,
                tuple(tools.exclude_tools),
                tools.clear_tool_inputs,
            )
            if tools
            else None,
            clear_thinking=ClearThinking(thinking.keep_turns) if thinking else None,
            compact=Compact(
                compact.trigger_input_tokens, compact.instructions, compact.pause_after_compaction
            )
            if compact
            else None,
            truncation=self.truncation,
            compact_threshold=self.compact_threshold,
        )

    def problems(self, kind: str) -> list[tuple[Loc, str]]:
        """Options the route's wire format does not have, each named."""
        anthropic = ("clear_tool_uses", "clear_thinking", "compact")
        responses = ("truncation", "compact_threshold")
        found: list[tuple[Loc, str]] = []
        for names, kinds in ((anthropic, ANTHROPIC_KINDS), (responses, RESPONSES_KINDS)):
            for name in names:
                if getattr(self, name) is not None and kind not in kinds:
                    wanted = " or ".join(sorted(kinds))
                    found.append(
                        (
                            ("context_management", name),
                            f"expected a provider of kind {wanted}, found kind {kind!r}",
                        )
                    )
        if self.compact_on_budget and kind not in RESPONSES_KINDS:
            found.append(
                (
                    ("context_management", "compact_on_budget"),
                    f"expected a provider of kind openai-responses, found kind {kind!r}",
                )
            )
        tools = self.clear_tool_uses
        if tools and tools.trigger_input_tokens is not None and tools.trigger_tool_uses is not None:
            found.append(
                (
                    ("context_management", "clear_tool_uses"),
                    "expected one trigger, found both trigger_input_tokens and trigger_tool_uses",
                )
            )
        return found


class ProviderSideSpec(_Strict):
    """How the fake treats provider-side context management."""

    handling: Literal["honour", "ignore", "reject"] = "honour"
    compaction_fails: bool = False
    foreign_history: ForeignHistory = DEFAULT_FOREIGN_HISTORY
