"""The provider names each command takes, and how the lists differ, said once.

``conformance`` and ``load`` take a client kind (``harness.providers.PROVIDER_KINDS``, the
same list); ``fake serve`` takes a fake's name (``fakes.PROVIDER_NAMES``): the provider
whose answers and overflow shape it copies. The two lists differ on purpose, and
``fakes.profiles.SDK_ENDPOINTS`` says how: two client kinds are served by another kind's
fake (``openai-responses`` by ``openai``, ``ollama-openai`` by ``ollama``), and some fakes
have no client (``bedrock``...: their answers are checked through the classifiers).
"""

from __future__ import annotations

from typing import Final

from fakes import PROVIDER_NAMES
from fakes.profiles import SDK_ENDPOINTS
from harness.runtime.text import did_you_mean

SERVED_BY: Final = {kind: fake for kind, (fake, _) in SDK_ENDPOINTS.items() if kind != fake}
"""Client kind -> the fake that serves it, where the names differ."""
WITHOUT_CLIENT: Final = tuple(
    name for name in PROVIDER_NAMES if name not in {fake for fake, _ in SDK_ENDPOINTS.values()}
)
"""Fakes no client kind speaks to."""

CLIENT_KINDS_NOTE: Final = (
    "`fake serve` names its fakes by provider: "
    + ", ".join(f"{kind} is served by its {fake} fake" for kind, fake in SERVED_BY.items())
    + f"; {', '.join(WITHOUT_CLIENT)} have a fake and no client."
)
FAKES_NOTE: Final = (
    "These are fakes, not client kinds (conformance, load): "
    + ", ".join(f"{kind} uses {fake}" for kind, fake in SERVED_BY.items())
    + f"; {', '.join(WITHOUT_CLIENT)} have no client."
)


def unknown_fake(value: str) -> str:
    """Why ``value`` is no fake's name, with the fake to use instead."""
    fake = SERVED_BY.get(value)
    if fake is not None:
        return f"{value!r} is a client kind; its fake is {fake!r} (--provider {fake})"
    hint = did_you_mean(value, PROVIDER_NAMES)
    return f"{value!r} is not one of: {', '.join(PROVIDER_NAMES)}{hint}"


KINDS_HELP: Final = f"{', '.join(SDK_ENDPOINTS)}. {CLIENT_KINDS_NOTE}"
"""The client kinds, for a command's help (the same list as ``conformance``'s)."""


def unknown_kind(value: str) -> str:
    """Why ``value`` is no client kind, with the closest one."""
    hint = did_you_mean(value, SDK_ENDPOINTS)
    return f"unknown --provider {value!r}{hint}; known: {', '.join(SDK_ENDPOINTS)}"
