"""The replay server: a local Messages API that replays a fixture over real HTTP.

`POST /v1/messages` answers like the real API, but from a recorded stream:

- with `"stream": true` in the JSON body: the fixture's bytes as
  `text/event-stream`, one event at a time, `pace` seconds apart, with the
  headers the real API sends (`content-type: text/event-stream; charset=utf-8`,
  `cache-control: no-cache`, `request-id: req_...`);
- without it: the final message as JSON, computed by our own `accumulate()`.

Faults, per request, as query parameters (or as `x-replay-...` headers, for
example `x-replay-error-after: 5`), all off by default:

    error_after=K          after event K, send `event: error` (overloaded_error), then end
    drop_at=K              send the first K bytes of the body, then hang up mid-body
    first_token_delay=S    wait S more seconds before the first content_block_delta
    pace=S                 seconds between events, for this request only
    x_accel_buffering=no   add `X-Accel-Buffering: no` (tells nginx not to buffer)
    fixture=NAME           replay fixtures/NAME.sse instead of the server's stream

`ReplayServer` runs it on 127.0.0.1 (only) in a background thread, counts the
clients that hung up before the end (`.disconnects`) and stops cleanly.
`python -m streaming_lib serve` runs it in the foreground.

Deliberately not handled: what the request asks for (model, messages, tools are
ignored: the answer is always the fixture), API keys, HTTP/2.

    >>> import httpx
    >>> with ReplayServer("fixture", pace=0.001) as server:
    ...     reply = httpx.post(server.url + "/v1/messages", json={"stream": False})
    >>> reply.json()["stop_reason"], reply.headers["request-id"]
    ('tool_use', 'req_replay_0001')
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Message, Receive, Send

from .accumulator import accumulate
from .errors import APIStreamError, StreamError
from .fixtures import fixture_names, read_fixture

HOST = "127.0.0.1"  # the replay server never listens beyond this machine
DEFAULT_PACE = 0.02  # seconds between events: about 50 events a second, like a fast model
DEFAULT_PORT = 8765  # for `python -m streaming_lib serve`; ReplayServer picks a free one

# What the API sends when it gives up in the middle of a stream (after HTTP 200).
OVERLOADED = b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")  # a blank line: the end of one event
FIRST_DELTA = re.compile(rb"^event: ?content_block_delta\r?$", re.MULTILINE)


def split_events(raw: bytes) -> list[bytes]:
    """`raw` (bytes) cut after each blank line: one piece per event; joined, the pieces are `raw`.

    >>> split_events(b"event: a\\ndata: 1\\n\\nevent: b\\ndata: 2\\n\\n")
    [b'event: a\\ndata: 1\\n\\n', b'event: b\\ndata: 2\\n\\n']
    """
    pieces, start = [], 0
    for match in EVENT_END.finditer(raw):
        pieces.append(raw[start : match.end()])
        start = match.end()
    if start < len(raw):
        pieces.append(raw[start:])  # a last event without its blank line
    return pieces


def plan_body(raw: bytes, *, error_after: int | None = None, drop_at: int | None = None) -> tuple[list[bytes], bool]:
    """The pieces of body to send, one per event, and whether to hang up after them.

    >>> plan_body(b"a\\n\\nb\\n\\n", drop_at=4)        # hang up after 4 bytes
    ([b'a\\n\\n', b'b'], True)
    """
    pieces = split_events(raw)
    if error_after is not None:
        pieces = pieces[:error_after] + [OVERLOADED]
    if drop_at is None or drop_at > sum(map(len, pieces)):
        return pieces, False
    kept, sent = [], 0
    for piece in pieces:
        if sent + len(piece) >= drop_at:
            kept.append(piece[: drop_at - sent])
            break
        kept.append(piece)
        sent += len(piece)
    return [piece for piece in kept if piece], True


async def paced(pieces: list[bytes], pace: float, first_token_delay: float) -> AsyncIterator[bytes]:
    """Yield `pieces` `pace` seconds apart, the first content_block_delta `first_token_delay` later still."""
    waiting_for_first_token = first_token_delay > 0
    for number, piece in enumerate(pieces):
        if number:
            await asyncio.sleep(pace)
        if waiting_for_first_token and FIRST_DELTA.search(piece):
            waiting_for_first_token = False
            await asyncio.sleep(first_token_delay)  # the model "thinking" before its first token
        yield piece


@dataclass
class Counters:
    """What the server saw, read by tests and notebooks (written only by the server's thread)."""

    requests: int = 0
    disconnects: int = 0  # streams whose client hung up before the last byte


class ReplayResponse(StreamingResponse):
    """A `StreamingResponse` that counts clients hanging up early, and can hang up itself.

    Starlette already listens for `http.disconnect` while it streams, and stops
    streaming when it comes; we only count it. To hang up, we never send the
    final empty body message: uvicorn then closes the connection with the
    body unfinished, which is what a dropped connection looks like to a client.
    """

    def __init__(
        self, pieces: AsyncIterator[bytes], *, hang_up: bool, counters: Counters, headers: dict[str, str]
    ) -> None:
        super().__init__(pieces, headers=headers)
        self.hang_up, self.counters = hang_up, counters
        self.finished = False  # every piece was handed to the server

    async def stream_response(self, send: Send) -> None:
        if self.hang_up:
            send = without_end_of_body(send)
        await super().stream_response(send)
        self.finished = True

    async def listen_for_disconnect(self, receive: Receive) -> None:
        await super().listen_for_disconnect(receive)
        if not self.finished:
            self.counters.disconnects += 1


def without_end_of_body(send: Send) -> Send:
    """`send`, except that the message ending the body is swallowed."""

    async def send_all_but_the_end(message: Message) -> None:
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            return
        await send(message)

    return send_all_but_the_end


# Fault name -> its type. Read from the query string first, then from `x-replay-NAME` headers.
OPTIONS: dict[str, Callable[[str], Any]] = {
    "error_after": int,
    "drop_at": int,
    "first_token_delay": float,
    "pace": float,
    "x_accel_buffering": str,
    "fixture": str,
}


def read_options(request: Request) -> dict[str, Any]:
    """The fault options of one request (dict, only those given); raises ValueError on a bad value."""
    options = {}
    for name, kind in OPTIONS.items():
        value = request.query_params.get(name, request.headers.get("x-replay-" + name.replace("_", "-")))
        if value is not None:
            try:
                options[name] = kind(value)
            except ValueError:
                raise ValueError(f"{name}={value!r} is not a valid {kind.__name__}") from None
    if "fixture" in options and options["fixture"] not in fixture_names():
        raise ValueError(f"no fixture named {options['fixture']!r}")
    return options


def api_error(status: int, error_type: str, message: str, request_id: str) -> JSONResponse:
    """An error response shaped like the API's (JSON with `type: error`)."""
    body = {"type": "error", "error": {"type": error_type, "message": message}, "request_id": request_id}
    return JSONResponse(body, status_code=status, headers={"request-id": request_id})


def build_app(source: bytes, *, pace: float = DEFAULT_PACE, counters: Counters | None = None) -> Starlette:
    """The ASGI app replaying `source` (the raw bytes of a stream) on `POST /v1/messages`."""
    counters = counters if counters is not None else Counters()

    async def messages(request: Request) -> Response:
        counters.requests += 1
        request_id = f"req_replay_{counters.requests:04d}"  # deterministic: one number per request
        try:
            body = await request.json()
            options = read_options(request)
        except ValueError as error:  # json.JSONDecodeError is a ValueError too
            return api_error(400, "invalid_request_error", str(error), request_id)
        raw = read_fixture(options["fixture"]) if "fixture" in options else source

        if not (isinstance(body, dict) and body.get("stream")):
            try:
                return JSONResponse(accumulate(raw), headers={"request-id": request_id})
            except APIStreamError as error:
                status = 529 if error.error_type == "overloaded_error" else 500
                return api_error(status, error.error_type or "api_error", error.error_message, request_id)
            except StreamError as error:
                return api_error(500, "api_error", str(error), request_id)

        pieces, hang_up = plan_body(raw, error_after=options.get("error_after"), drop_at=options.get("drop_at"))
        headers = {
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-cache",
            "request-id": request_id,
        }
        if options.get("x_accel_buffering"):
            headers["x-accel-buffering"] = options["x_accel_buffering"]
        body_pieces = paced(pieces, options.get("pace", pace), options.get("first_token_delay", 0.0))
        return ReplayResponse(body_pieces, hang_up=hang_up, counters=counters, headers=headers)

    app = Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])
    app.state.counters = counters
    return app


def load_source(fixture: str | Path | bytes) -> bytes:
    """The stream to replay: bytes as given, a path to an .sse file, or a fixture name."""
    if isinstance(fixture, bytes):
        return fixture
    if isinstance(fixture, Path) or fixture.endswith(".sse"):
        return Path(fixture).read_bytes()
    return read_fixture(fixture)


class _HushDeliberateHangUps(logging.Filter):
    """uvicorn reports an unfinished body as an application error; ours are on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "ASGI callable returned without completing response."


HUSH = _HushDeliberateHangUps()


class ReplayServer:
    """The replay server on a free port of 127.0.0.1, in a background thread.

    Use it as a context manager; inside, `.url` is `http://127.0.0.1:PORT`,
    `.requests` and `.disconnects` count what the server saw. On exit the server
    stops, its thread ends and its socket is closed.

        with ReplayServer("fixture", pace=0.02) as server:
            client = anthropic.Anthropic(base_url=server.url, api_key="test")
    """

    def __init__(self, fixture: str | Path | bytes = "fixture", *, pace: float = DEFAULT_PACE, port: int = 0) -> None:
        self.counters = Counters()
        self.app = build_app(load_source(fixture), pace=pace, counters=self.counters)
        self.port = port
        self.url = ""
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def requests(self) -> int:
        return self.counters.requests

    @property
    def disconnects(self) -> int:
        return self.counters.disconnects

    def start(self) -> ReplayServer:
        # We bind the socket ourselves (port 0: the OS picks a free one), so the
        # port is known before uvicorn starts and no other process can take it.
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((HOST, self.port))
        self.port = listener.getsockname()[1]
        self.url = f"http://{HOST}:{self.port}"
        config = uvicorn.Config(
            self.app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2
        )
        logging.getLogger("uvicorn.error").addFilter(HUSH)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [listener]}, name=f"replay-server-{self.port}", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                listener.close()
                raise RuntimeError("the replay server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving (open streams get up to 2 s to finish), join the thread; uvicorn closes the socket."""
        if self._server is None or self._thread is None:
            return
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._server = self._thread = None

    def wait_for_disconnects(self, count: int = 1, timeout: float = 2.0) -> bool:
        """Wait until the server has seen `count` early disconnects; True if it did in time.
        (The server learns of a closed connection a moment after the client closes it.)"""
        deadline = time.monotonic() + timeout
        while self.disconnects < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.disconnects >= count

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def serve(fixture: str | Path = "fixture", *, port: int = DEFAULT_PORT, pace: float = DEFAULT_PACE) -> int:
    """The `serve` command: replay `fixture` on 127.0.0.1:`port` until Ctrl-C."""
    app = build_app(load_source(fixture), pace=pace)
    url = f"http://{HOST}:{port}"
    print(f"Replaying {fixture} on {url} ({pace} s between events). Try:")
    print(f"  curl -N {url}/v1/messages -d '{json.dumps({'stream': True})}'")
    print(f"  curl -N '{url}/v1/messages?error_after=5' -d '{json.dumps({'stream': True})}'")
    print(f"  ANTHROPIC_BASE_URL={url} ANTHROPIC_API_KEY=test python your_script.py")
    logging.getLogger("uvicorn.error").addFilter(HUSH)
    uvicorn.run(app, host=HOST, port=port, log_level="info", lifespan="off")
    return 0
