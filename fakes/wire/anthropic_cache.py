"""Anthropic ``cache_control`` breakpoints, read off a Messages request.

A breakpoint caches the prompt up to and including its block, in the order tools,
system, messages. Each is placed at a boundary of the fake's prefix chain
(``fakes.simulations.caching``): after the tool schemas (boundary 0), after a system row, or after
the rows of the message holding the marked block. A top-level ``cache_control``
(automatic caching) is a breakpoint after the last block. More than
``ANTHROPIC_MAX_BREAKPOINTS`` marked blocks is the API's 400.
"""

from __future__ import annotations

from typing import Any

from fakes.rows import JSONValue
from fakes.simulations.caching import ANTHROPIC_MAX_BREAKPOINTS, ANTHROPIC_TTL_SECONDS, Breakpoint
from fakes.wire.base import WireError
from fakes.wire.common import Invalid

TOO_MANY = "A maximum of {limit} blocks with cache_control may be provided. Found {found}."


def marker_ttl(block: Any, where: str) -> str | None:
    """The TTL of a block's ``cache_control`` (``5m`` when unstated), or ``None``."""
    if not isinstance(block, dict) or block.get("cache_control") is None:
        return None
    control = block["cache_control"]
    if not isinstance(control, dict) or control.get("type") != "ephemeral":
        raise Invalid(f"{where}.cache_control.type: Input should be 'ephemeral'")
    ttl = control.get("ttl", "5m")
    if ttl not in ANTHROPIC_TTL_SECONDS:
        raise Invalid(f"{where}.cache_control.ttl: Input should be '5m' or '1h'")
    return str(ttl)


def marked(blocks: list[Any], where: str) -> list[str]:
    """The TTLs of the marked blocks among ``blocks``, in order."""
    return [
        ttl
        for n, block in enumerate(blocks)
        if (ttl := marker_ttl(block, f"{where}[{n}]")) is not None
    ]


def check_count(points: list[Breakpoint]) -> tuple[Breakpoint, ...]:
    if len(points) > ANTHROPIC_MAX_BREAKPOINTS:
        message = TOO_MANY.format(limit=ANTHROPIC_MAX_BREAKPOINTS, found=len(points))
        body: JSONValue = {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": message},
        }
        raise WireError(400, body, detail="cache breakpoints")
    return tuple(points)
