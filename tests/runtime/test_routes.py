"""Spec 7: ``resolved_model_context_window_for_route`` — the window of the served route."""

from harness.runtime import (
    ModelContextWindow,
    ProviderProfile,
    RuntimeProfile,
    WindowSource,
    resolve_context_limits,
    resolved_model_context_window_for_route,
)

PROVIDERS = {
    "custom": {
        "large": ProviderProfile(model="big-model", context_window=200_000),
        "anymodel": ProviderProfile(model=None, context_window=64_000),
        "blankmodel": ProviderProfile(model="   ", context_window=64_000),
        "nowindow": ProviderProfile(model="big-model", context_window=None),
        "zero": ProviderProfile(model="big-model", context_window=0),
        "a.b": ProviderProfile(model=None, context_window=16_000),
    },
    "openai": {"small": ProviderProfile(model="gpt-x", context_window=8_000)},
}
UNKNOWN = ModelContextWindow(32_000, WindowSource.COMPATIBILITY_FALLBACK)


def resolve(ref: str, model: str | None) -> ModelContextWindow:
    return resolved_model_context_window_for_route(PROVIDERS, ref, model)


def test_configured_window_when_the_selected_model_matches() -> None:
    """Spec 7: window > 0 and the trimmed names are equal -> ``Configured``."""
    assert resolve("custom.large", "big-model") == ModelContextWindow(
        200_000, WindowSource.CONFIGURED
    )


def test_model_names_are_compared_after_trimming() -> None:
    """Spec 7: the *trimmed* names are compared."""
    assert resolve("custom.large", "  big-model\n").source is WindowSource.CONFIGURED


def test_trimming_follows_rust_whitespace_rules() -> None:
    """Spec 7 (Rust ``trim``): U+001C is not whitespace to Rust, so "\\x1cbig-model" does
    not match "big-model" (unknown capacity); U+00A0 is, so it matches."""
    assert resolve("custom.large", "\x1cbig-model") == UNKNOWN
    assert resolve("custom.large", "\u00a0big-model").source is WindowSource.CONFIGURED


def test_empty_selected_model_uses_the_profile_window() -> None:
    """Spec 7: the trimmed selected model is empty -> the profile's window is used."""
    configured = ModelContextWindow(200_000, WindowSource.CONFIGURED)
    assert resolve("custom.large", None) == configured
    assert resolve("custom.large", "") == configured
    assert resolve("custom.large", "   ") == configured


def test_profile_with_no_model_serves_any_model() -> None:
    """Spec 7: the profile declares no model (empty after trimming) -> configured."""
    assert resolve("custom.anymodel", "whatever") == ModelContextWindow(
        64_000, WindowSource.CONFIGURED
    )
    assert resolve("custom.blankmodel", "whatever").source is WindowSource.CONFIGURED


def test_model_mismatch_is_unknown_capacity() -> None:
    """Spec 7: a model mismatch -> ``{32000, CompatibilityFallback}``."""
    assert resolve("custom.large", "other-model") == UNKNOWN


def test_model_comparison_is_case_sensitive() -> None:
    """Spec 7: "the trimmed names are equal" — exact equality."""
    assert resolve("custom.large", "Big-Model") == UNKNOWN


def test_unknown_ref_is_unknown_capacity() -> None:
    """Spec 7: unknown provider type or alias -> fallback."""
    assert resolve("custom.missing", "big-model") == UNKNOWN
    assert resolve("nope.large", "big-model") == UNKNOWN


def test_ref_without_a_dot_is_unknown_capacity() -> None:
    """Spec 7: ``<type>.<alias>`` is required; no dot -> fallback."""
    assert resolve("custom", "big-model") == UNKNOWN
    assert resolve("", None) == UNKNOWN


def test_ref_is_split_at_the_first_dot() -> None:
    """Spec 7: "custom.a.b" -> type "custom", alias "a.b"."""
    assert resolve("custom.a.b", None) == ModelContextWindow(16_000, WindowSource.CONFIGURED)
    assert resolve("custom.large.extra", "big-model") == UNKNOWN


def test_missing_or_zero_window_is_unknown_capacity() -> None:
    """Spec 7: a missing or zero window -> fallback, even when the model matches."""
    assert resolve("custom.nowindow", "big-model") == UNKNOWN
    assert resolve("custom.zero", "big-model") == UNKNOWN


def test_route_limits_apply_the_profile_policy_to_the_route_window() -> None:
    """Spec 7 ``resolved_context_limits_for_route``: spec 6 over the route's window:
    0.9 on openai.small (8,000) -> 7,200; after a model mismatch (32k) -> 28,800."""
    profile = RuntimeProfile(context_compact_ratio=0.9)
    served = resolve_context_limits(profile, resolve("openai.small", "gpt-x"))
    assert (served.model_context_window, served.context_token_budget) == (8_000, 7_200)
    assert served.configured_model_context_window == 8_000
    mismatched = resolve_context_limits(profile, resolve("openai.small", "gpt-y"))
    assert (mismatched.model_context_window, mismatched.context_token_budget) == (32_000, 28_800)
    assert mismatched.configured_model_context_window is None
