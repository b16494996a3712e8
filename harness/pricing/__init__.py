"""Pricing: what a run's provider calls cost, in one room.

- ``formula``: the one formula (a call's input split by cache, ``uncached_input``, which
  the load tally and the Prometheus observer count with too; ``Usage``; ``lost`` cache
  prefix), stdlib only so the observers in ``harness.telemetry`` may use it;
- ``table``: the price table (``PriceTable``, ``ModelPrice``) and the lookup by model
  (``price_lookup``, with ``--price-as``);
- ``reading``: the table file read under the scenario files' input contract
  (``load_prices``, ``read_pricing``: every problem as ``file:line: key.path: ...``);
- ``spend``: a run's ``Spend`` and the summary's cache and cost sections.

``run``, ``load``, ``proxy``, the telemetry's cost observer and the load summary all price
through here. Two neighbours stay where their input is, and compute through here: the cost
observer (``harness.telemetry.cost``, an observer on the bus, priced with ``formula``) and
how a Locust run's metrics become a ``Spend`` (``harness.load.registry_spend``: it reads
the load's metric registry by the telemetry's metric names, which this room may not
import).

The package exports the formula and the table only: importing ``harness.pricing`` (as the
telemetry does, for the formula) must not import the scenario loader that ``reading`` uses.
"""

from harness.pricing.formula import PER_TOKENS, PriceOf, Rates, Usage, lost
from harness.pricing.table import ModelPrice, PriceTable, price_lookup

__all__ = [
    "PER_TOKENS",
    "ModelPrice",
    "PriceOf",
    "PriceTable",
    "Rates",
    "Usage",
    "lost",
    "price_lookup",
]
