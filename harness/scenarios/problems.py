"""Turn pydantic validation errors into ``file:line: key.path: what was expected, what was
found``.

Pydantic locations mix data keys with the names of union members (``user.str``,
``user.UserTurn.text``); they are told apart by walking the data itself. The errors of
one union are merged: a mapping keeps the errors of the mapping-shaped member (the ones
that say what is wrong inside it), anything else gets one "expected a string or a
mapping with ..." message instead of one complaint per member.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from harness.scenarios.vocabulary import FieldProblems, Loc, unknown

Locate = Callable[[Loc], int]

_KEY = "[key]"
_KEYS_SHOWN = 6  # a mapping is described by its first keys
_SHOWN_CHARS = 60  # a value longer than this is cut, "..." included
_SIMPLE: Mapping[str, str] = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "none_required": "null",
    "finite_number": "a finite number",
}
_BOUNDS: Mapping[str, tuple[str, str]] = {
    "greater_than_equal": ("ge", ">="),
    "greater_than": ("gt", ">"),
    "less_than_equal": ("le", "<="),
    "less_than": ("lt", "<"),
}
_TAG_WORDS: Mapping[str, str] = {
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "list": "a list",
    "dict": "a mapping",
}


def found(value: object) -> str:
    """A short, YAML-flavoured rendering of what the file holds."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        shown_keys = list(value)[:_KEYS_SHOWN]
        keys = ", ".join(str(k) for k in shown_keys) + (", ..." if len(value) > _KEYS_SHOWN else "")
        return f"a mapping with keys {keys}" if value else "an empty mapping"
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)" if value else "an empty list"
    shown = repr(value)
    return shown if len(shown) <= _SHOWN_CHARS else shown[: _SHOWN_CHARS - len("...")] + "..."


def dotted(loc: Loc) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


# --- the schema type at a pydantic location (for allowed keys and member names) -------


def _strip(tp: Any) -> Any:
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(members) == 1:
            return _strip(members[0])
    return tp


def _member_name(tp: Any) -> str:
    tp = _strip(tp)
    origin = typing.get_origin(tp)
    return getattr(origin or tp, "__name__", str(tp))


def type_at(root: type[BaseModel], loc: Loc) -> Any:
    """The annotation a pydantic location (union member names included) points at."""
    tp: Any = root
    for part in loc:
        tp = _strip(tp)
        origin = typing.get_origin(tp)
        if origin in (typing.Union, types.UnionType):
            named = [a for a in typing.get_args(tp) if _member_name(a) == part]
            tp = named[0] if named else None
        elif isinstance(tp, type) and issubclass(tp, BaseModel):
            field = tp.model_fields.get(str(part))
            tp = field.annotation if field is not None else None
        elif origin is list:
            tp = typing.get_args(tp)[0]
        elif origin is dict:
            tp = typing.get_args(tp)[1]
        else:
            return None
        if tp is None:
            return None
    return _strip(tp)


def _describe_member(root: type[BaseModel], loc: Loc) -> str:
    tp = type_at(root, loc)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return f"a mapping with keys {', '.join(tp.model_fields)}"
    return _TAG_WORDS.get(str(loc[-1]).split("[")[0], str(loc[-1]))


# --- one pydantic error, split into data location and union member -------------------


@dataclass(frozen=True, slots=True)
class _Error:
    detail: ErrorDetails
    data_loc: Loc  # keys and indexes into the data only
    union_at: int | None  # where in data_loc a union member was chosen
    member_loc: Loc  # the pydantic location up to and including that member's name
    key_error: bool  # the mapping key itself is wrong, not its value


def _has(node: object, part: int | str) -> bool:
    if isinstance(node, Mapping):
        return part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)


def _value_at(data: object, loc: Loc) -> object:
    for part in loc:
        if not _has(data, part):
            return None
        data = data[part]  # type: ignore[index]
    return data


def _split(detail: ErrorDetails, data: object) -> _Error:
    loc = tuple(detail["loc"])
    last = loc[-1:] if detail["type"] == "missing" else ()
    walk = loc[:-1] if last else loc
    node, data_loc, key_error = data, list[int | str](), False
    union_at: int | None = None
    member_loc: Loc = ()
    for index, part in enumerate(walk):
        if _has(node, part):
            node = node[part]  # type: ignore[index]
            data_loc.append(part)
        elif part == _KEY:
            key_error = True
        elif union_at is None:
            union_at, member_loc = len(data_loc), loc[: index + 1]
    return _Error(detail, (*data_loc, *last), union_at, member_loc, key_error)


def _expected(  # noqa: PLR0911 (a return per pydantic error kind)
    root: type[BaseModel], error: _Error
) -> str | None:
    detail = error.detail
    kind, ctx = detail["type"], detail.get("ctx", {})
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    if kind in _BOUNDS:
        name, sign = _BOUNDS[kind]
        return f"a number {sign} {ctx[name]}"
    if kind == "literal_error":
        return f"one of {ctx['expected']}"
    if kind == "too_short":
        return f"at least {ctx['min_length']} item(s)"
    if kind == "too_long":
        return f"at most {ctx['max_length']} item(s)"
    if kind == "string_pattern_mismatch":
        field_loc = tuple(p for p in detail["loc"] if p != _KEY)
        parent = type_at(root, field_loc[:-1])
        if isinstance(parent, type) and issubclass(parent, BaseModel):
            info = parent.model_fields.get(str(field_loc[-1]))
            if info is not None and info.description:
                return info.description
        return f"text matching {ctx['pattern']}"
    return None


def _message(root: type[BaseModel], error: _Error) -> str:
    detail = error.detail
    kind = detail["type"]
    if kind == "missing":
        return "required key is missing"
    if kind == "extra_forbidden":
        allowed = type_at(root, tuple(detail["loc"])[:-1])
        is_model = isinstance(allowed, type) and issubclass(allowed, BaseModel)
        keys = list(allowed.model_fields) if is_model else []
        key = error.data_loc[-1] if error.data_loc else "?"
        return unknown(key, keys, "one of the keys", found="unknown key ", limit=len(keys))
    message = str(detail["msg"]).removeprefix("Value error, ")
    if message.startswith("expected "):  # the schema's own validators word it already
        return message
    value = error.data_loc[-1] if error.key_error else detail.get("input")
    what = _expected(root, error)
    if what is None:
        return f"{message[:1].lower()}{message[1:]}; found {found(value)}"
    return f"expected {'a key that is ' if error.key_error else ''}{what}, found {found(value)}"


# --- all errors of a validation -------------------------------------------------------


def _merge_unions(root: type[BaseModel], errors: list[_Error], data: object) -> Iterator[_Error]:
    """Keep the members that fit the value's shape; leave the rest to one summary."""
    groups: dict[Loc, list[_Error]] = {}
    for error in errors:
        if error.union_at is None:
            yield error
        else:
            groups.setdefault(error.data_loc[: error.union_at], []).append(error)
    for prefix, members in groups.items():
        value = _value_at(data, prefix)
        by_member: dict[Loc, list[_Error]] = {}
        for error in members:
            by_member.setdefault(error.member_loc, []).append(error)
        fitting = [
            errs
            for errs in by_member.values()
            if not any(e.detail["type"].endswith(("_type", "_parsing")) for e in errs)
            or (isinstance(value, Mapping) and any(e.data_loc != prefix for e in errs))
        ]
        if fitting:
            yield from min(fitting, key=len)
            continue
        words = " or ".join(_describe_member(root, loc) for loc in by_member)
        summary: ErrorDetails = {
            "type": "union_summary",
            "loc": prefix,
            "msg": f"Value error, expected {words}, found {found(value)}",
            "input": value,
        }
        yield _Error(summary, prefix, None, (), False)


def _expand_located(error: _Error) -> Iterator[tuple[Loc, str]]:
    cause = error.detail.get("ctx", {}).get("error")
    if isinstance(cause, FieldProblems):
        for loc, what in cause.problems:
            yield (*error.data_loc, *loc), what


def validation_problems(
    root: type[BaseModel], error: ValidationError, data: object, locate: Locate
) -> list[tuple[int, str]]:
    """``(line, "key.path: what was expected, what was found")`` sorted by line;
    ``locate(loc)`` gives the line of a data location."""
    split = [_split(detail, data) for detail in error.errors(include_url=False)]
    problems = []
    for item in _merge_unions(root, split, data):
        located = list(_expand_located(item))
        if located:
            problems += [(locate(loc), f"{dotted(loc)}: {what}") for loc, what in located]
        else:
            message = _message(root, item)
            problems.append((locate(item.data_loc), f"{dotted(item.data_loc)}: {message}"))
    return sorted(problems, key=lambda problem: problem[0])


# --- YAML-level problems --------------------------------------------------------------


def yaml_problem(error: yaml.YAMLError) -> tuple[int, str]:
    """The line and a one-line message of a YAML syntax or construction error."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    line = mark.line + 1 if mark is not None else 1
    problem = getattr(error, "problem", None)
    if not problem:
        return line, " ".join(str(error).split())
    context = getattr(error, "context", None)
    context_mark = getattr(error, "context_mark", None)
    if context and context_mark is not None and context_mark.line + 1 != line:
        context = f"{context} at line {context_mark.line + 1}"
    if problem == "mapping values are not allowed here":
        problem += "; a value that contains ': ' must be quoted"
    return line, f"{problem}" + (f" ({context})" if context else "")


def duplicate_keys(node: yaml.Node, loc: Loc = ()) -> Iterator[tuple[Loc, int, int]]:
    """``(key path, line, first line)`` for each key repeated in one mapping."""
    seen_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, Loc]] = [(node, loc)]
    while stack:
        current, where = stack.pop()
        if id(current) in seen_nodes:  # aliases share nodes; recursive anchors loop
            continue
        seen_nodes.add(id(current))
        if isinstance(current, yaml.MappingNode):
            first: dict[str, int] = {}
            for key_node, value_node in current.value:
                key = str(key_node.value)
                line = key_node.start_mark.line + 1
                if key in first:
                    yield (*where, key), line, first[key]
                first.setdefault(key, line)
                stack.append((value_node, (*where, key)))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend((item, (*where, i)) for i, item in enumerate(current.value))
