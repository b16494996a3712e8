"""The rule ids scenarios are tagged with: one per rule of the contract (docs/contract.md,
sections 2–16 and 19, each id a heading there). ``tests/scenarios`` fails when one has no
scenario."""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

RULES: Final = MappingProxyType(
    {
        "2.1": "turn boundaries: raw [Tool results] prefix, tool rows belong to their turn",
        "2.2": "leading system rows kept; normalisation merges all system rows",
        "2.3": "breadcrumb after the system prefix, deduplicated by the owner flag",
        "3.1": "token-budget trim drops the fewest oldest whole turns",
        "3.2": "turn-count trim of provider-facing rows keeps a flagged breadcrumb",
        "3.3": "structured turn limit moves system rows first and re-inserts one breadcrumb",
        "3.4": "drop_oldest_whole_turn and the unsatisfiable floor",
        "3.5": "reported-usage trim scales the budget by estimate/reported",
        "3.6": "legacy trim_history: count trim, sweep, normalise, log only",
        "3.7": "edge cases: empty, single turn, cap 0, pre-turn rows",
        "4": "a trim keeps the prefix plus the last k whole turns",
        "5.1": "estimate: ceil(bytes/4) + 4 per message",
        "5.2": "image markers: loadable refs priced 1600, placeholders as text",
        "5.3": "image dispositions: current-turn carriers priced by declared attachments",
        "5.4": "system floor and tool-schema estimates",
        "6": "effective context budget precedence",
        "7": "routes, hints, model switches, unknown capacity on model mismatch",
        "8": "pre-dispatch capacity check, also with budget 0 and for the summary request",
        "9.proactive": "proactive trim at iteration 0 and when route/budget changes",
        "9.reported": "reported-usage trim after a reply over budget",
        "9.reactive": "reactive trim on a provider overflow",
        "9.turn_limit": "turn-limit trim after each turn and on seeding",
        "9.legacy": "legacy run: count trim after each turn, logged only",
        "9.channel": "channel overflow compacts the sender cache",
        "9.provider_wrapper": "provider wrapper halves the request once on an overflow, silently",
        "10": "reactive recovery: 2/3 target, one iteration per attempt, error surfaced",
        "11": "max_history_messages: whole turns, default 50, 0 keeps the newest turn",
        "12": "channel caches: row FIFO, 0 means 50",
        "13": "HistoryTrimmed: fields, reasons, exactly once per trim",
        "14": "legacy agent::run: no breadcrumb or event for the count trim",
        "15": "orphan sweep before each iteration",
        "16": "max_tool_result_chars truncation when a result is recorded",
        "19.1": "recovery targets: 2/3 of estimate in the tool loop, 9/10 of window outside",
        "19.2": "reactive and reported-usage trims insert the breadcrumb, reason budget",
        "19.3": "boundary raw prefix vs carrier detection after whitespace",
        "19.4": "count trimmer keeps the crumb; conversation trimmer re-inserts",
        "19.5": "late system rows",
        "19.6": "HistoryTrimmed carries dropped_turns, tokens, budget, trigger, route",
        "19.7": "compatibility stub: max_context_tokens is the window operand and capacity",
        "19.8": "capacity check operands and ContextCapacityExceeded",
        "19.9": "current-turn carriers priced by body bytes plus declared images",
        "19.10": "overflow classification: reference and extended classifiers",
    }
)
