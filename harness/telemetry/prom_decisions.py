"""The Prometheus observer's decision families: trims (and what they drop and cost the
cache), provider-side edits, budget decisions (a module of its own by event family, to keep
``prom.py`` small).

Each handler is the observer's handler for its event kind (one Python call per event, issue
15): it asks the session's exemplar once and, when the session has overflows pending,
hands the event to the observer's ``other_turn`` first, as every handler of ``prom.py`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.events import BudgetResolved, Event, HistoryTrimmed, ProviderContextEdited
from harness.telemetry import names as n

_Exemplar = Mapping[str, str]
_Update = Callable[[float, _Exemplar | None], None]
_Budget = tuple[_Update, Callable[[float], None], Callable[[float], None]]


class DecisionMetrics:
    """Updates the trim, provider-edit and budget families; ``children`` are the Prometheus
    observer's, by name; ``overflows`` its pending overflows (read, never changed here)."""

    __slots__ = (
        "_budget_decisions",
        "_budget_tokens",
        "_budgets",
        "_cache_loss",
        "_compaction_tokens",
        "_dropped_messages",
        "_dropped_turns",
        "_exemplars",
        "_other_turn",
        "_overflows",
        "_provider_cleared",
        "_provider_edits",
        "_trimmed_tokens",
        "_trims",
        "_window_tokens",
    )

    def __init__(
        self,
        children: Mapping[str, Any],
        exemplars: Callable[[str], _Exemplar | None],
        overflows: Mapping[str, object],
        other_turn: Callable[[Event, _Exemplar | None], None],
    ) -> None:
        self._exemplars = exemplars
        self._overflows = overflows
        self._other_turn = other_turn
        self._trims = children[n.TRIMS.name]
        self._dropped_messages = children[n.DROPPED_MESSAGES.name]
        self._dropped_turns = children[n.DROPPED_TURNS.name]
        self._cache_loss = children[n.CACHE_LOSS.name]
        self._trimmed_tokens = children[n.TRIMMED_TOKENS.name]
        self._provider_edits = children[n.PROVIDER_EDITS.name]
        self._provider_cleared = children[n.PROVIDER_CLEARED_TOKENS.name]
        self._compaction_tokens = children[n.PROVIDER_COMPACTION_TOKENS.name]
        self._budget_decisions = children[n.BUDGET_DECISIONS.name]
        self._budget_tokens = children[n.BUDGET_TOKENS.name]
        self._window_tokens = children[n.WINDOW_TOKENS.name]
        # (provider, model, rule, window source) -> a budget's decision count and gauges
        self._budgets: dict[tuple[str, str | None, str, str], _Budget] = {}

    def trim(self, event: HistoryTrimmed) -> None:
        exemplar = self._exemplars(event.session_id)
        if event.session_id in self._overflows:
            self._other_turn(event, exemplar)
        trigger = str(event.trigger)
        reason = n.trim_reason_label(event.reason)
        provider = event.provider or n.UNKNOWN
        self._trims[(reason, trigger, provider, event.source)].inc(1, exemplar)
        labels = (trigger, provider, event.source)
        self._dropped_messages[labels].observe(event.dropped_messages, exemplar)
        self._dropped_turns[labels].observe(event.dropped_turns, exemplar)
        if event.cache_loss_tokens is not None:
            self._cache_loss[labels].inc(event.cache_loss_tokens, exemplar)
        if event.tokens_before is not None and event.tokens_after is not None:
            self._trimmed_tokens[labels].inc(max(0, event.tokens_before - event.tokens_after))

    def provider_edit(self, event: ProviderContextEdited) -> None:
        exemplar = self._exemplars(event.session_id)
        if event.session_id in self._overflows:
            self._other_turn(event, exemplar)
        outcome, source = event.compaction or n.PROVIDER_EDIT_APPLIED, event.source
        self._provider_edits[(event.edit, outcome, event.provider, source)].inc(1, exemplar)
        if event.cleared_input_tokens:
            cleared = self._provider_cleared[(event.edit, event.provider, source)]
            cleared.inc(event.cleared_input_tokens)
        for token_type, tokens in (
            (n.TOKEN_TYPE_INPUT, event.compaction_input_tokens),
            (n.TOKEN_TYPE_OUTPUT, event.compaction_output_tokens),
        ):
            if tokens:
                self._compaction_tokens[(token_type, event.provider, source)].inc(tokens)

    def budget(self, event: BudgetResolved) -> None:
        exemplar = self._exemplars(event.session_id)
        if event.session_id in self._overflows:
            self._other_turn(event, exemplar)
        key = (event.provider, event.model, event.rule, event.window_source)
        updates = self._budgets.get(key)
        if updates is None:  # its three children, kept together: one lookup per event
            route = (event.provider, event.model or n.UNKNOWN)
            updates = self._budgets[key] = (
                self._budget_decisions[(*route, str(event.rule), event.window_source)].inc,
                self._budget_tokens[route].set,
                self._window_tokens[route].set,
            )
        decisions, budget, window = updates
        decisions(1, exemplar)
        budget(event.budget_tokens)
        window(event.model_context_window)
