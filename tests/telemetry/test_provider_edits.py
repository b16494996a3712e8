"""Provider-side context edits in telemetry: a span event and ``gen_ai.conversation.compacted``
on the call, counters by edit kind next to the client-side trims' (issue 17)."""

from __future__ import annotations

from harness.events import TrimTrigger
from harness.telemetry import names as n
from tests.telemetry.conftest import Harness
from tests.telemetry.metrics_text import value
from tests.telemetry.scripted import MODEL, PROVIDER, Script

CHAT = f"chat {MODEL}"


def _session() -> Script:
    script = Script()
    script.turn()
    cleared = script.call(5000)
    script.provider_edit(cleared, "clear_tool_uses", cleared=1200)
    failed = script.call(5000)
    script.provider_edit(failed, "compaction", compaction="failed")
    compacted = script.call(5000)
    script.provider_edit(
        compacted, "compaction", compaction="compacted", compaction_tokens=(52_000, 900)
    )
    script.trim(TrimTrigger.REPORTED_USAGE)
    script.end_turn()
    return script


def test_an_edit_marks_its_call_compacted_and_a_failed_compaction_does_not(
    harness: Harness,
) -> None:
    harness.publish(_session().events)
    calls = {str(s.attributes[n.ATTR_CALL_ID]): s for s in harness.spans_named(CHAT)}  # type: ignore[index]
    compacted = {
        call_id: (span.attributes or {}).get(n.GEN_AI_CONVERSATION_COMPACTED)
        for call_id, span in calls.items()
    }
    assert compacted == {"s1-c1": True, "s1-c2": None, "s1-c3": True}
    [event] = [e for e in calls["s1-c1"].events if e.name == n.EVENT_PROVIDER_CONTEXT_EDITED]
    assert event.attributes is not None
    assert event.attributes[n.ATTR_PROVIDER_EDIT] == "clear_tool_uses"
    assert event.attributes[n.ATTR_PROVIDER_EDIT_CLEARED_TOKENS] == 1200
    assert event.attributes[n.ATTR_PROVIDER_EDIT_TRIGGER] == "input_tokens>4000"
    assert n.ATTR_PROVIDER_EDIT_COMPACTION_INPUT not in event.attributes
    [step] = [e for e in calls["s1-c3"].events if e.name == n.EVENT_PROVIDER_CONTEXT_EDITED]
    assert step.attributes is not None
    assert step.attributes[n.ATTR_PROVIDER_EDIT_COMPACTION_INPUT] == 52_000
    assert step.attributes[n.ATTR_PROVIDER_EDIT_COMPACTION_OUTPUT] == 900


def test_edits_and_their_tokens_are_counted_by_kind_beside_client_trims(
    harness: Harness,
) -> None:
    harness.publish(_session().events)
    edits = n.PROVIDER_EDITS.name
    assert (
        value(harness.registry, edits, edit="clear_tool_uses", outcome="applied", provider=PROVIDER)
        == 1
    )
    assert (
        value(harness.registry, edits, edit="compaction", outcome="failed", provider=PROVIDER) == 1
    )
    assert (
        value(harness.registry, edits, edit="compaction", outcome="compacted", provider=PROVIDER)
        == 1
    )
    cleared = n.PROVIDER_CLEARED_TOKENS.name
    assert value(harness.registry, cleared, edit="clear_tool_uses", provider=PROVIDER) == 1200
    trimmed = n.TRIMMED_TOKENS.name
    assert value(harness.registry, trimmed, trigger="reported_usage", provider=PROVIDER) == 2000
    compaction = n.PROVIDER_COMPACTION_TOKENS.name
    assert value(harness.registry, compaction, token_type="input", provider=PROVIDER) == 52_000
    assert value(harness.registry, compaction, token_type="output", provider=PROVIDER) == 900


def test_a_failed_endpoint_compaction_says_the_client_trim_took_over(harness: Harness) -> None:
    """The agent's own ``/responses/compact`` call is no generation call: its event has no
    call span and lands on the agent's, with the fallback and without marking a call."""
    script = Script()
    script.turn()
    script.call(100)
    script.provider_edit("s1-compact", "compaction", compaction="failed", fallback="client_trim")
    script.trim(TrimTrigger.PROACTIVE)
    script.call(100)
    script.end_turn()
    harness.publish(script.events)
    found = [
        (span.name, event.attributes or {})
        for span in harness.spans
        for event in span.events
        if event.name == n.EVENT_PROVIDER_CONTEXT_EDITED
    ]
    [(span_name, attributes)] = found
    assert span_name != CHAT
    assert attributes[n.ATTR_PROVIDER_EDIT_FALLBACK] == "client_trim"
    assert attributes[n.ATTR_PROVIDER_EDIT_COMPACTION] == "failed"
    chats = harness.spans_named(CHAT)
    assert all(n.GEN_AI_CONVERSATION_COMPACTED not in (s.attributes or {}) for s in chats)
