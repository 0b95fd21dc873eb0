"""What the HTTP pieces of the course share: one home for each constant of the wire, and
`decoded`, an error body undone from its content coding within a cap (the chat relay's
and the record command's).

The replay server, the network helpers, the record command, the SDK checks,
the tests and the benchmarks all import these from here.

    >>> SSE_CONTENT_TYPE
    'text/event-stream; charset=utf-8'
    >>> 1024 <= free_port() <= 65535
    True
"""

from __future__ import annotations

import socket
import zlib

import httpx

HOST = "127.0.0.1"  # the lab's servers listen on this machine only
API_VERSION = "2023-06-01"  # the `anthropic-version` header (Messages API, "Versions")
DEFAULT_MODEL = "claude-haiku-4-5"  # sent in requests; the replay server ignores it
SSE_CONTENT_TYPE = (
    "text/event-stream; charset=utf-8"  # as the Messages API sends it (WHATWG HTML 9.2)
)
MAX_ERROR_BYTES = 64 * 1024  # of an upstream's error body: enough for any API error message


def free_port() -> int:
    """A TCP port of 127.0.0.1 (int) that is free right now.

    Free only now: whoever binds it next (nginx, a `serve` process) does so a
    moment later, so a busy machine could take it in between. When you bind the
    socket yourself, bind port 0 instead (as `ReplayServer` does).
    """
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def decoded(raw: bytes, coding: str | None, cap: int = MAX_ERROR_BYTES) -> bytes:
    """`raw` undone from its `content-encoding` `coding`, to at most `cap` bytes: as it is
    without one (or `identity`), decompressed for gzip or deflate (what a cut stream
    holds), else b"" (a coding this reader does not undo, or a body that is not one).

    >>> import gzip
    >>> len(decoded(gzip.compress(bytes(10_000_000)), "gzip", cap=100))
    100
    """
    coding = (coding or "identity").strip().lower()
    if coding == "identity":
        return raw
    if coding not in ("gzip", "x-gzip", "deflate"):
        return b""
    # wbits: 47 reads a gzip or a zlib header; a raw deflate stream (some servers' "deflate")
    # has none.
    for wbits in (47, -15):
        try:
            return zlib.decompressobj(wbits).decompress(raw, cap)
        except zlib.error:
            continue
    return b""


def error_body(response: httpx.Response) -> bytes:
    """The first MAX_ERROR_BYTES of an error `response`'s body, read as sent (a body that
    never ends is not waited for), then decompressed to at most as many (`decoded`)."""
    raw = b""
    try:
        for chunk in response.iter_raw():  # as sent: no decompression yet
            raw += chunk
            if len(raw) >= MAX_ERROR_BYTES:
                break
    except httpx.StreamConsumed:  # read whole already (httpx.MockTransport's replies)
        return response.content[:MAX_ERROR_BYTES]
    return decoded(raw[:MAX_ERROR_BYTES], response.headers.get("content-encoding"))
