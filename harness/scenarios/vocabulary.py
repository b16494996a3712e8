"""The words a scenario file may use, taken from the code that gives them meaning: rule
ids, provider kinds, event kinds and their fields, trim triggers, fake overflow variants.

``schema.py`` checks scenario files against these sets, so a typo'd rule tag, event field
or variant is a load error (exit 2) instead of an expectation that can never match.
``FieldProblems`` carries several located problems out of one pydantic validator.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Collection, Iterable, Mapping
from enum import Enum
from functools import cache
from typing import Any, Final

import fakes
from fakes.profiles import SDK_ENDPOINTS
from harness.events import ENUM_FIELDS, EVENT_KINDS, TrimTrigger
from harness.runtime.errors import HarnessError
from harness.runtime.text import did_you_mean
from harness.scenarios.rules import RULES

Loc = tuple[int | str, ...]

RULE_IDS: Final = tuple(RULES)
TRIM_TRIGGERS: Final = tuple(t.value for t in TrimTrigger)
EVENT_FIELDS: Final[Mapping[str, tuple[str, ...]]] = types.MappingProxyType(
    {kind.__name__: tuple(f.name for f in dataclasses.fields(kind)) for kind in EVENT_KINDS}
)


class FieldProblems(HarnessError, ValueError):
    """Problems found by a validator, each at a location relative to the validated value.

    The loader reports each at its own ``file:line: key.path``; elsewhere the message
    lists them all."""

    def __init__(self, problems: Iterable[tuple[Loc, str]]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(f"{_dotted(loc)}: {what}" for loc, what in self.problems))


def _dotted(loc: Loc) -> str:
    return ".".join(str(p) for p in loc) or "(here)"


def raise_if(problems: list[tuple[Loc, str]]) -> None:
    if problems:
        raise FieldProblems(problems)


def unknown(
    word: object, known: Collection[str], what: str, *, found: str = "", limit: int = 12
) -> str:
    """``expected <what>[: a, b, c], found <found>'word' (did you mean 'x'?)``: one
    wording for every closed set (the choices are listed when there are few)."""
    hint = did_you_mean(word, known)
    if len(known) <= limit:
        what = f"{what}: {', '.join(map(str, known))}"
    return f"expected {what}, found {found}{word!r}{hint}"


@cache
def fake_variants(kind: str) -> tuple[str, ...]:
    """The overflow variants the fake behind a client kind can answer with."""
    # The fakes' own table (``environment.FAKE_FOR_KIND`` is this table): importing the
    # environment here would pull the agent and the provider clients into validation.
    profile_name, _ = SDK_ENDPOINTS[kind]
    return tuple(sorted({e.variant for e in fakes.overflow_entries(profile_name)}))


def look_alike_names() -> tuple[str, ...]:
    """The errors a fake can answer with that look like an overflow but are not."""
    return tuple(entry.name for entry in fakes.LOOK_ALIKES)


def check_event_items(items: list[dict[str, Any]]) -> None:
    """Each expected event names a known ``kind``, only fields that kind has, and for a
    field that is a closed set (an enum) one of its values."""
    problems: list[tuple[Loc, str]] = []
    for index, item in enumerate(items):
        kind = item.get("kind")
        if kind is None:
            problems.append(((index,), "expected a 'kind' key naming the event kind, found none"))
            continue
        if kind not in EVENT_FIELDS:
            problems.append(((index, "kind"), unknown(kind, EVENT_FIELDS, "an event kind")))
            continue
        fields = EVENT_FIELDS[kind]
        problems += [
            ((index, key), unknown(key, fields, f"a field of {kind}"))
            for key in item
            if key != "kind" and key not in fields
        ]
        problems += _enum_problems(index, kind, item)
    raise_if(problems)


def _enum_problems(index: int, kind: str, item: dict[str, Any]) -> list[tuple[Loc, str]]:
    """An expected value no event can hold (``None`` is left to the field's type)."""
    problems: list[tuple[Loc, str]] = []
    for key, enum in ENUM_FIELDS[kind].items():
        value = item.get(key)
        values = tuple(member.value for member in enum)
        if value is not None and value not in values:
            problems.append(((index, key), unknown(value, values, f"a {kind}.{key}")))
    return problems


def check_words(
    words: Iterable[object], known: Collection[str], what: str, *, keys: bool = False
) -> None:
    """Every word (list items, or mapping keys with ``keys``) is one of ``known``."""
    problems: list[tuple[Loc, str]] = []
    for index, word in enumerate(words):
        if word not in known:
            loc: Loc = (str(word),) if keys else (index,)
            problems.append((loc, unknown(word, known, what)))
    raise_if(problems)


# --- JSON Schema for the free-form event items, so editors complete field names -------


def _json_type(tp: Any) -> dict[str, Any]:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_json_type(arg) for arg in typing.get_args(tp)]}
    if origin is tuple:
        return {"type": "array", "items": _json_type(typing.get_args(tp)[0])}
    if isinstance(tp, type) and issubclass(tp, Enum):
        return {"enum": [member.value for member in tp]}
    names = {int: "integer", float: "number", str: "string", bool: "boolean"}
    if tp is type(None):
        return {"type": "null"}
    return {"type": names[tp]} if tp in names else {}


def event_items_json_schema() -> dict[str, Any]:
    """One alternative per event kind: ``kind`` fixed, its fields typed, nothing else."""
    alternatives = []
    for kind in EVENT_KINDS:
        hints = typing.get_type_hints(kind)
        properties: dict[str, Any] = {"kind": {"const": kind.__name__}}
        properties.update({f.name: _json_type(hints[f.name]) for f in dataclasses.fields(kind)})
        alternatives.append(
            {
                "type": "object",
                "title": kind.__name__,
                "properties": properties,
                "required": ["kind"],
                "additionalProperties": False,
            }
        )
    return {"type": "array", "items": {"anyOf": alternatives}}
