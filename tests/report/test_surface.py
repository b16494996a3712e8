"""The public surface of ``harness.report`` is explicit."""

from __future__ import annotations

import harness.report


def test_public_surface_is_explicit_and_sorted() -> None:
    exported = harness.report.__all__
    assert exported == sorted(exported)
    assert all(hasattr(harness.report, name) for name in exported)
