"""Hypothesis strategies: YAML-ish text, and valid scenario dicts with the paths of the
keys that belong to the format (so a test can rename one and expect an error there)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from harness.scenarios.rules import RULES
from harness.scenarios.schema import ProviderKind
from tests.scenarios.support import TINY

Path = tuple[int | str, ...]

_YAMLISH = ":-[]{}#&*!|>'\"%@,?\t\n ~.0123456789abcdeiklnrstuy"

words = st.text("abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=12)
plain = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=20)


def _mutate(text: str, data: st.DataObject) -> str:
    for _ in range(data.draw(st.integers(0, 4))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 3))
        insert = data.draw(st.text(_YAMLISH, max_size=3))
        text = text[:at] + insert + text[at + cut :]
    return text


@st.composite
def yamlish_text(draw: st.DrawFn) -> str:
    """Random characters YAML cares about, mutated scenarios, odd documents."""
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return draw(st.text(_YAMLISH, max_size=80))
    if choice == 1:
        return _mutate(TINY, draw(st.data()))
    if choice == 2:
        lines = TINY.splitlines()
        picked = draw(st.lists(st.sampled_from(lines), max_size=len(lines)))
        return "\n".join(picked) + "\n"
    return draw(
        st.sampled_from(
            [
                "a: &x [*x]\n",
                "--- 1\n--- 2\n",
                "!!python/object:os.system {}\n",
                "? [a]\n: b\n",
                "id: !foo 1\n",
                "{[1]: 2}\n",
                "1: 2\n",
                "~: x\n",
                "<<: {id: a}\n",
                "id: 2024-01-01\n",
                "\ufeffid: x\n",
                "[" * 300 + "]" * 300,
            ]
        )
    )


def _row() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "user", "assistant", "tool"]), "content": words}
    )


def _optional(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=fields)


def _user() -> st.SearchStrategy[Any]:
    turn = st.fixed_dictionaries(
        {"text": words},
        optional={"images": st.lists(words, max_size=2), "model": words},
    )
    return st.one_of(words, turn)


def _steps(depth: int) -> st.SearchStrategy[list[dict[str, Any]]]:
    step = st.one_of(
        st.fixed_dictionaries({"user": _user()}),
        st.fixed_dictionaries({"seed": st.lists(_row(), max_size=2)}),
        st.just({"clear_history": True}),
        st.just({"switch_model": {"provider": "openai.main"}}),
    )
    if depth > 0:
        repeat = st.fixed_dictionaries(
            {"repeat": st.fixed_dictionaries({"times": st.integers(1, 3), "steps": _steps(0)})}
        )
        step = st.one_of(step, repeat)
    return st.lists(step, min_size=1, max_size=3)


def _fake() -> st.SearchStrategy[dict[str, Any]]:
    step = _optional(
        text=words,
        tool_calls=st.lists(
            st.fixed_dictionaries({"name": words}, optional={"arguments": st.just({"text": "x"})}),
            max_size=1,
        ),
        usage=_optional(input_tokens=st.integers(0, 100), cached_tokens=st.integers(0, 9)),
        latency_ms=st.integers(0, 5),
    )
    return _optional(
        context_window=st.integers(1, 10_000),
        counter=st.sampled_from(["heuristic", "provider"]),
        script=st.lists(step, max_size=2),
        default=step,
    )


def _expect() -> st.SearchStrategy[dict[str, Any]]:
    return _optional(
        answers=st.lists(st.one_of(st.none(), words), max_size=2),
        final_history_length=st.integers(0, 9),
        breadcrumb_flag=st.booleans(),
        counts=_optional(
            provider_calls=st.integers(0, 5),
            trims=st.just({"proactive": 1}),
            events=st.just({"TurnStarted": 1}),
        ),
        requests=st.just({1: [{"role": "user", "content": "hi"}]}),
        events=st.fixed_dictionaries(
            {"items": st.just([{"kind": "HistoryTrimmed", "trigger": "proactive"}])},
            optional={"mode": st.sampled_from(["ordered", "exact", "set"])},
        ),
        error=st.fixed_dictionaries({"type": words}, optional={"turn": st.integers(1, 3)}),
    )


@st.composite
def valid_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    kinds = list(ProviderKind.__args__)  # type: ignore[attr-defined]
    provider = st.fixed_dictionaries(
        {"kind": st.sampled_from(kinds)},
        optional={"model": words, "context_window": st.integers(0, 10_000), "fake": _fake()},
    )
    required = {
        "id": st.from_regex(r"\A[a-z][a-z0-9-]{0,10}\Z"),
        "title": words,
        "rules": st.lists(st.sampled_from(list(RULES)), min_size=1, max_size=3),
        "providers": st.fixed_dictionaries({"openai.main": provider}),
        "conversation": _steps(1),
        "expect": _expect(),
    }
    optional = {
        "description": words,
        "tags": st.lists(words, max_size=2),
        "driver": st.just("agent"),  # the only driver every kind of step suits
        "tool_mode": st.sampled_from(["native", "prompt"]),
        "system_prompt": st.one_of(st.none(), words),
        "runtime": _optional(
            max_context_tokens=st.integers(0, 1000),
            history_pruning=_optional(enabled=st.booleans(), max_tokens=st.integers(0, 99)),
            max_history_messages=st.integers(0, 60),
        ),
        "routes": st.just({"default": {"provider": "openai.main"}}),
        "tools": st.lists(_optional(output=words).map(lambda t: {"name": "echo", **t}), max_size=1),
    }
    scenario: dict[str, Any] = draw(st.fixed_dictionaries(required, optional=optional))
    return scenario


FREE_FORM_KEYS = {"providers", "arguments", "parameters", "trims", "requests", "model_routes"}


def format_key_paths(data: Any, path: Path = ()) -> list[Path]:
    """Paths of the keys the format defines (not those of free-form mappings)."""
    found: list[Path] = []
    if isinstance(data, dict):
        free = "items" in path or (
            bool(path) and (path[-1] in FREE_FORM_KEYS or path[-2:] == ("counts", "events"))
        )
        for key, value in data.items():
            if not free:
                found.append((*path, key))
            found += format_key_paths(value, (*path, key))
    elif isinstance(data, list):
        for index, item in enumerate(data):
            found += format_key_paths(item, (*path, index))
    return found


def rename(data: Any, path: Path, new: str) -> Any:
    """A copy of ``data`` with the key at ``path`` renamed to ``new`` (order kept)."""
    if len(path) == 1:
        return {(new if k == path[0] else k): v for k, v in data.items()}
    head, rest = path[0], path[1:]
    if isinstance(data, list):
        return [rename(v, rest, new) if i == head else v for i, v in enumerate(data)]
    return {k: (rename(v, rest, new) if k == head else v) for k, v in data.items()}
