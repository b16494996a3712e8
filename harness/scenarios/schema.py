"""The scenario file format (pydantic v2, strict). Unknown keys are errors everywhere.

A scenario says: this runtime profile, these provider routes and the fake behind each,
this conversation — and this must happen (events, requests, history, error, counts).
``scenarios/schema.json`` is exported from these models for editors.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.runtime.constants import DEFAULT_MAX_TOOL_ITERATIONS, DEFAULT_MAX_TOOL_RESULT_CHARS
from harness.scenarios.expect_spec import Expectations, RowSpec
from harness.scenarios.fake_spec import (
    FakeSpec,
    NonNegative,
)
from harness.scenarios.provider_side import ContextManagementSpec
from harness.scenarios.vocabulary import (
    RULE_IDS,
    Loc,
    check_words,
    fake_variants,
    raise_if,
    unknown,
)

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


class ProviderSpec(_Strict):
    """``providers.models.<type>.<alias>`` as configured, and the fake that serves it."""

    kind: ProviderKind = Field(description="client kind: the wire format the provider speaks")
    model: str | None = None
    context_window: NonNegative | None = None
    cache_breakpoints: Literal["none", "system", "system_and_last"] = Field(
        default="none", description="anthropic client: where it places cache_control"
    )
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

    @model_validator(mode="after")
    def _counter_has_its_tokenizer(self) -> ProviderSpec:
        # ``exact`` needs a model with a public tokenizer, and any real tokenizer its package
        from fakes.counting.counters import get_counter  # noqa: PLC0415  (loads no tokenizer until asked)

        if self.fake.counter not in ("heuristic", "provider"):
            try:
                get_counter(self.fake.counter, self.fake.model or self.model)
            except ValueError as error:
                raise_if([(("fake", "counter"), f"expected a counter that can count: {error}")])
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
    provider_truncation: bool = Field(
        default=False,
        description="model the reference's provider wrapper: on an overflow, retry the call"
        " once on its own turn-safe halving of the request, before the loop's recovery",
    )
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


# Cross-references inside a scenario, checked after its parts validated: routes and model
# switches name defined providers; each step suits the driver. Every problem keeps its own
# location, so the loader can report it at its line.


def driver_problems(driver: str, step: ConversationStep, loc: Loc) -> list[tuple[Loc, str]]:
    """Only the structured Agent can switch, seed or clear; only a channel has senders."""
    problems: list[tuple[Loc, str]] = []
    if driver != "agent":
        for key in ("switch_model", "seed", "clear_history"):
            if getattr(step, key) is not None:
                problems.append(
                    ((*loc, key), f"expected a user step (driver {driver}), found {key}")
                )
    if step.sender is not None and driver != "channel":
        problems.append(
            ((*loc, "sender"), f"expected no sender with driver {driver}, found {step.sender!r}")
        )
    return problems


def named_routes(routes: RoutesSpec | None) -> list[tuple[Loc, RouteSpec]]:
    if routes is None:
        return []
    named: list[tuple[Loc, RouteSpec]] = [(("routes", "default"), routes.default)]
    named += [(("routes", "model_routes", n), r) for n, r in routes.model_routes.items()]
    if routes.vision is not None:
        named.append((("routes", "vision"), routes.vision))
    return named


def all_steps(steps: list[ConversationStep], loc: Loc) -> list[tuple[Loc, ConversationStep]]:
    """Every step with its location, those inside ``repeat`` included."""
    found: list[tuple[Loc, ConversationStep]] = []
    for index, step in enumerate(steps):
        found.append(((*loc, index), step))
        if step.repeat is not None:
            found += all_steps(step.repeat.steps, (*loc, index, "repeat", "steps"))
    return found
