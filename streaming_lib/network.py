"""Our decoders on a real socket, with a stopwatch.

The same pipeline as `accumulate()`, fed by a raw `httpx` response instead of a
file. On the way it writes down what only a network shows: how many bytes each
read from the socket returned, when each chunk and each event arrived (seconds,
`time.monotonic()`, counted from the moment the request was sent), when the
first token came, and what is left when the client hangs up early.

    open_stream(url)                  the httpx response of one streaming request (a context manager)
    until_dropped(chunks)             chunks that simply stop when the server cuts the connection
    timed_stream(url, stop_after=N)   the whole stream timed: a `TimedStream`

    >>> from streaming_lib.server import ReplayServer
    >>> with ReplayServer("fixture", pace=0.01) as server:
    ...     timed = timed_stream(server.url, stop_after=6)      # hang up after 6 events
    ...     saw_it = server.wait_for_disconnects(1)
    >>> timed.interrupted, saw_it, timed.message["content"][0]["text"]
    (True, True, '找到原因了：add 写成了')

Deliberately not handled: retries, reconnecting with `Last-Event-ID`, HTTP/2,
and any content encoding but gzip.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from .accumulator import MessageAccumulator, decode_event
from .errors import StreamError
from .sse import iter_sse

# A request body the replay server accepts (it ignores everything but "stream").
DEFAULT_BODY = {
    "model": "claude-haiku-4-5",
    "max_tokens": 1024,
    "stream": True,
    "messages": [{"role": "user", "content": "fix calc.py"}],
}
# "identity": the bytes on the wire are the SSE bytes themselves, unless a
# caller asks for gzip on purpose (see `proxy_lab.py`).
DEFAULT_HEADERS = {"x-api-key": "test", "anthropic-version": "2023-06-01", "accept-encoding": "identity"}
# What httpx raises when the server closes the connection in the middle of the body.
DROPPED = (httpx.RemoteProtocolError, httpx.ReadError)


@contextmanager
def open_stream(
    base_url: str,
    *,
    params: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    body: dict[str, Any] | None = None,
    client: httpx.Client | None = None,
) -> Iterator[httpx.Response]:
    """`POST {base_url}/v1/messages` with `"stream": true`; yields the response with its
    body still unread (read it with `.iter_bytes()` or `.iter_raw()`). Leaving the
    block closes the response, and with it the connection if the body is unfinished.

        with open_stream(server.url, params={"error_after": 3}) as response:
            accumulate(response.iter_bytes())        # raises APIStreamError
    """
    own_client = client is None
    client = client if client is not None else httpx.Client(timeout=30.0)
    try:
        with client.stream(
            "POST",
            base_url + "/v1/messages",
            params=params,
            headers={**DEFAULT_HEADERS, **(headers or {})},
            json={**DEFAULT_BODY, **(body or {})},
        ) as response:
            yield response
    finally:
        if own_client:
            client.close()


def until_dropped(chunks: Iterable[bytes], dropped: list[Exception] | None = None) -> Iterator[bytes]:
    """Yield `chunks` (bytes) until they end, or until the connection is cut.

    httpx reports a cut connection as an exception; here the bytes just stop
    (the exception is appended to `dropped`, if given), so that our accumulator
    judges what arrived: `IncompleteStreamError`, with the partial message.

        accumulate(until_dropped(response.iter_bytes()))
    """
    try:
        yield from chunks
    except DROPPED as error:
        if dropped is not None:
            dropped.append(error)


def content_decoder(response: httpx.Response) -> Callable[[bytes], bytes]:
    """bytes as received -> bytes as sent: gunzip if the response is gzipped, else unchanged.
    (`iter_bytes()` does this inside httpx; `iter_raw()` shows the wire, so we do it here.)"""
    if response.headers.get("content-encoding", "").lower() == "gzip":
        return zlib.decompressobj(wbits=31).decompress  # 31: a gzip header, not a zlib one
    return unchanged


def unchanged(chunk: bytes) -> bytes:
    return chunk


@dataclass
class TimedStream:
    """One stream as the client saw it. Times are seconds since the request was sent.

    - `chunk_times`, `chunk_sizes`: one entry per read from the socket (`iter_raw()`),
      sizes in bytes on the wire (compressed, if gzip);
    - `event_times`, `event_types`: one entry per Messages API event, its time being
      that of the chunk that completed it;
    - `headers_time`: when the status line and headers had arrived;
    - `message`: the final message, or the partial one (dict) if the stream failed
      or was interrupted; `error`: the `StreamError` that ended it, if any;
    - `interrupted`: the client hung up after `stop_after` events;
    - `dropped`: the server cut the connection (the httpx exception's text).
    """

    status_code: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    headers_time: float = 0.0
    chunk_times: list[float] = field(default_factory=list)
    chunk_sizes: list[int] = field(default_factory=list)
    event_times: list[float] = field(default_factory=list)
    event_types: list[str] = field(default_factory=list)
    message: dict[str, Any] | None = None
    error: StreamError | None = None
    interrupted: bool = False
    dropped: str | None = None

    @property
    def time_to_first_token(self) -> float | None:
        """When the first `content_block_delta` arrived (seconds), None if none did."""
        for kind, when in zip(self.event_types, self.event_times):
            if kind == "content_block_delta":
                return when
        return None


def timed_stream(
    base_url: str,
    *,
    stop_after: int | None = None,
    params: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    body: dict[str, Any] | None = None,
) -> TimedStream:
    """Stream one message from `base_url` through our decoders, timing every chunk and event.

    `stop_after=N`: hang up after N events, keeping the partial message (the
    server sees a disconnect). `params`, `headers`: added to the request (the
    replay server's faults, `accept-encoding`). Never raises a `StreamError`:
    it is kept in `.error`, with the partial message in `.message`.
    """
    timed = TimedStream()
    dropped: list[Exception] = []
    client = httpx.Client(timeout=30.0)  # made before the clock starts: it takes a few ms
    start = time.monotonic()

    def wire(response: httpx.Response) -> Iterator[bytes]:
        decode = content_decoder(response)
        for chunk in until_dropped(response.iter_raw(), dropped):
            timed.chunk_times.append(time.monotonic() - start)
            timed.chunk_sizes.append(len(chunk))
            yield decode(chunk)

    with client, open_stream(base_url, params=params, headers=headers, body=body, client=client) as response:
        timed.headers_time = time.monotonic() - start
        timed.status_code, timed.headers = response.status_code, dict(response.headers)
        response.raise_for_status()  # an HTTP error (a 400, a 529) is not a stream at all
        acc = MessageAccumulator()
        try:
            # iter_sse pulls one chunk at a time and yields each event as soon as
            # a chunk completes it: the last chunk time is that event's arrival.
            for sse in iter_sse(wire(response)):
                event = decode_event(sse, acc.event_number + 1)
                if event is None:
                    continue
                timed.event_times.append(timed.chunk_times[-1])
                timed.event_types.append(event.get("type", "?") if isinstance(event, dict) else "?")
                acc.feed(event)
                if stop_after is not None and len(timed.event_types) >= stop_after:
                    timed.interrupted = True
                    break
            timed.message = acc.snapshot() if timed.interrupted else acc.final_message()
        except StreamError as error:
            acc.fill_partial(error)
            timed.error, timed.message = error, error.partial
    # Leaving `open_stream` closed the response: after an interruption, the connection.
    timed.dropped = str(dropped[0]) if dropped else None
    return timed
