"""Prompt caching as each provider does it: a prefix store and one policy per provider.

A request is seen as a chain of prefixes at block boundaries (``fakes.simulations.prefix_chain``):
boundary 0 is the tool schemas alone, boundary ``k`` the schemas and the first ``k`` rows
(the order every provider documents caching in: tools, system, messages). Each boundary
has a digest (a hash chain over the blocks, so equal digests mean equal prefixes) and a
token count (the fake's own counter). Real providers cache at token granularity; the fakes match
whole blocks, since the runtime only ever changes a history by whole rows.

The store is keyed by ``(cache key, model)``: the request's explicit key (OpenAI
``prompt_cache_key``) or a trimscope header (``CACHE_KEY_HEADERS``), else one shared
key. Entries carry an expiry on the fake's clock (injectable, so scenarios are
deterministic); both the keys and the entries per key are LRU-bounded. Which rules apply
(minimum lengths, granularity, lifetimes, explicit breakpoints) is per provider: see
``docs/caching.md`` for each number and where it was published.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from fakes.counting.counters import TokenCount, TokenCounter
from fakes.rows import CanonicalRequest
from fakes.scripting.script import UsageReport
from fakes.simulations.prefix_chain import Prefix, RowCosts, prefixes

CachePolicyName: TypeAlias = Literal[
    "none", "openai", "anthropic", "gemini", "deepseek", "llamacpp"
]
CACHE_POLICY_NAMES: Final[tuple[CachePolicyName, ...]] = (
    "none",
    "openai",
    "anthropic",
    "gemini",
    "deepseek",
    "llamacpp",
)
CACHE_KEY_HEADERS: Final = ("x-trimscope-cache-key", "x-trimscope-load-session")
"""Headers naming the cache a request belongs to (a load run's session header among them:
every session is one conversation, as a ``prompt_cache_key`` would say)."""

DEFAULT_MAX_KEYS: Final = 4096
DEFAULT_MAX_ENTRIES_PER_KEY: Final = 1024

OPENAI_MIN_TOKENS: Final = 1024
OPENAI_GRANULARITY: Final = 128
OPENAI_TTL_SECONDS: Final = 600.0  # "cleared after 5-10 minutes of inactivity": the upper end
ANTHROPIC_MAX_BREAKPOINTS: Final = 4
ANTHROPIC_LOOKBACK_BLOCKS: Final = 20
ANTHROPIC_TTL_SECONDS: Final[Mapping[str, float]] = {"5m": 300.0, "1h": 3600.0}
ANTHROPIC_DEFAULT_TTL: Final = "5m"
ANTHROPIC_DEFAULT_MIN_TOKENS: Final = 1024
GEMINI_DEFAULT_MIN_TOKENS: Final = 2048
GEMINI_TTL_SECONDS: Final = 300.0  # not published for implicit caching: an assumption
DEEPSEEK_TTL_SECONDS: Final = 3600.0  # "hours to days" unused: the low end, an assumption

# Minimum cacheable prompt per model family, the most specific prefix first.
ANTHROPIC_MIN_TOKENS: Final[tuple[tuple[str, int], ...]] = (
    ("claude-opus-4-6", 4096),
    ("claude-opus-4-5", 4096),
    ("claude-haiku-4-5", 4096),
    ("claude-3-5-haiku", 2048),
    ("claude-3-haiku", 2048),
    ("claude-", 1024),
)
GEMINI_MIN_TOKENS: Final[tuple[tuple[str, int], ...]] = (
    ("gemini-2.5", 2048),
    ("gemini-3", 4096),
)

_POLICY_BY_PROVIDER: Final[Mapping[str, CachePolicyName]] = {
    "openai": "openai",
    "azure": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "deepseek": "deepseek",
    "llamacpp": "llamacpp",
}


def default_policy(provider: str) -> CachePolicyName:
    """The caching a provider's fake does by default (``none`` where not modelled)."""
    return _POLICY_BY_PROVIDER.get(provider, "none")


def min_tokens_for(model: str, table: tuple[tuple[str, int], ...], default: int) -> int:
    for prefix, minimum in table:
        if model.startswith(prefix):
            return minimum
    return default


@dataclass(frozen=True, slots=True)
class Breakpoint:
    """An explicit cache breakpoint (Anthropic ``cache_control``) after ``boundary``."""

    boundary: int
    ttl: str = ANTHROPIC_DEFAULT_TTL


@dataclass(frozen=True, slots=True)
class CacheUsage:
    """Input tokens read from the cache and written to it by one request."""

    read: int = 0
    written: int = 0


NO_CACHE: Final = CacheUsage()


@dataclass(slots=True)
class _Entry:
    tokens: int
    expires: float


class PrefixStore:
    """Live cached prefixes per ``(key, model)``, LRU-bounded in keys and entries."""

    def __init__(
        self,
        *,
        max_keys: int = DEFAULT_MAX_KEYS,
        max_entries: int = DEFAULT_MAX_ENTRIES_PER_KEY,
        row_costs: RowCosts | None = None,
    ) -> None:
        if max_keys <= 0 or max_entries <= 0:
            raise ValueError("max_keys and max_entries must be positive")
        self.max_keys = max_keys
        self.max_entries = max_entries
        self.row_costs = row_costs  # None: the process-wide cache of ``prefixes``
        self._lock = threading.Lock()
        self._stores: OrderedDict[tuple[str, str], OrderedDict[int, _Entry]] = OrderedDict()

    def clear(self) -> None:
        with self._lock:
            self._stores.clear()

    def key_count(self) -> int:
        with self._lock:
            return len(self._stores)

    def entry_count(self) -> int:
        with self._lock:
            return sum(len(s) for s in self._stores.values())

    def _store(self, key: tuple[str, str]) -> OrderedDict[int, _Entry]:
        store = self._stores.pop(key, None)
        if store is None:
            store = OrderedDict()
        self._stores[key] = store  # most recently used last
        while len(self._stores) > self.max_keys:
            self._stores.popitem(last=False)
        return store

    def live(self, key: tuple[str, str], digest: int, now: float) -> _Entry | None:
        with self._lock:
            store = self._store(key)
            entry = store.get(digest)
            if entry is None:
                return None
            if entry.expires <= now:
                del store[digest]
                return None
            return entry

    def longest_live(
        self, key: tuple[str, str], chain: Sequence[Prefix], now: float
    ) -> Prefix | None:
        """The longest prefix of ``chain`` stored and live under ``key`` (one lock and
        one key lookup for the whole chain: ``live`` per prefix cost both each time)."""
        with self._lock:
            store = self._store(key)
            for prefix in reversed(chain):
                entry = store.get(prefix.digest)
                if entry is None:
                    continue
                if entry.expires <= now:
                    del store[prefix.digest]
                    continue
                return prefix
        return None

    def put(self, key: tuple[str, str], prefix: Prefix, expires: float) -> None:
        """Store (or refresh) ``prefix``; a refresh never shortens a lifetime."""
        self.put_all(key, (prefix,), expires)

    def put_all(self, key: tuple[str, str], chain: Sequence[Prefix], expires: float) -> None:
        """``put`` of every prefix of ``chain`` in order, under one lock."""
        with self._lock:
            store = self._store(key)
            for prefix in chain:
                entry = store.pop(prefix.digest, None)
                if entry is None:
                    entry = _Entry(prefix.tokens, expires)
                elif entry.expires < expires:
                    entry.expires = expires
                store[prefix.digest] = entry
            while len(store) > self.max_entries:  # the chain's digests are distinct
                store.popitem(last=False)

    def replace(self, key: tuple[str, str], chain: Sequence[Prefix], expires: float) -> None:
        """Forget the key's entries, then store ``chain`` (a single slot's cache)."""
        with self._lock:
            self._stores.pop(key, None)
        self.put_all(key, chain[-self.max_entries :], expires)


@dataclass(frozen=True, slots=True)
class CacheRequest:
    """What a policy needs: the store key, the prefixes, breakpoints, the time."""

    key: tuple[str, str]
    chain: tuple[Prefix, ...]
    model: str
    now: float
    breakpoints: tuple[Breakpoint, ...] = ()


Policy = Callable[[PrefixStore, CacheRequest], CacheUsage]


def _longest_live(store: PrefixStore, req: CacheRequest, upto: int | None = None) -> Prefix | None:
    """The longest live stored prefix of the request (at most ``upto`` as a boundary)."""
    chain = req.chain if upto is None else req.chain[: upto + 1]
    return store.longest_live(req.key, chain, req.now)


def _implicit(
    store: PrefixStore, req: CacheRequest, minimum: int, granularity: int, ttl: float
) -> CacheUsage:
    """OpenAI and Gemini: every prefix of a long enough prompt is cached; a hit is the
    longest live one, rounded down to ``minimum + k × granularity``."""
    total = req.chain[-1].tokens
    if total < minimum:
        return NO_CACHE
    hit = _longest_live(store, req)
    read = 0
    if hit is not None and hit.tokens >= minimum:
        read = minimum + (hit.tokens - minimum) // granularity * granularity
    cached = [prefix for prefix in req.chain if prefix.tokens >= minimum]
    store.put_all(req.key, cached, req.now + ttl)
    return CacheUsage(read=read)


def openai_policy(store: PrefixStore, req: CacheRequest) -> CacheUsage:
    return _implicit(store, req, OPENAI_MIN_TOKENS, OPENAI_GRANULARITY, OPENAI_TTL_SECONDS)


def gemini_policy(store: PrefixStore, req: CacheRequest) -> CacheUsage:
    minimum = min_tokens_for(req.model, GEMINI_MIN_TOKENS, GEMINI_DEFAULT_MIN_TOKENS)
    return _implicit(store, req, minimum, 1, GEMINI_TTL_SECONDS)


def anthropic_policy(store: PrefixStore, req: CacheRequest) -> CacheUsage:
    """Explicit breakpoints: a read is the longest live entry at a breakpoint or up to
    ``ANTHROPIC_LOOKBACK_BLOCKS`` boundaries before one; the furthest breakpoint long
    enough to cache is written (its tokens beyond the read are cache writes). Entries
    exist only where a breakpoint was placed; a read refreshes an entry's lifetime."""
    minimum = min_tokens_for(req.model, ANTHROPIC_MIN_TOKENS, ANTHROPIC_DEFAULT_MIN_TOKENS)
    best: Prefix | None = None
    for point in req.breakpoints:
        low = max(0, point.boundary - ANTHROPIC_LOOKBACK_BLOCKS)
        for prefix in reversed(req.chain[low : point.boundary + 1]):
            if best is not None and prefix.tokens <= best.tokens:
                break
            if store.live(req.key, prefix.digest, req.now) is not None:
                best = prefix
                break
    read = best.tokens if best is not None else 0
    written = 0
    for point in req.breakpoints:
        prefix = req.chain[point.boundary]
        if prefix.tokens < minimum:
            continue
        store.put(req.key, prefix, req.now + ANTHROPIC_TTL_SECONDS[point.ttl])
        written = max(written, prefix.tokens - read)
    if best is not None:
        store.put(req.key, best, req.now + ANTHROPIC_TTL_SECONDS[ANTHROPIC_DEFAULT_TTL])
    return CacheUsage(read=read, written=written)


def deepseek_policy(store: PrefixStore, req: CacheRequest) -> CacheUsage:
    """Prefix units: a request hits only a whole stored unit. Units are each request's
    whole input, and a common prefix detected between requests (usable from the next
    request on). Every boundary is remembered as *seen* under a separate key so the
    common prefix can be found; only units count as hits."""
    seen_key = (req.key[0] + "\x00seen", req.key[1])
    hit = _longest_live(store, req)
    read = hit.tokens if hit is not None else 0
    seen = store.longest_live(seen_key, req.chain, req.now)
    expires = req.now + DEEPSEEK_TTL_SECONDS
    if seen is not None and (hit is None or seen.tokens > hit.tokens):
        store.put(req.key, seen, expires)
    store.put(req.key, req.chain[-1], expires)
    store.put_all(seen_key, req.chain, expires)
    return CacheUsage(read=read)


def llamacpp_policy(store: PrefixStore, req: CacheRequest) -> CacheUsage:
    """One slot's KV cache: the common prefix with the slot's previous prompt is reused,
    then the slot holds this prompt. No minimum, no lifetime (``inf``)."""
    slot = ("", req.key[1])  # one slot per server, whoever sent the previous prompt
    hit = _longest_live(store, CacheRequest(slot, req.chain, req.model, req.now))
    store.replace(slot, req.chain, float("inf"))
    return CacheUsage(read=hit.tokens if hit is not None else 0)


POLICIES: Final[Mapping[CachePolicyName, Policy | None]] = {
    "none": None,
    "openai": openai_policy,
    "anthropic": anthropic_policy,
    "gemini": gemini_policy,
    "deepseek": deepseek_policy,
    "llamacpp": llamacpp_policy,
}


def cache_key(request: CanonicalRequest, headers: Mapping[str, str]) -> str:
    explicit = request.options.get("prompt_cache_key")
    if isinstance(explicit, str):
        return explicit
    for header in CACHE_KEY_HEADERS:
        value = headers.get(header)
        if value is not None:
            return value
    return ""


def breakpoints_of(request: CanonicalRequest) -> tuple[Breakpoint, ...]:
    value = request.options.get("cache_breakpoints")
    return value if isinstance(value, tuple) else ()


def simulate(
    policy_name: CachePolicyName,
    store: PrefixStore,
    counter: TokenCounter,
    request: CanonicalRequest,
    tokens: TokenCount,
    *,
    headers: Mapping[str, str],
    now: float,
) -> CacheUsage:
    """Run ``request`` through the named policy: what it reads and writes, remembered."""
    policy = POLICIES[policy_name]
    if policy is None:
        return NO_CACHE
    model = request.model
    chain = prefixes(counter, request, tokens.total, store.row_costs, tokens.tools)
    key = (cache_key(request, headers), model)
    return policy(store, CacheRequest(key, chain, model, now, breakpoints_of(request)))


def reported_cache(report: UsageReport, cache: CacheUsage, reported: int) -> tuple[int, int]:
    """``(read, written)`` as reported: the script's numbers when it states any, else the
    cache's, within the reported input."""
    if report.cached_tokens or report.cache_creation_tokens:
        return report.cached_tokens, report.cache_creation_tokens
    read = min(cache.read, reported)
    return read, min(cache.written, reported - read)
