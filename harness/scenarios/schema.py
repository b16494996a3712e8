"""The scenario file format (pydantic v2, strict). Unknown keys are errors everywhere.

A scenario says: this runtime profile, these provider routes and the fake behind each,
this conversation — and this must happen (events, requests, history, error, counts).
``scenarios/schema.json`` is exported from these models for editors.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.runtime.constants import DEFAULT_MAX_TOOL_ITERATIONS, DEFAULT_MAX_TOOL_RESULT_CHARS
from harness.scenarios.provider_side import ContextManagementSpec, ProviderSideSpec
from harness.scenarios.references import all_steps, driver_problems, named_routes
from harness.scenarios.vocabulary import (
    EVENT_FIELDS,
    RULE_IDS,
    TRIM_TRIGGERS,
    Loc,
    check_event_items,
    check_words,
    event_items_json_schema,
    fake_variants,
    look_alike_names,
    raise_if,
    unknown,
)

NonNegative = Annotated[int, Field(ge=0)]
CallNumber = Annotated[int, Field(ge=1)]
Role = Literal["system", "user", "assistant", "tool"]
# The client kinds of harness.providers.PROVIDER_KINDS (a test keeps the two equal).
ProviderKind = Literal[
    "openai",
    "openai-responses",
    "azure",
    "anthropic",
    "gemini",
    "mistral",
    "groq",
    "deepseek",
    "openrouter",
    "ollama",
    "ollama-openai",
    "vllm",
    "llamacpp",
    "lmstudio",
    "together",
    "cohere",
    "xai",
]


class _Strict(BaseModel):
    # strict: YAML's ``yes`` is not 1 and ``"8000"`` is not 8000 (numbers and booleans are
    # taken only as what they are; an int is still a valid float).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# --- runtime and routes -------------------------------------------------------------


class HistoryPruningSpec(_Strict):
    enabled: bool = False
    max_tokens: NonNegative = 0


class RuntimeSpec(_Strict):
    """Every field of ``RuntimeProfile``; absent means unset, as in the reference."""

    max_context_tokens: NonNegative | None = None
    context_compact_ratio: float | None = None
    history_pruning: HistoryPruningSpec = HistoryPruningSpec()
    max_history_messages: NonNegative | None = None
    max_tool_iterations: NonNegative = DEFAULT_MAX_TOOL_ITERATIONS
    max_tool_result_chars: NonNegative = DEFAULT_MAX_TOOL_RESULT_CHARS


class RouteSpec(_Strict):
    provider: str = Field(pattern=r"^[^.\s]+\.[^\s]+$", description="<type>.<alias>")
    model: str | None = None


class RoutesSpec(_Strict):
    default: RouteSpec
    model_routes: dict[str, RouteSpec] = {}
    vision: RouteSpec | None = None


# --- the fake behind a provider --------------------------------------------------------


class ToolCallSpec(_Strict):
    name: str
    arguments: dict[str, Any] = {}
    id: str | None = None


class UsageSpec(_Strict):
    input_factor: float = Field(default=1.0, ge=0, allow_inf_nan=False)
    input_tokens: NonNegative | None = None
    output_tokens: NonNegative | None = None
    cached_tokens: NonNegative = 0
    cache_creation_tokens: NonNegative = 0


FaultKind = Literal[
    "server_error",
    "rate_limit",
    "look_alike",
    "overflow",
    "hang",
    "malformed_json",
    "drop_mid_stream",
    "auth",
]


class FaultSpec(_Strict):
    kind: FaultKind
    status: int = 500
    retry_after: NonNegative = 1
    seconds: float = Field(default=30.0, ge=0, allow_inf_nan=False)
    name: str | None = Field(default=None, description="look_alike: the look-alike's name")
    after_events: NonNegative | None = None

    @model_validator(mode="after")
    def _complete(self) -> FaultSpec:
        if self.kind == "server_error" and not 500 <= self.status <= 599:
            raise_if(
                [(("status",), f"expected a 5xx status for server_error, found {self.status}")]
            )
        names = look_alike_names()
        if self.kind == "look_alike" and self.name not in names:
            what = "the name of a look-alike"
            raise_if([(("name",), unknown(self.name, names, what))])
        return self


class StepSpec(_Strict):
    """What the fake answers to one call: text and/or tool calls, usage, or a fault."""

    text: str | None = "This is a fake reply."
    tool_calls: list[ToolCallSpec] = []
    usage: UsageSpec = UsageSpec()
    fault: FaultSpec | None = None
    latency_ms: NonNegative = 0


class FakeSpec(_Strict):
    """The fake provider behind a route: its real window and how it counts."""

    model: str | None = None
    context_window: Annotated[int, Field(gt=0)] | None = None
    counter: Literal["heuristic", "provider"] = "heuristic"
    variant: str = "default"
    script: list[StepSpec] = []
    default: StepSpec = StepSpec()
    provider_side: ProviderSideSpec = ProviderSideSpec()


class ProviderSpec(_Strict):
    """``providers.models.<type>.<alias>`` as configured, and the fake that serves it."""

    kind: ProviderKind = Field(description="client kind: the wire format the provider speaks")
    model: str | None = None
    context_window: NonNegative | None = None
    fake: FakeSpec = FakeSpec()
    context_management: ContextManagementSpec | None = None

    @model_validator(mode="after")
    def _context_management_fits_the_kind(self) -> ProviderSpec:
        if self.context_management is not None:
            raise_if(self.context_management.problems(self.kind))
        return self

    @model_validator(mode="after")
    def _variant_exists(self) -> ProviderSpec:
        variants = fake_variants(self.kind)
        if self.fake.variant not in variants:
            what = f"an overflow variant of the {self.kind} fake"
            raise_if([(("fake", "variant"), unknown(self.fake.variant, variants, what))])
        return self


class ToolSpecModel(_Strict):
    name: str
    description: str = "A scenario tool."
    parameters: dict[str, Any] = {"type": "object"}
    output: str = Field(
        default="{text}", description="result text; {text} is the call's 'text' argument"
    )
    repeat: Annotated[int, Field(ge=1)] = 1
    images: list[str] = Field(default=[], description="declared image attachments")
    fails: bool = False


# --- the conversation -----------------------------------------------------------------


class UserTurn(_Strict):
    text: str
    images: list[str] = Field(default=[], description="refs appended as [IMAGE:ref] markers")
    model: str | None = Field(default=None, description="a model name, or hint:<name>")
    expect_error: str | None = Field(default=None, description="exception class name")


class ModelSwitch(_Strict):
    provider: str
    model: str | None = None


class RowSpec(_Strict):
    role: Role
    content: str


class ConversationStep(_Strict):
    """Exactly one of the keys."""

    user: str | UserTurn | None = None
    switch_model: ModelSwitch | None = None
    seed: list[RowSpec] | None = None
    clear_history: bool | None = None
    sender: str | None = Field(default=None, description="channel driver: who speaks")
    repeat: RepeatSpec | None = None

    @model_validator(mode="after")
    def _exactly_one_action(self) -> ConversationStep:
        actions = [
            k
            for k in ("user", "switch_model", "seed", "clear_history", "repeat")
            if getattr(self, k) is not None
        ]
        if len(actions) != 1:
            found = " and ".join(actions) if actions else "none of them"
            raise ValueError(
                "expected a step with exactly one of user, switch_model, seed, clear_history,"
                f" repeat, found {found}"
            )
        return self


class RepeatSpec(_Strict):
    """Repeat ``steps`` ``times`` times; ``{i}`` in user text is the repetition index."""

    times: Annotated[int, Field(ge=1, le=5000)]
    steps: list[ConversationStep]


ConversationStep.model_rebuild()


# --- expectations ---------------------------------------------------------------------


class EventExpectation(_Strict):
    """Events to find. ``ordered``: a subsequence in this order; ``exact``: the whole list
    of the kinds named (others ignored); ``set``: each present, any order."""

    mode: Literal["ordered", "exact", "set"] = "ordered"
    kinds: list[str] | None = Field(
        default=None, description="with exact: only these kinds are compared"
    )
    items: list[dict[str, Any]] = Field(json_schema_extra=event_items_json_schema())

    @field_validator("items")
    @classmethod
    def _known_fields(cls, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        check_event_items(items)
        return items

    @field_validator("kinds")
    @classmethod
    def _known_kinds(cls, kinds: list[str] | None) -> list[str] | None:
        check_words(kinds or (), EVENT_FIELDS, "an event kind")
        return kinds


class CountsSpec(_Strict):
    trims: dict[str, NonNegative] | None = Field(
        default=None, description="by trigger (proactive, reported_usage, reactive, turn_limit)"
    )
    trims_total: NonNegative | None = None
    provider_calls: NonNegative | None = None
    recoveries: NonNegative | None = None
    capacity_refusals: NonNegative | None = None
    budget_decisions: NonNegative | None = None
    overflows: NonNegative | None = None
    events: dict[str, NonNegative] | None = Field(default=None, description="by event kind")

    @field_validator("trims")
    @classmethod
    def _known_triggers(cls, trims: dict[str, int] | None) -> dict[str, int] | None:
        check_words(trims or {}, TRIM_TRIGGERS, "a trim trigger", keys=True)
        return trims

    @field_validator("events")
    @classmethod
    def _known_kinds(cls, events: dict[str, int] | None) -> dict[str, int] | None:
        check_words(events or {}, EVENT_FIELDS, "an event kind", keys=True)
        return events


class LogSpec(_Strict):
    """One log record of the legacy path: its message and (some of) its attributes."""

    message: str
    attributes: dict[str, Any] = {}


class ErrorSpec(_Strict):
    type: str
    turn: Annotated[int, Field(ge=1)] | None = None
    message_contains: str | None = None


_CALL_NUMBER_KEYS: dict[str, Any] = {"propertyNames": {"pattern": "^[1-9][0-9]*$"}}


class Expectations(_Strict):
    events: EventExpectation | None = None
    counts: CountsSpec | None = None
    requests: dict[CallNumber, list[RowSpec]] = Field(
        default={},
        description="the exact rows the provider received on call N (1-based)",
        json_schema_extra=_CALL_NUMBER_KEYS,
    )
    request_roles: dict[CallNumber, list[Role]] = Field(
        default={},
        description="the roles of the rows the provider received on call N (1-based)",
        json_schema_extra=_CALL_NUMBER_KEYS,
    )
    final_history: list[RowSpec] | None = None
    final_history_length: NonNegative | None = None
    breadcrumb_flag: bool | None = None
    answers: list[str | None] | None = None
    error: ErrorSpec | None = None
    logs: list[str | LogSpec] | None = Field(
        default=None,
        description="legacy driver: the WARN records in order; a string names the message"
        " only, {message, attributes} also checks the listed attributes",
    )


# --- the scenario ---------------------------------------------------------------------


class AgentSpec(_Strict):
    """Who the structured Agent is: it fills ``agent_alias`` and ``channel`` into its
    turn-limit ``HistoryTrimmed`` (the tool-loop trims leave them empty, spec 13)."""

    name: str = "trimscope"
    alias: str | None = None
    channel: str | None = None


class HookSpec(_Strict):
    """A ``before_llm_call`` hook: it rewrites the prepared rows of every call (the
    capacity check runs after it, spec 8); the working history is not changed."""

    prepend_system: str = Field(description="a system row put first in every request")


class RequestSpec(_Strict):
    """How the runtime asks: streamed answers, and the output budget it requests."""

    stream: bool = Field(
        default=False, description="stream answers (OpenAI Responses and Anthropic clients)"
    )
    max_output_tokens: Annotated[int, Field(gt=0)] | None = Field(
        default=None, description="max_tokens and equivalents (Anthropic defaults to 4096)"
    )


class Scenario(_Strict):
    id: str = Field(
        pattern=r"^[a-z0-9][a-z0-9_.-]*$",
        description="an id of lowercase letters, digits, '_', '.' and '-'",
    )
    title: str
    description: str = ""
    rules: list[str] = Field(
        min_length=1,
        description="ids of harness/scenarios/rules.py this scenario covers",
        json_schema_extra={"items": {"type": "string", "enum": list(RULE_IDS)}},
    )
    tags: list[str] = []
    driver: Literal["agent", "legacy", "channel"] = "agent"
    tool_mode: Literal["native", "prompt"] = "native"
    classifier: Literal["reference", "extended"] = "extended"
    system_prompt: str | None = "You are a careful agent."
    runtime: RuntimeSpec = RuntimeSpec()
    request: RequestSpec = RequestSpec()
    agent: AgentSpec = AgentSpec()
    hooks: list[HookSpec] = []
    providers: dict[str, ProviderSpec] = Field(min_length=1)
    routes: RoutesSpec | None = None
    tools: list[ToolSpecModel] = []
    conversation: list[ConversationStep] = Field(min_length=1)
    expect: Expectations

    @field_validator("rules")
    @classmethod
    def _known_rules(cls, rules: list[str]) -> list[str]:
        check_words(rules, RULE_IDS, "a rule id of harness/scenarios/rules.py")
        return rules

    @model_validator(mode="after")
    def _references_resolve(self) -> Scenario:
        """Provider references are ``<type>.<alias>``; routes and switches name them."""
        problems: list[tuple[Loc, str]] = [
            (("providers", ref), f"expected a provider reference <type>.<alias>, found {ref!r}")
            for ref in self.providers
            if "." not in ref
        ]
        known = list(self.providers)
        what = "a provider defined under providers"
        for loc, route in named_routes(self.routes):
            if route.provider not in self.providers:
                problems.append(((*loc, "provider"), unknown(route.provider, known, what)))
        for loc, step in all_steps(self.conversation, ("conversation",)):
            switch = step.switch_model
            if switch is not None and switch.provider not in self.providers:
                loc_ = (*loc, "switch_model", "provider")
                problems.append((loc_, unknown(switch.provider, known, what)))
            problems += driver_problems(self.driver, step, loc)
        raise_if(problems)
        return self
