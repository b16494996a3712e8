"""A Locust run's ``Spend``: the cache and cost inputs, read from every worker's metrics.

The workers' ``PrometheusObserver`` exports what ``LoadTally`` counts in an asyncio run,
and the aggregate (``MultiProcessCollector``) sums it over processes:

- input tokens per model, split by cache: ``trimscope_provider_input_tokens_total
  {model, cache=read|write|uncached}`` (the same split as ``LoadTally._call``);
- output tokens per model: the ``_sum`` of ``gen_ai_client_token_usage
  {gen_ai_request_model, gen_ai_token_type=output}`` (a histogram's sum of integers is
  exact well past any run's size, 2**53);
- cache loss per trigger: ``trimscope_cache_loss_tokens_total{trigger}``.

Token counts are therefore exactly what the asyncio mode counts for the same calls. Each
call's input size is not exported (only the token-usage histogram, whose buckets are 4x
apart), so ``request_tokens`` is ``None`` and the summary's request-size quantiles are
null, with a note (``REQUEST_SIZES_NOTE``), rather than a guess.
"""

from __future__ import annotations

from typing import Final

from prometheus_client import CollectorRegistry

from harness.load import metrics as m
from harness.pricing.formula import Usage
from harness.pricing.spend import Spend
from harness.telemetry import names as n

REQUEST_SIZES_NOTE: Final = (
    "cache: request_tokens_p50/p95 are null in Locust mode (each call's input size is not"
    " exported, only a histogram with buckets 4x apart); token counts are exact"
)


def registry_spend(registry: CollectorRegistry) -> Spend:
    """The usage per model and the cache loss per trigger the registry's metrics hold."""
    inputs = m.by_labels(registry, n.INPUT_TOKENS.name, n.LABEL_MODEL, n.LABEL_CACHE)
    outputs = m.by_labels(
        registry,
        f"{n.GEN_AI_TOKEN_USAGE.name}_sum",
        n.LABEL_GEN_AI_MODEL,
        n.LABEL_GEN_AI_TOKEN_TYPE,
    )
    models = {model for model, _ in inputs} | {
        model for model, kind in outputs if kind == n.TOKEN_TYPE_OUTPUT
    }
    usage = {
        model: Usage(
            uncached=inputs[model, n.CACHE_UNCACHED],
            cache_read=inputs[model, n.CACHE_READ],
            cache_write=inputs[model, n.CACHE_WRITE],
            output=outputs[model, n.TOKEN_TYPE_OUTPUT],
        )
        for model in models
    }
    loss = m.by_labels(registry, n.CACHE_LOSS.name, n.LABEL_TRIGGER)
    return Spend(
        usage=usage,
        cache_loss={trigger: tokens for (trigger,), tokens in loss.items()},
        request_tokens=None,
    )
