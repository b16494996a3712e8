"""Fake LLM providers that speak the real wire formats (never imports ``harness``)."""

__all__: list[str] = []
