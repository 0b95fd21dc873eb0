"""The relay around the learner's streaming core (lesson 07), and the core's three checks.

The learner writes `relay(upstream)` in `my_client/relay.py`: an async generator that
yields the upstream body's pieces as they arrive and closes the upstream when the page
goes away. What surrounds it is given here, and is the chat app's relay
(`streaming_lib.chat.app`) without its guards: `relay_app` answers `POST /chat` by
sending the Messages API request upstream with `stream=True` and streaming
`relay(response)` to the page with Starlette's `StreamingResponse`.

The checks run against the local replay server (`streaming_lib.lab.server`) on
127.0.0.1, each bounded in time (a few seconds at most):

- `pieces_through`: the pieces of an upstream body, as the relay yields them, and
  whether it closed the upstream at the end; `closed_when_stopped`: whether it closes
  the upstream when it is stopped after its first piece, as Starlette stops it when
  the page goes away (both in the caller, no server: a stub's NotImplementedError
  reaches the caller);
- `first_piece_in_time`: the upstream holds its body open HOLD seconds after the last
  event (`hold_open`); the page must get the first piece within WAIT < HOLD seconds,
  that is before the upstream has sent its last byte;
- `stop_reaches_the_upstream`: the page reads one piece and hangs up (Stop); the replay
  server must count the disconnect (`ReplayServer.disconnects`) within WAIT seconds.

httpx's own `aiter_raw` passes each piece on and closes the response at the end, but not
when it is stopped midway: that is what the learner's `finally` adds.

    >>> bare = lambda upstream: upstream.aiter_raw()
    >>> pieces_through(bare, [b"event: ping", b"data: {}"])
    ([b'event: ping', b'data: {}'], True)
    >>> closed_when_stopped(bare, [b"event: ping", b"data: {}"])
    False
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio.lowlevel
import httpx
from anyio.from_thread import start_blocking_portal
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from ...chat.app import upstream_request
from ...chat.upstream import SSE
from ...lab.server import ReplayServer
from ...lab.threaded import ThreadedServer
from ...language import _
from .reports import named

Relay = Callable[[httpx.Response], AsyncGenerator[bytes, None]]  # the learner's core
HOLD = 3.0  # seconds the upstream keeps its body open after the last event
T = TypeVar("T")
WAIT = 1.0  # seconds the page waits for a piece, and the check for the disconnect


def relay_app(messages_url: str, relay: Relay) -> Starlette:
    """An ASGI app: `POST /chat {"prompt": str}` sends the prompt's Messages API request to
    `messages_url` (with its query: the replay server's faults) and streams `relay(response)`
    to the page. One HTTP client per app, opened and closed by its lifespan. An exception
    from `relay` ends the page's body and is kept in `app.state.errors` (a list of str)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, httpx.AsyncClient]]:
        async with httpx.AsyncClient() as client:
            yield {"client": client}

    async def chat(request: Request) -> StreamingResponse:
        prompt = (await request.json())["prompt"]
        client: httpx.AsyncClient = request.state.client
        outgoing = client.build_request("POST", messages_url, json=upstream_request(prompt))
        upstream = await client.send(outgoing, stream=True)  # the headers only: no body yet
        headers = {"cache-control": "no-cache", "x-accel-buffering": "no"}
        return StreamingResponse(noted(relay(upstream)), media_type=SSE, headers=headers)

    async def noted(pieces: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        try:
            async for piece in pieces:
                yield piece
                # Let the server's loop run between two pieces: a page that hung up is then
                # heard before the next write (Starlette stops the relay), instead of a burst
                # of pieces written into a closed socket, which asyncio logs to stderr
                # ("socket.send() raised exception.") from the fifth write on.
                await anyio.lowlevel.checkpoint()
        except Exception as error:  # the relay's bug: the page's body ends, the checks say why
            app.state.errors.append(named(error))

    app = Starlette(routes=[Route("/chat", chat, methods=["POST"])], lifespan=lifespan)
    app.state.errors = []  # what the relay raised, one str per request
    return app


class _Pieces(httpx.AsyncByteStream):
    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece


def _with_upstream(pieces: list[bytes], use: Callable[[httpx.Response], Awaitable[T]]) -> T:
    """`use(upstream)` for an upstream response whose body is read as `pieces`, in an event
    loop of its own (a notebook has one running in its own thread)."""

    async def run() -> T:
        transport = httpx.MockTransport(lambda request: httpx.Response(200, stream=_Pieces(pieces)))
        async with httpx.AsyncClient(transport=transport) as client:
            request = client.build_request("POST", "http://upstream.test/v1/messages")
            return await use(await client.send(request, stream=True))

    with start_blocking_portal() as portal:
        return portal.call(run)


def pieces_through(relay: Relay, pieces: list[bytes]) -> tuple[list[bytes], bool]:
    """(the pieces `relay` yields for an upstream body read as `pieces`, whether it closed
    the upstream at the end)."""

    async def use(upstream: httpx.Response) -> tuple[list[bytes], bool]:
        return [piece async for piece in relay(upstream)], upstream.is_closed

    return _with_upstream(pieces, use)


def closed_when_stopped(relay: Relay, pieces: list[bytes]) -> bool:
    """Whether `relay` closes the upstream when it is stopped after its first piece (its
    `aclose()`, as when Starlette stops it because the page went away)."""

    async def use(upstream: httpx.Response) -> bool:
        stream = relay(upstream)
        await stream.__anext__()
        await stream.aclose()
        return upstream.is_closed

    return _with_upstream(pieces, use)


def _ask(url: str) -> Any:
    timeout = httpx.Timeout(5.0, read=WAIT)
    return httpx.stream("POST", url + "/chat", json={"prompt": "hi"}, timeout=timeout)


def _failed(error: Exception) -> str:
    return _("the page's request failed: {error}", error=type(error).__name__)


def _raised(app: Starlette) -> str | None:
    return _("your relay raised {error}", error=app.state.errors[0]) if app.state.errors else None


def first_piece_in_time(relay: Relay) -> bool | str:
    """True if the page gets a first piece, `message_start`'s, while the upstream still holds
    its body open (HOLD seconds after its last event); else a sentence saying what happened."""
    with ReplayServer("fixture", pace=0.0) as replay:
        app = relay_app(f"{replay.url}/v1/messages?hold_open={HOLD}", relay)
        with ThreadedServer(app) as server:
            try:
                with _ask(server.url) as reply:
                    first = next(reply.iter_raw(), b"")
            except httpx.ReadTimeout:
                return _(
                    "no piece within {seconds} s: the relay waits for the upstream's end",
                    seconds=WAIT,
                )
            except httpx.HTTPError as error:
                return _raised(app) or _failed(error)
    if first.startswith(b"event: message_start"):
        return True
    return _raised(app) or _("the first piece was {start!r}", start=first[:30])


def stop_reaches_the_upstream(relay: Relay) -> bool | str:
    """True if, when the page hangs up after its first piece, the replay server counts the
    disconnect within WAIT seconds; else a sentence saying what happened."""
    with ReplayServer("fixture", pace=0.05) as replay:
        app = relay_app(f"{replay.url}/v1/messages?hold_open={HOLD}", relay)
        with ThreadedServer(app) as server:
            try:
                with _ask(server.url) as reply:
                    next(reply.iter_raw(), b"")  # one piece, then Stop: the page hangs up
            except httpx.HTTPError as error:
                return _raised(app) or _failed(error)
            if replay.wait_for_disconnects(1, timeout=WAIT):
                return True
    return _raised(app) or "the upstream never saw the page go: its response was left open"
