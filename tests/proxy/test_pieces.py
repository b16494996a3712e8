"""The proxy's pure pieces: the bounded copy, decoding for the observer within the bound,
what is redacted and what is not, and the upstream URL's rules."""

from __future__ import annotations

import gzip

import pytest

from harness.proxy.capture import BoundedCopy, decoded
from harness.proxy.headers import (
    forward_request_headers,
    redacted_query,
    scrub,
    secret_values,
)
from harness.proxy.upstream import UpstreamError, parse_upstream


def test_the_copy_keeps_the_first_bytes_in_their_chunks_and_counts_them_all() -> None:
    copy = BoundedCopy(5)
    for chunk in (b"abc", b"def", b"ghi"):
        copy.add(chunk)
    assert (copy.chunks, copy.total, copy.truncated) == ([b"abc", b"de"], 9, True)


def test_a_small_gzip_body_that_inflates_past_the_bound_is_not_decoded() -> None:
    bomb = gzip.compress(b"\0" * 4_000_000)  # 4 MB from about 4 KB
    assert len(bomb) < 10_000
    assert decoded(bomb, "gzip", limit=1_000_000) is None
    assert decoded(bomb, "gzip", limit=4_000_000) == b"\0" * 4_000_000
    assert decoded(b"raw", "br", limit=100) is None  # not decoded here: unobservable
    assert decoded(b"raw", "", limit=100) == b"raw"


def test_a_masked_echo_is_redacted_only_when_it_masks_a_key_of_the_request() -> None:
    key = b"sk-proj-abcdefghijklmnop"
    secrets = secret_values([(b"authorization", b"Bearer " + key)], {})
    assert key in secrets
    echoed = b"Incorrect API key provided: sk-proj-************mnop. Password: ****."
    assert scrub(echoed, secrets) == b"Incorrect API key provided: [redacted]. Password: ****."
    assert scrub(b"a **** b", secrets) == b"a **** b"


def test_key_query_parameters_are_redacted_and_the_rest_kept() -> None:
    assert redacted_query(b"alt=sse&key=AIzaSECRET") == "alt=sse&key=%5Bredacted%5D"
    assert secret_values([], {"key": ["AIzaSECRET"]}) == (b"AIzaSECRET",)


def test_headers_named_by_connection_are_hop_by_hop_too() -> None:
    sent = [(b"Connection", b"close, X-Trace"), (b"X-Trace", b"1"), (b"Host", b"proxy"),
            (b"Authorization", b"Bearer k"), (b"Upgrade", b"h2c")]  # fmt: skip
    assert forward_request_headers(sent) == [(b"Authorization", b"Bearer k")]


@pytest.mark.parametrize(
    ("url", "why"),
    [("ftp://h/v1", "scheme"), ("http:///v1", "no host"), ("http://u:k@h/v1", "user info"),
     ("http://h/v1?a=1", "query"), ("http://h:99999", "not a URL")],
)  # fmt: skip
def test_an_upstream_that_is_not_a_base_url_is_refused_saying_why(url: str, why: str) -> None:
    with pytest.raises(UpstreamError, match=why):
        parse_upstream(url)


def test_an_ipv6_upstream_keeps_its_brackets() -> None:
    upstream = parse_upstream("http://[::1]:8001/v1/")
    assert (upstream.origin, upstream.prefix) == ("http://[::1]:8001", "/v1")
