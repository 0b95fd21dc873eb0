"""An ASGI app served by uvicorn in a background thread: the replay server's and the chat app's.

    with ThreadedServer(app) as server:      # a free port of 127.0.0.1
        httpx.get(server.url + "/")

The socket is bound here (port 0: the OS picks a free one), so the port is
known before uvicorn starts and no other process can take it in between.

Both servers hold against clients that are slow or gone (`server_config`,
the same for the foreground commands):

- at most MAX_CONNECTIONS connections at once (uvicorn's `limit_concurrency`:
  past it, a request gets a 503); a connection that arrives when the cap is
  reached first closes the connections still waiting for their request's
  headers, longest waiting first, so idle sockets cannot hold the cap
  (`RequestDeadlineProtocol`);
- request headers of at most MAX_HEADER_BYTES: h11's limit (a 400) holds
  while they arrive in pieces, and `FramingGuard` holds it for headers that
  came in one read (a 431, and the connection closed);
- a request carrying both `Content-Length` and `Transfer-Encoding` is refused
  with a 400 and the connection closed (RFC 9112, section 6.1: such a message
  may be an attempt at request smuggling), by `FramingGuard`;
- a request body of at most the app's limit (`read_body`; over it, a 413);
- a connection idle between requests is closed after KEEP_ALIVE seconds
  (uvicorn's `timeout_keep_alive`);
- a request (headers and body) must arrive whole within REQUEST_TIMEOUT
  seconds of the connection opening or of the previous response ending, else
  the connection is closed. uvicorn has no setting for this (its keep-alive
  timer starts only after a response, and any byte resets it), so a client
  that sent nothing, half its headers or half its body would hold its
  connection for ever; `RequestDeadlineProtocol` adds the deadline to
  uvicorn's own HTTP/1.1 protocol.

    >>> from starlette.applications import Starlette
    >>> server = ThreadedServer(Starlette(), port=0)
    >>> server.url, server.running()      # nothing is served before start()
    ('', False)
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from typing import Any

import h11
import uvicorn
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from .api import HOST

MAX_CONNECTIONS = 64  # open connections at once; one more request gets a 503
MAX_HEADER_BYTES = 16 * 1024  # a request's line and headers; more gets a 400
KEEP_ALIVE = 5  # seconds an idle connection is kept open between two requests
REQUEST_TIMEOUT = 10.0  # seconds a client has to send one whole request


class RequestDeadlineProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request does not
    arrive whole within `request_timeout` seconds (of the connection opening, or
    of the previous response ending). An app reading the body then sees the
    client disconnect. Set `request_timeout` on a subclass (`server_config`)."""

    request_timeout = REQUEST_TIMEOUT
    _deadline: asyncio.TimerHandle | None = None
    _waiting_since = 0.0  # loop time at which the connection began to wait for a request

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()
        self._make_room()

    def _make_room(self) -> None:
        """At the cap, close the connections that have not sent a whole request's headers
        (idle, or sending them slowly), longest waiting first, until this one's request fits
        under uvicorn's `limit_concurrency` (which counts connections, this one included)."""
        if self.limit_concurrency is None or len(self.connections) < self.limit_concurrency:
            return
        waiting = [
            other
            for other in self.connections
            if isinstance(other, RequestDeadlineProtocol)
            and other is not self
            and other._deadline is not None
            and other.conn.their_state is h11.IDLE
            and not other.transport.is_closing()
        ]
        waiting.sort(key=lambda other: other._waiting_since)
        excess = len(self.connections) - self.limit_concurrency + 1
        for other in waiting[:excess]:
            other.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._disarm()  # the request is whole (or the connection is over)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.IDLE:  # the next request's time starts now
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._waiting_since = self.loop.time()
        self._deadline = self.loop.call_later(self.request_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.transport.close()


class FramingGuard:
    """ASGI middleware refusing, before the app sees it, a request whose framing is
    ambiguous or whose headers are too large, and closing its connection:

    - both `Content-Length` and `Transfer-Encoding`: 400 (RFC 9112, section 6.1);
    - a request line and headers over `max_header_bytes` (counted as sent: names,
      values, and the `: ` and CRLF around each): 431 (RFC 6585, section 5).

    h11 accepts the first (Transfer-Encoding wins) and limits only headers still
    incomplete after a read, so a large block arriving at once would pass.
    """

    def __init__(self, app: ASGIApp, max_header_bytes: int = MAX_HEADER_BYTES) -> None:
        self.app, self.max_header_bytes = app, max_header_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = scope["headers"]
            names = {name.lower() for name, _ in headers}
            size = len(scope["raw_path"]) + len(scope["query_string"]) + len(scope["method"])
            size += sum(len(name) + len(value) + 4 for name, value in headers)
            if b"content-length" in names and b"transfer-encoding" in names:
                await refuse(send, 400, b"Content-Length and Transfer-Encoding together")
                return
            if size > self.max_header_bytes:
                await refuse(send, 431, b"Request headers too large")
                return
        await self.app(scope, receive, send)


async def refuse(send: Send, status: int, reason: bytes) -> None:
    """Answer `status` with `reason` as a plain-text body, and close the connection."""
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": reason})


class BodyTooLarge(Exception):
    """A request body over the limit `read_body` was given."""


async def read_body(request: Request, limit: int) -> bytes:
    """`request`'s body (bytes), read as it arrives and given up past `limit` bytes.

    Raises BodyTooLarge as soon as a declared `Content-Length` or the bytes
    received exceed `limit` (a huge body is never held whole), and Starlette's
    ClientDisconnect if the client hangs up (or is cut off) first.
    """
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def server_config(
    app: ASGIApp,
    *,
    request_timeout: float = REQUEST_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
    **options: Any,
) -> uvicorn.Config:
    """uvicorn's `Config` for `app` with the limits above (`options`: more of uvicorn's settings).

    >>> config = server_config(None, request_timeout=0.5)
    >>> config.limit_concurrency, config.timeout_keep_alive, config.http.request_timeout
    (64, 5, 0.5)
    """
    protocol = type(
        "RequestDeadlineProtocol", (RequestDeadlineProtocol,), {"request_timeout": request_timeout}
    )
    return uvicorn.Config(
        FramingGuard(app),
        http=protocol,
        limit_concurrency=max_connections,
        timeout_keep_alive=KEEP_ALIVE,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        **options,
    )


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket listening on `host`:`port` (IPv4; port 0: a free one).

    Raises OSError with a sentence naming the address and the cause (the port
    is taken, the address is not this machine's or not IPv4).
    """
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(socket.SOMAXCONN)
    except (OSError, OverflowError) as error:
        listener.close()
        why = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        if isinstance(error, socket.gaierror):
            why += " (give an IPv4 address or name, such as 127.0.0.1)"
        raise OSError(f"cannot listen on {host} port {port}: {why}") from None
    return listener


class ThreadedServer:
    """`app` served by uvicorn on `port` of `host` (0: a free one), in a daemon thread.

    A context manager: inside, `.url` is `http://HOST:PORT`; on exit the server
    stops (open streams get `grace` seconds to finish), its thread ends and
    uvicorn closes the socket. `log_filter`, if given, is added to uvicorn's
    error log (to keep out the hang-ups a test makes on purpose).
    `request_timeout` and `max_connections`: see `server_config` (short ones
    for tests). Raises OSError if it cannot listen (`listen`), RuntimeError if
    the server has not started within 10 seconds.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        host: str = HOST,
        port: int = 0,
        grace: float = 2,
        name: str = "asgi",
        log_filter: logging.Filter | None = None,
        request_timeout: float = REQUEST_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self.app, self.host, self.port, self.url = app, host, port, ""
        self.grace, self.name, self.log_filter = grace, name, log_filter
        self.request_timeout, self.max_connections = request_timeout, max_connections
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> ThreadedServer:
        listener = listen(self.host, self.port)
        self.port = listener.getsockname()[1]
        self.url = f"http://{self.host}:{self.port}"
        config = server_config(
            self.app,
            request_timeout=self.request_timeout,
            max_connections=self.max_connections,
            log_level="warning",
            access_log=False,
            lifespan="auto",  # the chat app opens its HTTP client at start-up, closes it at the end
            timeout_graceful_shutdown=int(self.grace),
        )
        if self.log_filter is not None:
            logging.getLogger("uvicorn.error").addFilter(self.log_filter)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [listener]},
            name=f"{self.name}-{self.port}",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                listener.close()
                raise RuntimeError(f"the server ({self.name}) did not start")
            time.sleep(0.01)
        return self

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        """Stop serving, and join the thread (nothing to do if it never started)."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
            self._server = self._thread = None

    def __enter__(self) -> ThreadedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
