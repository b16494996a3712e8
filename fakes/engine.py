"""The decision core of a fake: from a request's bytes to the answer a provider would give.

Order, per generation request: the script's step for this call is taken; the body is
parsed, checked as the real API checks it (``fakes.serving.request_checks``), its OpenAI
Responses ``previous_response_id`` resolved from the fake's stored responses, and
decoded (tool pairing checked); a script with ``when`` steps chooses its
step now, from the decoded request; a scripted ``server_error`` / ``rate_limit``
/ ``look_alike`` answers first (infrastructure errors precede validation); then an
invalid request or an unknown model is rejected; then the request is counted and, over
the window (or when the step forces it), gets the provider's overflow answer; otherwise
a reply is planned from the step and rendered, and ``malformed_json`` /
``drop_mid_stream`` / ``hang`` shape how it is delivered. A Responses answer is then
kept in the store unless the request said ``store: false``.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from fakes.catalogue import OverflowEntry, WireName, overflow_entries, overflow_entry
from fakes.counting.counters import (
    CounterName,
    TokenCount,
    TokenCounter,
    get_counter,
)
from fakes.engine_rules import STREAMING_WIRES, BodyIds, body_numbers, exceeds, stream_media
from fakes.fake_model import FakeModel
from fakes.profiles import ProviderProfile, profile
from fakes.rows import CanonicalRequest
from fakes.scripting.planning import planned_calls, reported_usage
from fakes.scripting.script import FakeBehaviour, FakeScript, Fault
from fakes.scripting.script_follow import ScriptCursor
from fakes.scripting.templates import render
from fakes.serving.answer import Answer
from fakes.serving.auth import auth_answer
from fakes.serving.faults import fault_answer, shape, with_drawn_fault
from fakes.serving.log import Outcome, RequestLog
from fakes.serving.request_checks import check_request
from fakes.simulations import caching as prompt_cache
from fakes.simulations.prefix_chain import counted_rows
from fakes.simulations.provider_side import (
    DEFAULT_PROVIDER_SIDE,
    Edited,
    ProviderSide,
    decorate,
    prepare,
)
from fakes.simulations.responses_store import ResponseStore, settle
from fakes.wire import wire_for
from fakes.wire.base import (
    ReplyPlan,
    RequestContext,
    StopReason,
    WireError,
    WireFormat,
)
from fakes.wire.common import Invalid

_BAD_JSON = (
    "We could not parse the JSON body of your request. The API expects a JSON payload, but "
    "what was sent was not valid JSON."
)
_NAMESPACE = uuid.UUID("6f2b7d43-3c5e-4a8e-9d7c-2a1f5b0c9e11")


@dataclass(frozen=True, slots=True)
class _Decoded:
    request: CanonicalRequest | None
    rejection: Answer | None
    edited: Edited | None = None
    sent: Any = None
    resolved: Any = None


class FakeProvider:
    """One fake provider instance: profile, model, counter, overflow variant, script, log.

    Thread-safe: calls are numbered under a lock; the log has its own.
    ``provider_side`` (set after construction) says how the fake treats provider-side
    context management (``fakes.simulations.provider_side``).
    """

    provider_side: ProviderSide = DEFAULT_PROVIDER_SIDE

    def __init__(
        self,
        provider: str | ProviderProfile,
        model: str | FakeModel = "fake-model",
        *,
        context_window: int | None = None,
        counter: CounterName | str = "heuristic",
        script: FakeScript | None = None,
        variant: str = "default",
        clock: Callable[[], float] = time.time,
        caching: prompt_cache.CachePolicyName | None = None,
        cache_store: prompt_cache.PrefixStore | None = None,
    ) -> None:
        self.profile = profile(provider) if isinstance(provider, str) else provider
        if isinstance(model, str):
            model = FakeModel(model, context_window or self.profile.default_window)
        elif context_window is not None:
            model = replace(model, context_window=context_window)
        self.model: FakeModel = model
        self.counter: TokenCounter = get_counter(counter, model.name)
        self.script = script or FakeScript()
        self._cursor = ScriptCursor(self.script)  # where a ``when`` script is
        self.variant = variant
        self.clock = clock
        # Prompt caching as the provider does it (``fakes.simulations.caching``); ``none``
        # turns it off.
        self.caching = caching or prompt_cache.default_policy(self.profile.name)
        self.cache_store = cache_store or prompt_cache.PrefixStore()
        self.responses = ResponseStore()  # OpenAI Responses' stored responses
        self.log = RequestLog()
        self._lock = threading.Lock()
        self._calls = 0
        self._check_variant(variant)

    def _check_variant(self, variant: str) -> None:
        variants = {e.variant for e in overflow_entries(self.profile.name)}
        if variant not in variants:
            known = ", ".join(sorted(variants))
            raise ValueError(f"{self.profile.name} has no overflow variant {variant!r}: {known}")

    def reset(self, *, script: FakeScript | None = None, variant: str | None = None) -> None:
        """Start over (call numbering, log, cache); optionally a new script or variant."""
        with self._lock:
            if variant is not None:
                self._check_variant(variant)
                self.variant = variant
            if script is not None:
                self.script = script
            self._calls = 0
            self._cursor = ScriptCursor(self.script)
            self.log.clear()
            self.cache_store.clear()
            self.responses.clear()

    calls_taken = property(lambda self: self._calls, doc="Calls numbered so far.")

    def take_call(self) -> tuple[int, FakeBehaviour]:
        """The call's number and its step by call count (a script with ``when`` steps
        chooses again in ``answer``, once the request is decoded)."""
        with self._lock:
            index = self._calls
            self._calls += 1
        return index, self.script.behaviour_for(index)

    def follow(self, request: CanonicalRequest | None) -> FakeBehaviour:
        """The step of a ``when`` script that answers this request
        (``fakes.scripting.script_follow``)."""
        with self._lock:
            if self._cursor.script is not self.script:  # the script was replaced
                self._cursor = ScriptCursor(self.script)
            cursor = self._cursor
        return cursor.choose(request)

    def ids(self, index: int) -> tuple[str, str]:
        """``(uuid, request_id)`` for call ``index``: deterministic per model and call."""
        value = uuid.uuid5(_NAMESPACE, f"{self.profile.name}/{self.model.name}/{index}")
        return str(value), f"req_011C{value.hex[:22]}"

    def window_for(self, request: CanonicalRequest | None) -> int:
        num_ctx = request.options.get("num_ctx") if request else None
        return num_ctx if isinstance(num_ctx, int) else self.model.context_window

    def count(self, request: CanonicalRequest) -> TokenCount:  # row costs kept for the chain
        rows = counted_rows(self.counter, request.rows, self.cache_store.row_costs)
        return TokenCount(rows, self.counter.count_tools(request.tools))

    def wire(self, name: WireName) -> WireFormat:
        return wire_for(name, self.profile.flavor)

    # -- decoding ---------------------------------------------------------------------

    def decode(self, wire: WireFormat, raw: bytes, ctx: RequestContext) -> _Decoded:
        try:
            body: Any = json.loads(raw)
            check_request(self.profile.name, wire.name, body, ctx.path_model)
            resolved = self.responses.resolve(body) if wire.name == "openai_responses" else body
            edited = self.edit(wire, resolved, ctx)
            request = wire.decode(edited.body, ctx)
        except WireError as error:
            return _Decoded(None, self._rejected(error))
        except (Invalid, ValueError) as error:
            message = _BAD_JSON if isinstance(error, json.JSONDecodeError) else str(error)
            status_body = wire.error(400, "invalid_request", message)
            headers = wire.error_headers("invalid_request")
            return _Decoded(
                None, Answer(400, status_body, headers, outcome="rejected", detail=message)
            )
        if self.profile.checks_model and request.model != self.model.name:
            return _Decoded(None, self._rejected(wire.unknown_model(request.model)))
        return _Decoded(request, None, edited, body, resolved)

    def edit(self, wire: WireFormat, body: Any, ctx: RequestContext) -> Edited:
        """The body as the model sees it once provider-side edits are applied."""
        window, side = self.model.context_window, self.provider_side
        count = lambda edited: self.count(wire.decode(edited, ctx)).total  # noqa: E731
        count_text = self.counter.count_text
        return prepare(wire.name, body, ctx.headers, count, count_text, window=window, side=side)

    def _rejected(self, error: WireError) -> Answer:
        return Answer(
            error.status, error.body, error.headers, outcome="rejected", detail=error.detail
        )

    # -- the answer -------------------------------------------------------------------

    def answer(
        self,
        wire: WireFormat,
        raw: bytes,
        ctx: RequestContext,
        index: int,
        behaviour: FakeBehaviour,
    ) -> Answer:
        decoded = self.decode(wire, raw, ctx)
        request = decoded.request
        behaviour = self.follow(request) if self.script.follows else behaviour
        behaviour = with_drawn_fault(behaviour, self.script.faults, index)
        tokens = self.count(request) if request else None
        if behaviour.fault is not None and behaviour.fault.kind == "auth":
            answer = auth_answer(wire.name, ctx.headers)  # the key is checked before the body
        else:
            answer = self._decide(wire, decoded, tokens, index, behaviour=behaviour, ctx=ctx)
        answer = decorate(answer, decoded.edited)
        if wire.name == "openai_responses" and request is not None:
            answer = settle(self.responses, decoded.sent, decoded.resolved, answer)
        rows = request.rows if request else ()
        return replace(
            answer,
            tokens=tokens,
            window=self.window_for(request),
            rows=rows,
            latency_ms=behaviour.latency_ms,
        )

    def _decide(
        self,
        wire: WireFormat,
        decoded: _Decoded,
        tokens: TokenCount | None,
        index: int,
        *,
        behaviour: FakeBehaviour,
        ctx: RequestContext,
    ) -> Answer:
        request, fault = decoded.request, behaviour.fault
        if fault and fault.kind in ("server_error", "rate_limit", "look_alike"):
            return self._fault(wire, fault, index, request, tokens)
        if request is None or tokens is None:
            assert decoded.rejection is not None
            return decoded.rejection
        entry = self.judge(wire, request, tokens, forced=bool(fault and fault.kind == "overflow"))
        cache = prompt_cache.NO_CACHE  # a refused overflow caches nothing
        if entry is None or entry.delivery != "error":
            cache = prompt_cache.simulate(
                self.caching,
                self.cache_store,
                self.counter,
                request,
                tokens,
                headers=ctx.headers,
                now=self.clock(),
            )
        plan = self.plan(
            wire, request, tokens, entry, behaviour=behaviour, index=index, cache=cache
        )
        if entry is not None and entry.delivery == "error":
            return self._overflow(wire, request, tokens, entry, plan=plan, index=index)
        answer = self._reply(wire, request, plan)
        outcome: dict[str, Outcome] = {
            "truncate": "truncated",
            "silent": "silent_overflow",
            "stop": "overflow",
        }
        answer = replace(
            answer,
            outcome=outcome.get(entry.delivery, "reply") if entry else "reply",
            variant=entry.variant if entry else None,
        )
        return shape(answer, fault) if fault else answer

    def judge(
        self, wire: WireFormat, request: CanonicalRequest, tokens: TokenCount, *, forced: bool
    ) -> OverflowEntry | None:
        """The overflow entry this request triggers, or ``None`` when it fits."""
        window = self.window_for(request)
        completion = request.max_output_tokens or 0
        entry = self.entry(wire.name, self.variant)
        if forced or exceeds(entry, tokens.total, completion, window):
            return entry
        if self.profile.output_variant and tokens.total + completion > window:
            stop = request.options.get("context_window_stop") is True
            return self.entry(
                wire.name, "context_window_stop" if stop else self.profile.output_variant
            )
        return None

    def entry(self, wire: WireName, variant: str) -> OverflowEntry:
        try:
            return overflow_entry(self.profile.name, wire, variant)
        except KeyError:
            return overflow_entry(self.profile.name, wire, "default")

    def numbers(
        self,
        request: CanonicalRequest | None,
        tokens: TokenCount | None,
        entry: OverflowEntry | None,
        index: int,
        retry_after: int = 1,
    ) -> dict[str, object]:
        uid, request_id = self.ids(index)
        model = request.model if request and request.model else self.model.name
        ids = BodyIds(model, request_id, uid, retry_after)
        return body_numbers(request, tokens, entry, self.window_for(request), ids)

    def _fault(
        self,
        wire: WireFormat,
        fault: Fault,
        index: int,
        request: CanonicalRequest | None,
        tokens: TokenCount | None,
    ) -> Answer:
        return fault_answer(
            wire, fault, self.numbers(request, tokens, None, index, fault.retry_after)
        )

    def _overflow(
        self,
        wire: WireFormat,
        request: CanonicalRequest,
        tokens: TokenCount,
        entry: OverflowEntry,
        *,
        plan: ReplyPlan,
        index: int,
    ) -> Answer:
        numbers = self.numbers(request, tokens, entry, index)
        headers = {k: v.format_map(numbers) for k, v in entry.headers.items()}
        window = self.window_for(request)
        if request.stream and entry.stream_event is not None:
            events = wire.stream_error(plan, render(entry.stream_event, numbers))
            answer = Answer(200, None, headers, events, wire.stream_media)
        else:
            answer = Answer(entry.status, render(entry.body, numbers), headers)
        return replace(
            answer, tokens=tokens, window=window, outcome="overflow", variant=entry.variant
        )

    def plan(
        self,
        wire: WireFormat,
        request: CanonicalRequest,
        tokens: TokenCount,
        entry: OverflowEntry | None,
        *,
        behaviour: FakeBehaviour,
        index: int,
        cache: prompt_cache.CacheUsage = prompt_cache.NO_CACHE,
    ) -> ReplyPlan:
        reply = behaviour.reply
        calls = planned_calls(wire, behaviour, index)
        window = self.window_for(request)
        truncated = entry is not None and entry.delivery == "truncate"
        actual = min(tokens.total, window) if truncated else tokens.total
        usage = reported_usage(self.counter, behaviour, actual, calls, cache)
        stop: StopReason = "tool_calls" if calls else "stop"
        if entry and entry.delivery == "stop":
            stop = "context_window"
            usage = replace(usage, output_tokens=max(0, window - tokens.total))
        return ReplyPlan(
            index=index,
            model=request.model or self.model.name,
            text=reply.text,
            tool_calls=calls,
            usage=usage,
            stop=stop,
            created=int(self.clock()),
            response_id=f"{wire.response_id_prefix}fake{self.ids(index)[0].replace('-', '')[:24]}",
            include_stream_usage=request.options.get("include_usage") is True
            or wire.name != "openai_chat",
            obfuscate=request.options.get("include_obfuscation") is not False,
            options=request.options,
        )

    def _reply(self, wire: WireFormat, request: CanonicalRequest, plan: ReplyPlan) -> Answer:
        if request.stream and wire.name in STREAMING_WIRES:
            return Answer(200, events=wire.stream(plan), media=stream_media(wire, request))
        return Answer(200, wire.reply(plan))
