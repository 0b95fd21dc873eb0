"""Our decoders on a real socket, with a stopwatch.

The same pipeline as `accumulate()`, fed by a raw `httpx` response instead of a
file. On the way it writes down what only a network shows: how many bytes each
read from the socket returned, when each chunk and each event arrived (seconds,
`time.monotonic()`, counted from the moment the request was sent), when the
first token came, and what is left when the client hangs up early.

    open_stream(url)                  the httpx response of one streaming request (a
                                      context manager)
    body_chunks(response)             its body's chunks; a cut or a stall raises our typed errors
    until_dropped(chunks)             chunks that simply stop when the server cuts the connection
    timed_stream(url, stop_after=N)   the whole stream timed: a `TimedStream`

`timed_stream`, and `accumulate()` over `body_chunks` or `until_dropped`, stop
reading at `message_stop` (the chunk iterators themselves yield whatever comes,
until the body ends); leaving `open_stream`'s `with` closes the response, so a
proxy that keeps the connection open after the last event costs nothing. A
connection that is cut, or sends nothing for the read timeout, becomes an
`IncompleteStreamError` or a `StreamTimeoutError` with the message so far,
never a raw httpx exception; only a server that cannot be reached at all
(`httpx.ConnectError`, `httpx.ConnectTimeout`) is reported as httpx reports it,
as there is no stream yet. The read timeout defaults to the anthropic SDK's
(`DEFAULT_TIMEOUT`): a thinking model may send nothing for tens of seconds
before its first token.

    >>> from streaming_lib.lab.server import ReplayServer
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

from ..accumulator import MessageAccumulator
from ..errors import IncompleteStreamError, StreamError, StreamTimeoutError
from ..events import BODY_HEAD_BYTES, body_error, decode_event
from ..fast import iter_sse
from ..language import _
from .api import API_VERSION, DEFAULT_MODEL, SSE_CONTENT_TYPE

# A request body the replay server accepts (it ignores everything but "stream").
DEFAULT_BODY = {
    "model": DEFAULT_MODEL,
    "max_tokens": 1024,
    "stream": True,
    "messages": [{"role": "user", "content": "fix calc.py"}],
}
# "identity": the bytes on the wire are the SSE bytes themselves, unless a
# caller asks for gzip on purpose (see `proxy_lab.py`).
DEFAULT_HEADERS = {
    "x-api-key": "test",
    "anthropic-version": API_VERSION,
    "accept-encoding": "identity",
}
# The anthropic SDK's default (its `_constants.DEFAULT_TIMEOUT`): 10 minutes
# for each read, 5 s to connect. A thinking model can be silent for tens of
# seconds before its first token; a shorter read timeout would cut a healthy stream.
DEFAULT_TIMEOUT = httpx.Timeout(600.0, connect=5.0)
# What httpx raises when an open connection is cut: in the middle of the body,
# a RemoteProtocolError ("incomplete chunked read") or a ReadError (reset by
# the peer); the other two are the same fault met while sending or closing.
DROPPED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, httpx.CloseError)
# What httpx raises when an open connection stalls: nothing arrived for the
# read timeout (or nothing could be sent for the write timeout). Failing to
# connect (ConnectError, ConnectTimeout, PoolTimeout) is neither: no stream began.
STALLED = (httpx.ReadTimeout, httpx.WriteTimeout)


@contextmanager
def open_stream(
    base_url: str,
    *,
    params: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    body: dict[str, Any] | None = None,
    client: httpx.Client | None = None,
    timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
) -> Iterator[httpx.Response]:
    """`POST {base_url}/v1/messages` with `"stream": true`; yields the response with its
    body still unread (read it with `body_chunks(response)`, `.iter_bytes()` or
    `.iter_raw()`). Leaving the block closes the response, and with it the
    connection if the body is unfinished: after `accumulate()` returned at
    `message_stop`, the server sees the client leave at once.

    `timeout`: seconds (float, or an `httpx.Timeout`; None waits forever) for
    this request, whatever `client`'s own; the default is the SDK's, 600 s to read.
    Raises `StreamTimeoutError` (no status line and headers within the read
    timeout) or `IncompleteStreamError` (the connection cut before them), both
    with `.offset` None; `httpx.ConnectError` or `httpx.ConnectTimeout` if the
    server cannot be reached.

        with open_stream(server.url, params={"error_after": 3}) as response:
            accumulate(body_chunks(response))        # raises APIStreamError
    """
    own_client = client is None
    client = client if client is not None else httpx.Client()
    try:
        request = client.build_request(
            "POST",
            base_url + "/v1/messages",
            params=params,
            headers={**DEFAULT_HEADERS, **(headers or {})},
            json={**DEFAULT_BODY, **(body or {})},
            timeout=timeout,
        )
        try:
            response = client.send(request, stream=True)
        except DROPPED + STALLED as error:
            raise transport_error(error, None) from error
        try:
            yield response
        finally:
            response.close()
    finally:
        if own_client:
            client.close()


def body_chunks(response: httpx.Response, *, raw: bool = False) -> Iterator[bytes]:
    """The body of `response` as chunks (bytes), as `response.iter_bytes()` yields them
    (`raw=True`: as `iter_raw()` does, still compressed if gzipped), except that
    an open connection failing raises our errors instead of httpx's:

    - `StreamTimeoutError`: nothing arrived for the read timeout (`httpx.ReadTimeout`);
    - `IncompleteStreamError`: the connection was cut (`httpx.RemoteProtocolError`,
      `httpx.ReadError`, ...);

    each with `.offset`, the bytes yielded before it, and httpx's exception as
    `__cause__`. `accumulate` adds `.partial`, `.events` and `.event_number`.
    A response that is an HTTP error (status 400 and up: no stream at all) raises
    `httpx.HTTPStatusError` before any chunk, its body read (`.response.json()`),
    as `timed_stream` does: it is no stream cut short. A success whose
    `content-type` is not `text/event-stream` (a gateway's JSON error or HTML
    page sent with 200) raises before any chunk too: `not_an_event_stream`.

        with open_stream(server.url, params={"drop_at": 900}) as response:
            # IncompleteStreamError, .partial: the text so far
            accumulate(body_chunks(response))
    """
    if response.status_code >= 400:
        response.read()
        response.raise_for_status()
    if (refused := not_an_event_stream(response)) is not None:
        raise refused
    offset = 0  # bytes handed on so far: where a failure happened
    try:
        for chunk in response.iter_raw() if raw else response.iter_bytes():
            offset += len(chunk)
            yield chunk
    except DROPPED + STALLED as error:
        raise transport_error(error, offset) from error


def not_an_event_stream(response: httpx.Response) -> StreamError | None:
    """The error of a response whose `content-type` header names something other
    than an event stream (`text/event-stream`, WHATWG HTML 9.2), judged from the
    headers before any parsing; None when it is one, or when the header is
    absent (then the bytes alone decide: `accumulate`'s end-of-body check).

    Reads the start of the body (at most `BODY_HEAD_BYTES`) and returns
    `events.body_error` of it: an `APIStreamError` with the server's error type
    and message for a JSON error object, else a `NotAnEventStreamError` naming
    the content type and keeping the first bytes.
    """
    content_type = response.headers.get("content-type")
    wanted = SSE_CONTENT_TYPE.partition(";")[0]
    if content_type is None or content_type.partition(";")[0].strip().lower() == wanted:
        return None
    first = bytearray()
    try:
        for chunk in response.iter_bytes():
            first += chunk[: BODY_HEAD_BYTES - len(first)]
            if len(first) >= BODY_HEAD_BYTES:
                break
    except DROPPED + STALLED:
        pass  # what arrived is enough to say what it was
    return body_error(bytes(first), content_type=content_type)


def until_dropped(
    chunks: Iterable[bytes], dropped: list[Exception] | None = None
) -> Iterator[bytes]:
    """Yield `chunks` (bytes) until they end, or until the connection is cut.

    httpx reports a cut connection as an exception; here the bytes just stop
    (the exception is appended to `dropped`, if given), so that our accumulator
    judges what arrived: `IncompleteStreamError`, with the partial message.
    A stall is not an end: an `httpx.ReadTimeout` raises `StreamTimeoutError`
    (`.offset`: the bytes yielded before it).

        accumulate(until_dropped(response.iter_bytes()))
    """
    offset = 0
    try:
        for chunk in chunks:
            offset += len(chunk)
            yield chunk
    except DROPPED as error:
        if dropped is not None:
            dropped.append(error)
    except STALLED as error:
        raise transport_error(error, offset) from error


def transport_error(error: httpx.TransportError, offset: int | None) -> IncompleteStreamError:
    """Our error for httpx's `error` on an open connection, `offset` body bytes in
    (None: before the status line and headers had arrived).

    >>> transport_error(httpx.ReadTimeout("timed out"), 120)
    StreamTimeoutError('read timeout: nothing arrived for a while after 120 bytes of the body')
    """
    where = (
        _("before the response headers")
        if offset is None
        else _("after {offset} bytes of the body", offset=offset)
    )
    if isinstance(error, httpx.TimeoutException):
        phase = "write" if isinstance(error, httpx.WriteTimeout) else "read"
        seconds = _timeout_of(error, phase)
        span = _("a while") if seconds is None else _("{seconds:g} s", seconds=seconds)
        if phase == "read":
            said = _("read timeout: nothing arrived for {span} {where}", span=span, where=where)
        else:
            said = _(
                "write timeout: nothing could be sent for {span} {where}", span=span, where=where
            )
        return StreamTimeoutError(said, timeout=seconds, offset=offset)
    said = _("the connection was cut {where}: {error}", where=where, error=str(error))
    return IncompleteStreamError(said, offset=offset)


def _timeout_of(error: httpx.TimeoutException, phase: str) -> float | None:
    """The timeout (seconds) that expired: httpx keeps it in the request's extensions."""
    try:
        return error.request.extensions["timeout"][phase]
    except (RuntimeError, KeyError):  # an error raised without its request
        return None


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
        for kind, when in zip(self.event_types, self.event_times, strict=True):
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
    timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
) -> TimedStream:
    """Stream one message from `base_url` through our decoders, timing every chunk and event.

    Reading stops at `message_stop`, which closes the response (the server
    sees the client leave if it kept the body open). `stop_after=N`: hang up
    after N events, keeping the partial message (the server sees a
    disconnect). `params`, `headers`: added to the request (the replay
    server's faults, `accept-encoding`); `timeout` as in `open_stream`.

    Never raises a `StreamError`: it is kept in `.error`, with the partial
    message in `.message`; a cut connection is an `IncompleteStreamError`
    (httpx's text in `.dropped`), a stall a `StreamTimeoutError`, before the
    headers too (then `.status_code` is 0 and `.message` None). Raises httpx's
    errors only for a server that cannot be reached, and `httpx.HTTPStatusError`
    for an HTTP error status (a 400, a 529 is no stream at all).
    """
    timed = TimedStream()
    dropped: list[Exception] = []
    client = httpx.Client()  # made before the clock starts: it takes a few ms
    start = time.monotonic()

    def wire(response: httpx.Response) -> Iterator[bytes]:
        decode = content_decoder(response)
        for chunk in until_dropped(response.iter_raw(), dropped):
            timed.chunk_times.append(time.monotonic() - start)
            timed.chunk_sizes.append(len(chunk))
            yield decode(chunk)

    acc = MessageAccumulator()
    try:
        with (
            client,
            open_stream(
                base_url, params=params, headers=headers, body=body, client=client, timeout=timeout
            ) as response,
        ):
            timed.headers_time = time.monotonic() - start
            timed.status_code, timed.headers = response.status_code, dict(response.headers)
            response.raise_for_status()  # an HTTP error (a 400, a 529) is not a stream at all
            if (error := not_an_event_stream(response)) is not None:
                raise error  # a 200 that is no event stream: a JSON error, an HTML page
            # iter_sse pulls one chunk at a time and yields each event as soon as
            # a chunk completes it: the last chunk time is that event's arrival.
            for sse in iter_sse(wire(response)):
                event = decode_event(sse, acc.next_event_number)
                if event is None:
                    continue
                timed.event_times.append(timed.chunk_times[-1])
                timed.event_types.append(event.get("type", "?") if isinstance(event, dict) else "?")
                acc.feed(event)
                if acc.complete:
                    break  # message_stop: the message is final, whatever the server still sends
                if stop_after is not None and len(timed.event_types) >= stop_after:
                    timed.interrupted = True
                    break
            timed.message = acc.snapshot() if timed.interrupted else acc.final_message()
    except StreamError as error:
        if isinstance(error, IncompleteStreamError) and error.event_number is None:
            error.event_number = acc.event_number  # raised by the connection: after the last event
        acc.fill_partial(error)
        timed.error, timed.message = error, error.partial
    # Leaving `open_stream` closed the response: after an interruption, the connection.
    timed.dropped = str(dropped[0]) if dropped else None
    return timed
