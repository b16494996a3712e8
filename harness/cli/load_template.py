"""``trimscope load --scenario FILE``: a scenario file as the session template.

Taken from the scenario: the runtime profile, the provider routes and the fake behind each
(model, window, counter, overflow variant, and its script, which now runs per session:
call ``n`` of every session gets step ``n``), the tools, the system prompt, the tool mode,
the classifier, and the conversation's user turns (``repeat`` expanded). Left out, and
said so in the summary's notes: expectations (a load run checks nothing), control steps
(``switch_model``, ``seed``, ``clear_history``), per-turn model choices, tool attachments
and failing tools. Only the
``agent`` driver runs under load.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from harness.load.template import (
    ProviderTemplate,
    RouteTemplate,
    SessionTemplate,
    ToolTemplate,
)
from harness.scenarios.environment import FAKE_FOR_KIND, build_fake, route_table, runtime_profile
from harness.scenarios.schema import ConversationStep, Scenario, UserTurn


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


def _providers(scenario: Scenario, context_window: int | None) -> Iterator[ProviderTemplate]:
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
            latency_ms=fake.script.default.latency_ms,
            fake_model=fake.model.name,
        )


def template_from_scenario(
    scenario: Scenario, *, context_window: int | None = None, max_texts: int
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
        providers=tuple(_providers(scenario, context_window)),
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
    )
    notes = [f"scenario {scenario.id}: expectations are not checked under load"]
    if found.skipped:
        notes.append(f"scenario steps not run under load: {', '.join(sorted(found.skipped))}")
    if any(t.images or t.fails for t in scenario.tools):
        notes.append("tool attachments and scripted tool failures are not run under load")
    return template, notes
