"""What a runtime under test's sessions cost, read off the wire: ``load --sut``'s cache and
cost figures, priced by the pricing room (``harness.pricing``) as ``load`` prices the
in-process agent.

A runtime under test reports no events trimscope could count, so every figure is what the
fake received and answered: each successful answer's own usage (decoded by the wire
observer's decoders, ``harness.wire.decode_answer``: input with cache reads and writes
beside it, and output), under the model the request named; a failed answer reports no
usage (as the agent's loop counts a failed attempt). Cache loss is the wire observer's
``cache_loss_tokens`` (``docs/findings.md``), by what the request did: ``trim`` or
``compaction`` when the call was one, ``other`` for a ``cache_break`` on a call that was
neither (a runtime that rewrote its history another way). Compactions are counted as
trims are (``harness.sut.suite.judge``): the larger of what the runtime reported and what
the wire shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from fakes.serving.log import Exchange
from harness.pricing.formula import Usage
from harness.scenarios.wire_watch import as_wire_exchange
from harness.sketch import Sketch
from harness.sut.drive import Driven
from harness.wire import WireDecodeError, decode_answer, decode_request
from harness.wire.model import Finding

CHANGES: Final = ("trim", "compaction")
"""The history changes a cache loss is attributed to; any other is ``OTHER_LOSS``."""
OTHER_LOSS: Final = "other"
SUCCESS: Final = range(200, 300)


@dataclass
class RuntimeSpend:
    """One runtime's usage over its finished sessions (``harness.pricing.spend.Tally``)."""

    usage: dict[str, list[int]] = field(default_factory=dict)
    """Per model: uncached input, cache reads, cache writes, output (``Usage``'s order)."""
    cache_loss: Counter[str] = field(default_factory=Counter)
    request_tokens: Sketch = field(default_factory=Sketch)
    """Each successful answer's reported input size."""
    compactions: int = 0

    def add(self, exchanges: Sequence[Exchange], seen: Sequence[Finding], driven: Driven) -> None:
        """One judged session: its exchanges, the wire's findings and the protocol side."""
        for exchange in exchanges:
            self._add_call(exchange)
        changed = {f.call: f.kind for f in seen if f.kind in CHANGES}
        for finding in seen:
            if finding.kind == "cache_break" and finding.cache_loss_tokens:
                self.cache_loss[changed.get(finding.call, OTHER_LOSS)] += finding.cache_loss_tokens
        reported = sum(event.kind == "compaction" for event in driven.events)
        self.compactions += max(reported, sum(f.kind == "compaction" for f in seen))

    def _add_call(self, exchange: Exchange) -> None:
        read = as_wire_exchange("load", exchange)
        if read is None or read.status not in SUCCESS:
            return
        try:
            model = decode_request(read.wire, read.path, read.request_body).model
            answer = decode_answer(
                read.wire, read.status, read.response_body, streamed=read.streamed
            )
        except WireDecodeError:  # judged elsewhere (``unobservable``): no usage to count
            return
        if answer.input_tokens is None and answer.output_tokens is None:
            return
        inputs = answer.input_tokens or 0
        usage = Usage.reported(
            inputs,
            answer.cached_tokens or 0,
            answer.cache_write_tokens or 0,
            answer.output_tokens or 0,
        )
        totals = self.usage.setdefault(model or "unknown", [0, 0, 0, 0])
        for index, count in enumerate((usage.uncached, usage.cache_read, usage.cache_write,
                                       usage.output)):  # fmt: skip
            totals[index] += count
        self.request_tokens.add(inputs)
