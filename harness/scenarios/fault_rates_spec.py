"""A fake's faults at a rate (``fake.fault_rates`` in a scenario, ``fault_rates`` in a
``fake serve --script`` file): a seeded mix of 5xx, 429s, hangs, broken streams and
malformed bodies spread over the calls (``fakes.scripting.fault_rates``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

import fakes
from fakes.scripting.fault_rates import DEFAULT_FAULT_SEED
from harness.scenarios.vocabulary import Loc, raise_if

Rate = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


class FaultRatesSpec(BaseModel):
    """Each kind's share of calls (0..1, summing to at most 1), the seed that places them,
    and the faults' details."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    server_error: Rate = 0.0
    rate_limit: Rate = 0.0
    hang: Rate = 0.0
    drop_mid_stream: Rate = 0.0
    malformed_json: Rate = 0.0
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] = DEFAULT_FAULT_SEED
    status: Annotated[int, Field(ge=500, le=599)] = 500
    retry_after: Annotated[int, Field(ge=0, le=86_400)] = 1
    hang_seconds: float = Field(default=30.0, ge=0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _at_most_every_call(self) -> FaultRatesSpec:
        total = sum(getattr(self, kind) for kind in fakes.RATE_KINDS)
        if total > 1.0 + 1e-9:
            raise_if([((), f"expected rates that sum to at most 1, found {total:g}")])
        return self

    def rates(self) -> fakes.FaultRates:
        return fakes.FaultRates(**self.model_dump())


def fault_rate_problems(
    loc: Loc, spec: FaultRatesSpec | None, most: float
) -> list[tuple[Loc, str]]:
    """A drawn hang longer than the loader's ``fault_seconds`` limit, at its key path."""
    if spec is None or spec.hang_seconds <= most:
        return []
    return [
        (
            (*loc, "hang_seconds"),
            f"expected at most {most:g} seconds (raise it with --limit fault_seconds=N),"
            f" found {spec.hang_seconds:g}",
        )
    ]
