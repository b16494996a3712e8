"""Route selection and per-route limits (spec 7).

A provider reference is ``<type>.<alias>``. The route that serves a call is, in order of
precedence: the vision route when the request carries images, the route a classifier hint
``hint:<name>`` maps to, the session's explicit model switch, then the agent's default.
The same resolved pair (window, budget) feeds the proactive trim, the capacity check,
overflow diagnostics, cost attribution and the client's context meter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from harness.runtime import (
    ProviderProfile,
    ResolvedContextLimits,
    RuntimeProfile,
    resolve_context_limits,
    resolved_model_context_window_for_route,
)

HINT_PREFIX = "hint:"


@dataclass(frozen=True, slots=True)
class Route:
    """A provider reference and the model selected on it (``None``: the profile's own)."""

    provider: str
    model: str | None = None

    @property
    def provider_type(self) -> str:
        return self.provider.partition(".")[0]


@dataclass(frozen=True, slots=True)
class RouteTable:
    """``providers.models`` plus the agent's routing configuration, resolved once."""

    providers: Mapping[str, Mapping[str, ProviderProfile]]
    default: Route
    model_routes: Mapping[str, Route] = field(default_factory=dict)
    vision: Route | None = None

    def profile(self, route: Route) -> ProviderProfile | None:
        provider_type, _, alias = route.provider.partition(".")
        return self.providers.get(provider_type, {}).get(alias)

    def model_for(self, route: Route) -> str | None:
        """The model name a call on ``route`` sends (its own, else the profile's)."""
        if route.model:
            return route.model
        profile = self.profile(route)
        return profile.model if profile else None

    def select(
        self, *, switched: Route | None, requested_model: str | None, has_images: bool
    ) -> Route:
        if has_images and self.vision is not None:
            return self.vision
        if requested_model and requested_model.startswith(HINT_PREFIX):
            hinted = self.model_routes.get(requested_model[len(HINT_PREFIX) :])
            if hinted is not None:
                return hinted
        elif requested_model:
            base = switched or self.default
            return Route(base.provider, requested_model)
        return switched or self.default

    def limits(self, profile: RuntimeProfile, route: Route) -> ResolvedContextLimits:
        window = resolved_model_context_window_for_route(
            self.providers, route.provider, self.model_for(route)
        )
        return resolve_context_limits(profile, window)
