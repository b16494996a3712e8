"""Body templates: JSON-shaped data whose numbers are filled in per request.

A template is plain JSON data in which a string leaf is a ``str.format`` pattern over the
answer's numbers (``"... {window} tokens ..."``) and a ``Num("name")`` leaf becomes that
number as a JSON integer. Literal braces in a string leaf are written doubled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

from fakes.rows import JSONValue


@dataclass(frozen=True, slots=True)
class Num:
    """A JSON integer taken from the answer's numbers."""

    name: str


Template: TypeAlias = (
    Mapping[str, "Template"] | tuple["Template", ...] | str | int | bool | Num | None
)


def render(template: Template, numbers: Mapping[str, object]) -> JSONValue:
    """Fill ``template`` with ``numbers``; a missing name raises ``KeyError``."""
    if isinstance(template, Num):
        value = numbers[template.name]
        if not isinstance(value, int):
            raise TypeError(f"{template.name} is not an integer: {value!r}")
        return value
    if isinstance(template, str):
        return template.format_map(numbers)
    if isinstance(template, Mapping):
        return {key: render(value, numbers) for key, value in template.items()}
    if isinstance(template, tuple):
        return [render(item, numbers) for item in template]
    return template
