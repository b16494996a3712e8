"""The observing proxy: forwards a runtime's requests and reports what it did to its history."""

__all__: list[str] = []
