"""A fake's model: its name, the window it enforces, what discovery lists."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_OUTPUT_TOKENS = 8192


@dataclass(frozen=True, slots=True)
class FakeModel:
    """A fake model. ``advertised_window`` is what discovery reports as the model's
    maximum where a provider lists two numbers (OpenRouter ``context_length``, Ollama
    ``model_info``); the enforced window is ``context_window``."""

    name: str
    context_window: int
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    advertised_window: int | None = None

    def __post_init__(self) -> None:
        if self.context_window <= 0:
            raise ValueError("context_window must be positive")

    @property
    def listed_window(self) -> int:
        return self.advertised_window or self.context_window
