"""Upper bounds on the sizes and counts the CLI's options accept (each defined once).

A value beyond one of these is a typo or a mistake, not a wish: refusing it (exit 2) costs
nothing, while accepting it can mean a run that never ends or memory that runs out.
"""

from __future__ import annotations

from typing import Final

MAX_CONTEXT_WINDOW_TOKENS: Final = 100_000_000
"""Ten times the largest window any model publishes today (10 M tokens)."""
MAX_CONFORMANCE_REQUESTS: Final = 10_000
"""The default probe budget is 40 requests; a thousand times the need is still bounded."""
MAX_CONFORMANCE_INPUT_TOKENS: Final = 2_000_000_000
"""16 x the largest window (the default budget's multiple), rounded up."""

__all__ = ["MAX_CONFORMANCE_INPUT_TOKENS", "MAX_CONFORMANCE_REQUESTS", "MAX_CONTEXT_WINDOW_TOKENS"]
