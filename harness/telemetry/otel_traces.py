"""Which trace each session's latest span belongs to, for the OTel observer: its
``trace_id_of`` and the exemplar labels the metrics observer attaches (a module of its own, to
keep ``otel.py`` small)."""

from __future__ import annotations

from collections import OrderedDict

from opentelemetry import trace
from opentelemetry.trace import Span

from harness.telemetry import names as n

DEFAULT_MAX_SESSIONS = 10_000
"""Sessions whose last trace id is remembered for exemplars (the one whose trace id changed
least recently is forgotten first)."""


class SessionTraces:
    """Per session, the latest trace id and its exemplar labels, for at most ``max_sessions``
    sessions. Not locked: the observer calls it under its own lock."""

    __slots__ = ("_max_sessions", "exemplars", "last")

    def __init__(self, max_sessions: int = DEFAULT_MAX_SESSIONS) -> None:
        self._max_sessions = max_sessions
        # session id -> (trace id, its hex form), in the order the trace ids last changed
        self.last: OrderedDict[str, tuple[int, str | None]] = OrderedDict()
        # session id -> exemplar labels of its latest trace, when that one was recorded
        self.exemplars: dict[str, dict[str, str]] = {}

    def remember(self, session_id: str, span: Span) -> int:
        """Note the session's trace id for ``trace_id_of``: stored (and formatted) only when
        it differs from the one stored, so the spans and span events of one turn (one trace)
        cost a lookup each. Returns the span's trace id (kept with the span for that
        lookup)."""
        context = span.get_span_context()
        trace_id: int = context.trace_id
        known = self.last.get(session_id)
        if (known is not None and known[0] == trace_id) or not trace_id:
            return trace_id
        last = self.last
        # A trace the sampler dropped is remembered as none: an exemplar must link to a
        # trace that exists, never to an older one of the session.
        hex_id = trace.format_trace_id(trace_id) if context.trace_flags.sampled else None
        last[session_id] = (trace_id, hex_id)
        last.move_to_end(session_id)
        exemplars = self.exemplars
        if hex_id is None:
            exemplars.pop(session_id, None)
        else:  # a new dict: the client keeps the one it was given and never changes it
            exemplars[session_id] = {n.EXEMPLAR_TRACE_ID: hex_id}
        while len(last) > self._max_sessions:
            exemplars.pop(last.popitem(last=False)[0], None)
        return trace_id
