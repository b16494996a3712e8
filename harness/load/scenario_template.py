"""``trimscope load --scenario FILE``: a scenario file as the session template.

Taken from the scenario: the runtime profile, the provider routes and the fake behind each
(model, window, counter, overflow variant, caching rules, and its script, which now runs
per session: call ``n`` of every session gets step ``n``, with the step's ``latency_ms``),
the tools, the system prompt, the tool mode, the classifier, the ``request`` block
(``stream``, ``max_output_tokens``) and the conversation's user turns (``repeat``
expanded). Left out, and said so in the summary's notes: expectations (a load run checks
nothing), control steps (``switch_model``, ``seed``, ``clear_history``), per-turn model
choices, tool attachments and failing tools. Refused before anything runs (exit 2, each
named ``file:line: key.path``, ``refusals``), because a load run would change what they
mean: hooks, the provider wrapper's truncation, provider-side context management, Anthropic
cache breakpoints, ``when`` steps (a load fake answers each session's calls by count) and
a fake clock (``seconds_per_call``). Only the ``agent`` driver runs under load.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.load.template import (
    DEFAULT_KIND,
    DEFAULT_WINDOW,
    ProviderTemplate,
    RouteTemplate,
    SessionTemplate,
    ToolTemplate,
    default_template,
)
from harness.scenarios.environment import FAKE_FOR_KIND, build_fake, route_table, runtime_profile
from harness.scenarios.limits import DEFAULT_LIMITS, Limits
from harness.scenarios.loader import ScenarioError, load_scenario, locate, parse, read_text
from harness.scenarios.problems import dotted
from harness.scenarios.schema import ConversationStep, Scenario, UserTurn
from harness.scenarios.vocabulary import Loc


@dataclass(slots=True)
class _Texts:
    texts: list[str] = field(default_factory=list)
    skipped: set[str] = field(default_factory=set)


def _expand(
    steps: Sequence[ConversationStep], found: _Texts, cap: int, index: int | None = None
) -> None:
    """The user turns of ``steps`` into ``found``, at most ``cap`` of them."""
    for step in steps:
        if len(found.texts) >= cap:
            return
        if step.repeat is not None:
            for i in range(step.repeat.times):
                if len(found.texts) >= cap:
                    return
                _expand(step.repeat.steps, found, cap, i)
        elif step.user is not None:
            turn = step.user if isinstance(step.user, UserTurn) else UserTurn(text=step.user)
            text = turn.text if index is None else turn.text.replace("{i}", str(index))
            # Images travel as markers in the text, as the scenario runner sends them.
            found.texts.append(text + "".join(f"\n[IMAGE:{ref}]" for ref in turn.images))
            if turn.model:
                found.skipped.add("per-turn model choices")
        else:
            found.skipped.update(
                key for key in ("switch_model", "seed", "clear_history") if getattr(step, key)
            )


def _providers(
    scenario: Scenario, context_window: int | None, latency_ms: int
) -> Iterator[ProviderTemplate]:
    for ref, spec in scenario.providers.items():
        fake = build_fake(spec)
        profile_name, base_path = FAKE_FOR_KIND[spec.kind]
        configured = spec.context_window or None
        fake_window = fake.model.context_window
        if context_window is not None:
            configured = fake_window = context_window
        yield ProviderTemplate(
            ref=ref,
            kind=spec.kind,
            model=spec.model,
            configured_window=configured,
            fake_window=fake_window,
            fake_profile=profile_name,
            base_path=base_path,
            counter=fake.counter.name,
            variant=fake.variant,
            script=fake.script,
            cycle=False,
            latency_ms=latency_ms,  # on top of each step's own (the default step's included)
            fake_model=fake.model.name,
            caching=spec.fake.caching,
        )


def template_from_scenario(
    scenario: Scenario, *, context_window: int | None = None, max_texts: int, latency_ms: int = 0
) -> tuple[SessionTemplate, list[str]]:
    """The template and the notes on what was left out. Raises ``ValueError`` for a
    scenario that cannot run under load. At most ``max_texts`` user turns are expanded:
    a load session runs no more turns than that, and a ``repeat`` the loader's limits
    allow (``--limit turns=N``) could otherwise expand to any number of texts."""
    if scenario.driver != "agent":
        raise ValueError(
            f"load runs agent sessions; scenario {scenario.id!r} uses {scenario.driver!r}"
        )
    found = _Texts()
    _expand(scenario.conversation, found, max_texts)
    if not found.texts:
        raise ValueError(f"scenario {scenario.id!r} has no user turn")
    routes = route_table(scenario)
    vision = routes.vision
    template = SessionTemplate(
        name=f"scenario:{scenario.id}",
        profile=runtime_profile(scenario),
        providers=tuple(_providers(scenario, context_window, latency_ms)),
        default_route=RouteTemplate(routes.default.provider, routes.default.model),
        user_texts=tuple(found.texts),
        model_routes={
            name: RouteTemplate(r.provider, r.model) for name, r in routes.model_routes.items()
        },
        vision_route=RouteTemplate(vision.provider, vision.model) if vision else None,
        tools=tuple(
            ToolTemplate(t.name, t.description, dict(t.parameters), t.output, t.repeat)
            for t in scenario.tools
        ),
        tool_mode=scenario.tool_mode,
        classifier=scenario.classifier,
        system_prompt=scenario.system_prompt,
        stream=scenario.request.stream,
        max_output_tokens=scenario.request.max_output_tokens,
    )
    notes = [f"scenario {scenario.id}: expectations are not checked under load"]
    if found.skipped:
        notes.append(f"scenario steps not run under load: {', '.join(sorted(found.skipped))}")
    if any(t.images or t.fails for t in scenario.tools):
        notes.append("tool attachments and scripted tool failures are not run under load")
    return template, notes


def session_template(
    scenario: Path | None,
    provider: str | None,
    context_window: int | None,
    latency_ms: int,
    limits: Limits,
    *,
    max_texts: int,
) -> tuple[SessionTemplate, list[str]]:
    """``load``'s session template and notes: the built-in workload, or ``scenario`` read
    within ``limits`` (``--limit NAME=N``, as for ``run``) with at most ``max_texts`` user
    turns expanded (enough to tell that it has too many); ``ValueError`` says what is
    wrong, a scenario's problems as ``file:line: key.path`` lines."""
    if scenario is None:
        kind = provider or DEFAULT_KIND
        window = context_window or DEFAULT_WINDOW
        return default_template(kind, context_window=window, latency_ms=latency_ms), []
    if provider is not None:
        raise ValueError("--provider chooses the built-in workload; a scenario names its own")
    try:
        loaded = load_scenario(scenario, limits=limits)
    except ScenarioError as error:
        raise ValueError("\n".join(error.problems)) from error
    refused = refusal_lines(scenario, loaded.scenario, limits)
    if refused:
        raise ValueError("\n".join(refused))
    return template_from_scenario(
        loaded.scenario, context_window=context_window, max_texts=max_texts, latency_ms=latency_ms
    )


def refusals(scenario: Scenario) -> list[tuple[Loc, str]]:
    """What a load run cannot apply as ``run`` does (see the module docstring): each as
    ``(location, "expected ..., found ...")``."""
    found: list[tuple[Loc, str]] = []
    under_load = "under load"
    if scenario.hooks:
        found.append((("hooks",), f"expected no hooks {under_load}, found {len(scenario.hooks)}"))
    if scenario.provider_truncation:
        found.append((("provider_truncation",), f"expected false {under_load}, found true"))
    for ref, spec in scenario.providers.items():
        base: Loc = ("providers", ref)
        if spec.context_management is not None:
            what = f"expected no provider-side context management {under_load}, found a block"
            found.append(((*base, "context_management"), what))
        if spec.cache_breakpoints != "none":
            what = f"expected none {under_load}, found {spec.cache_breakpoints!r}"
            found.append(((*base, "cache_breakpoints"), what))
        for index, step in enumerate(spec.fake.script):
            if step.when is not None:
                what = (
                    f"expected no condition {under_load} (each session's calls are answered"
                    " by count), found one"
                )
                found.append(((*base, "fake", "script", index, "when"), what))
        if spec.fake.seconds_per_call:
            what = f"expected 0 {under_load} (the wall clock), found {spec.fake.seconds_per_call:g}"
            found.append(((*base, "fake", "seconds_per_call"), what))
    return found


def refusal_lines(path: Path, scenario: Scenario, limits: Limits = DEFAULT_LIMITS) -> list[str]:
    """``file:line: key.path: expected ..., found ...`` for each of ``refusals``."""
    problems = refusals(scenario)
    if not problems:
        return []
    root, _ = parse(path, read_text(path, path, limits), limits)  # read already: it parses
    return sorted(
        (f"{path}:{locate(root, loc)}: {dotted(loc)}: {what}" for loc, what in problems),
        key=lambda line: int(line.removeprefix(f"{path}:").split(":", 1)[0]),
    )
