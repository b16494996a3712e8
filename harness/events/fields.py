"""Which event fields are closed sets: read by the transcript reader (to turn values back
into enums) and by the scenario loader (to refuse an expected value no event can have)."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from enum import StrEnum

from harness.events.kinds import EVENT_KINDS, Event


def _enum_of(hint: object) -> type[StrEnum] | None:
    """The ``StrEnum`` a field is typed as, optional (``E | None``) or not."""
    members = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    enums = [m for m in members if isinstance(m, type) and issubclass(m, StrEnum)]
    return enums[0] if len(enums) == 1 else None


def _enum_fields(kind: type[Event]) -> dict[str, type[StrEnum]]:
    hints = typing.get_type_hints(kind)
    return {f.name: enum for f in dataclasses.fields(kind) if (enum := _enum_of(hints[f.name]))}


ENUM_FIELDS: Mapping[str, Mapping[str, type[StrEnum]]] = types.MappingProxyType(
    {kind.__name__: types.MappingProxyType(_enum_fields(kind)) for kind in EVENT_KINDS}
)
"""By event kind name: its fields typed as a ``StrEnum`` (optional or not), by field name."""
