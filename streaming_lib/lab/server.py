"""The replay server: a local Messages API that replays a fixture over real HTTP.

`POST /v1/messages` answers like the real API, from a hand-made fixture (or any .sse file):

- with `"stream": true` in the JSON body: the fixture's bytes as
  `text/event-stream`, one event at a time, `pace` seconds apart, with the
  headers the real API sends (`content-type: text/event-stream; charset=utf-8`,
  `cache-control: no-cache`, `request-id: req_...`);
- without it: the final message as JSON, computed by our own `accumulate()`
  (non-ASCII written as `\\u` escapes, so that any string, even one holding a
  lone UTF-16 surrogate, is valid JSON rather than an encoding error).

Faults, per request, as query parameters (or as `x-replay-...` headers, for
example `x-replay-error-after: 5`), all off by default:

    error_after=K          after event K, send `event: error` (overloaded_error), then end
    drop_at=K              send the first K bytes of the body, then hang up mid-body
    first_token_delay=S    wait S more seconds before the first content_block_delta
    hold_open=S            keep the body open S seconds after the last event (as some proxies do)
    pace=S                 seconds between events, for this request only
    x_accel_buffering=no   add `X-Accel-Buffering: no` (tells nginx not to buffer)
    fixture=NAME           replay fixtures/NAME.sse instead of the server's stream
    page=html              answer HTTP 200 with an HTML page (`text/html`), as a proxy in
                           front of the API may: a success that is no event stream

Errors before the body, as the API sends them (the status line, then its JSON
error body, https://platform.claude.com/docs/en/api/errors):

    status=N               answer HTTP N with the API's error body for it (400, 401, 403,
                           404, 413, 429, 500, 502, 503, 504 or 529), streaming or not
    retry_after=K          with `status`: a `retry-after: K` header (seconds), as with a 429
    retry_after_ms=K       with `status`: a `retry-after-ms: K` header (milliseconds)
    x_should_retry=true    with `status`: an `x-should-retry` header (true or false), which
                           the anthropic SDK obeys before its own rules
    fail_times=N           the faults (status, error_after, drop_at) hit only the first N
                           requests asking for them, then the stream is served whole:
                           `?status=529&fail_times=2` fails twice, then succeeds

Requests "asking for them" are those with the same options; each server counts
its own, so a fresh `ReplayServer` starts from the first failure again.

K and N are whole numbers, 0 or more; S a number of seconds from 0 to 60. A bad
value (or a body that is not JSON, even one nested too deep to read) gets the
API's 400 `invalid_request_error` naming it, and any other path or method the
API's JSON 404 or 405.

Only programs on this machine are served, never a web page: as the chat relay
does, a request whose `Origin` is another site's (or whose `Sec-Fetch-Site`
says cross-site) gets a 403, one whose body is not `application/json` a 415
(which a page cannot send without the browser asking first, and this server
answers no such preflight), and a body over MAX_BODY_BYTES a 413
`request_too_large`, read no further. Other query parameters are ignored, as the API ignores
them. Slow or vanished clients and too many connections are cut off by the
limits of `threaded.py` (`server_config`). Events end where the WHATWG rules end them (at a
blank line, with LF, CRLF or CR line endings, even mixed), so pacing and faults
work on every fixture; the bytes sent are always the fixture's own.

`ReplayServer` runs it on 127.0.0.1 (only) in a background thread, counts the
requests (`.requests`, with their arrival times in `.arrivals`) and the clients
that hung up before the end (`.disconnects`), and stops cleanly.
`python -m streaming_lib serve` runs it in the foreground.

This module only sends: which pieces to send, when, and which faults a request
asks for are decided by the pure functions of `replay_plan.py`.

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
import contextlib
import json
import logging
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from ..accumulator import accumulate
from ..errors import APIStreamError, StreamError
from ..language import _
from ..tools.fixtures import read_fixture
from .api import HOST, SSE_CONTENT_TYPE

# What to send is planned in replay_plan.py; its names stay importable from here too.
from .replay_plan import (  # noqa: F401
    DEFAULT_PACE,
    ERROR_TYPES,
    EVENT_END,
    GATEWAY_PAGE,
    LINE_END,
    MAX_SECONDS,
    OPTIONS,
    OVERLOADED,
    count,
    delays,
    error_headers,
    event_type,
    faults_left,
    fixture_name,
    load_source,
    options_from,
    plan_body,
    seconds,
    split_events,
)
from .threaded import BodyTooLarge, ThreadedServer, listen, read_body, server_config

DEFAULT_PORT = 8765  # for `python -m streaming_lib serve`; ReplayServer picks a free one
GRACE = 2  # seconds open streams get to finish when the server stops; then they are cut
MAX_BODY_BYTES = 1024 * 1024  # a request body; the replay reads only its "stream" field


async def paced(
    pieces: list[bytes], pace: float, first_token_delay: float, hold_open: float = 0.0
) -> AsyncIterator[bytes]:
    """Yield `pieces` `pace` seconds apart, the first content_block_delta `first_token_delay`
    later still; then wait `hold_open` seconds before the body ends (or is cut).

    A client hanging up cancels the wait: Starlette stops the body as soon as
    it hears the disconnect, so the server counts it (`Counters.disconnects`).
    """
    waits = delays(pieces, pace, first_token_delay)  # one per piece
    for number, (piece, delay) in enumerate(zip(pieces, waits, strict=True)):
        if number or delay:
            await asyncio.sleep(delay)
        yield piece
    if hold_open:
        await asyncio.sleep(hold_open)  # a proxy keeping the connection after the last event


@dataclass
class Counters:
    """What the server saw, read by tests and notebooks (written only by the server's thread)."""

    requests: int = 0
    disconnects: int = 0  # streams whose client hung up before the last byte
    # When each request arrived (time.monotonic(), seconds): the gaps show a client's back-off.
    arrivals: list[float] = field(default_factory=list)
    # Requests seen per set of options: what `fail_times` counts.
    asked: Counter[tuple[tuple[str, Any], ...]] = field(default_factory=Counter)


class ReplayResponse(StreamingResponse):
    """A `StreamingResponse` that counts clients hanging up early, and can hang up itself.

    Starlette already listens for `http.disconnect` while it streams, and stops
    streaming when it comes; we only count it. To hang up, we never send the
    final empty body message: uvicorn then closes the connection with the
    body unfinished, which is what a dropped connection looks like to a client.
    """

    def __init__(
        self,
        pieces: AsyncIterator[bytes],
        *,
        hang_up: bool,
        counters: Counters,
        headers: dict[str, str],
    ) -> None:
        super().__init__(pieces, headers=headers)
        self.hang_up, self.counters = hang_up, counters
        self.finished = False  # every piece was handed to the server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The server is stopping and this stream outlived its grace period
        # (or a second Ctrl-C came). Ending here is all uvicorn asked for: it
        # then closes the connection, and the client sees a cut stream.
        # Raising on would only make uvicorn print a traceback.
        with contextlib.suppress(asyncio.CancelledError):
            await super().__call__(scope, receive, send)

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


def read_options(request: Request) -> dict[str, Any]:
    """The fault options of one request (dict, only those given); raises ValueError on a bad
    value."""
    return options_from(request.query_params, request.headers)


class ASCIIJSONResponse(JSONResponse):
    """A `JSONResponse` written with `\\u` escapes for everything beyond ASCII.

    Starlette writes raw UTF-8, which cannot hold a lone UTF-16 surrogate: a
    str with one (a stream whose deltas split a pair, or an error message
    quoting one) would raise UnicodeEncodeError, and the client get a 500.
    Escaped, every str is valid JSON (RFC 8259, section 7, allows a lone
    surrogate escape), and decodes to the same str.
    """

    def render(self, content: Any) -> bytes:
        return json.dumps(
            content, ensure_ascii=True, allow_nan=False, separators=(",", ":")
        ).encode("ascii")


def not_for_pages(request: Request) -> tuple[int, str] | None:
    """(status, why) if `request` may come from a web page rather than a program, else None:
    403 for another site's `Origin` or a cross-site `Sec-Fetch-Site`, 415 for a body
    that is not JSON. (Programs send no `Origin`; a browser always does with a POST.)"""
    origin = request.headers.get("origin")
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    if origin is not None and origin != own:
        return 403, f"cross-origin request from {origin}: the replay server serves programs only"
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return 403, f"Sec-Fetch-Site is {site}: the replay server serves programs only"
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        return 415, "the body must be JSON (content-type: application/json)"
    return None


def api_error(
    status: int,
    error_type: str,
    message: str,
    request_id: str,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """An error response shaped like the API's (JSON with `type: error`)."""
    body = {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": request_id,
    }
    return ASCIIJSONResponse(
        body, status_code=status, headers={**(headers or {}), "request-id": request_id}
    )


def build_app(
    source: bytes, *, pace: float = DEFAULT_PACE, counters: Counters | None = None
) -> Starlette:
    """The ASGI app replaying `source` (the raw bytes of a stream) on `POST /v1/messages`.

    Raises ValueError if `pace` is not a number of seconds from 0 to MAX_SECONDS.
    """
    counters = counters if counters is not None else Counters()
    pace = seconds(pace)

    def new_request_id() -> str:
        counters.requests += 1
        counters.arrivals.append(time.monotonic())
        return f"req_replay_{counters.requests:04d}"  # deterministic: one number per request

    async def messages(request: Request) -> Response:
        request_id = new_request_id()
        refusal = not_for_pages(request)
        if refusal is not None:
            status, message = refusal
            return api_error(
                status,
                ERROR_TYPES.get(status, "invalid_request_error"),
                message,
                request_id,
                headers={"connection": "close"},
            )
        try:
            options = read_options(request)
            body = json.loads(await read_body(request, MAX_BODY_BYTES))
        except BodyTooLarge:
            message = f"the request body is over {MAX_BODY_BYTES} bytes"
            return api_error(
                413, "request_too_large", message, request_id, headers={"connection": "close"}
            )
        except ValueError as error:  # json.JSONDecodeError is a ValueError too
            return api_error(400, "invalid_request_error", str(error), request_id)
        except RecursionError:  # JSON nested deeper than Python's stack can read
            message = "the body is not JSON that can be read: it is nested too deep"
            return api_error(400, "invalid_request_error", message, request_id)
        except ClientDisconnect:  # the client hung up (or was too slow) before its body ended
            return Response(status_code=400)  # no one is left to read it
        same = tuple(sorted(options.items()))
        options = faults_left(options, earlier=counters.asked[same])
        counters.asked[same] += 1
        if "status" in options:  # an error before the body: the status line says it all
            status = options["status"]
            # Said in the language in use: the body is read by a person, in a lesson.
            message = str(
                _("HTTP {status} asked for by the request (replay server fault)", status=status)
            )
            if status == 529:
                message = "Overloaded"  # the message the API sends with it
            return api_error(
                status, ERROR_TYPES[status], message, request_id, headers=error_headers(options)
            )
        if "page" in options:  # a 200 that is no event stream: a proxy's page
            return Response(
                GATEWAY_PAGE, media_type="text/html", headers={"request-id": request_id}
            )
        raw = read_fixture(options["fixture"]) if "fixture" in options else source

        if not (isinstance(body, dict) and body.get("stream")):
            try:
                return ASCIIJSONResponse(accumulate(raw), headers={"request-id": request_id})
            except APIStreamError as error:
                status = 529 if error.error_type == "overloaded_error" else 500
                return api_error(
                    status, error.error_type or "api_error", error.error_message, request_id
                )
            except StreamError as error:
                return api_error(500, "api_error", str(error), request_id)

        pieces, hang_up = plan_body(
            raw, error_after=options.get("error_after"), drop_at=options.get("drop_at")
        )
        headers = {
            "content-type": SSE_CONTENT_TYPE,
            "cache-control": "no-cache",
            "request-id": request_id,
        }
        if options.get("x_accel_buffering"):
            headers["x-accel-buffering"] = options["x_accel_buffering"]
        body_pieces = paced(
            pieces,
            options.get("pace", pace),
            options.get("first_token_delay", 0.0),
            options.get("hold_open", 0.0),
        )
        return ReplayResponse(body_pieces, hang_up=hang_up, counters=counters, headers=headers)

    async def elsewhere(request: Request, error: Exception) -> Response:
        """Starlette's 404 (no such path) and 405 (no such method), as the API's JSON errors."""
        assert isinstance(error, HTTPException)
        kind = "not_found_error" if error.status_code == 404 else "invalid_request_error"
        message = (
            f"{request.method} {request.url.path}: {error.detail} (the replay server answers POST "
            "/v1/messages)"
        )
        return api_error(error.status_code, kind, message, new_request_id(), headers=error.headers)

    routes = [Route("/v1/messages", messages, methods=["POST"])]
    app = Starlette(routes=routes, exception_handlers={404: elsewhere, 405: elsewhere})
    app.state.counters = counters
    return app


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

    def __init__(
        self, fixture: str | Path | bytes = "fixture", *, pace: float = DEFAULT_PACE, port: int = 0
    ) -> None:
        self.counters = Counters()
        self.app = build_app(load_source(fixture), pace=pace, counters=self.counters)
        self.port = port
        self.url = ""
        self._threaded: ThreadedServer | None = None

    @property
    def requests(self) -> int:
        return self.counters.requests

    @property
    def disconnects(self) -> int:
        return self.counters.disconnects

    @property
    def arrivals(self) -> list[float]:
        return self.counters.arrivals

    def start(self) -> ReplayServer:
        self._threaded = ThreadedServer(
            self.app, port=self.port, grace=GRACE, name="replay-server", log_filter=HUSH
        ).start()
        self.port, self.url = self._threaded.port, self._threaded.url
        return self

    def stop(self) -> None:
        """Stop serving (open streams get GRACE seconds to finish), join the thread; uvicorn closes
        the socket."""
        if self._threaded is not None:
            self._threaded.stop()
            self._threaded = None

    # `count` (a public keyword) shadows replay_plan's `count` only in here.
    def wait_for_disconnects(self, count: int = 1, timeout: float = 10.0) -> bool:  # noqa: F811
        """Wait until the server has seen `count` early disconnects; True if it did in time.
        (The server learns of a closed connection a moment after the client closes it; on a
        busy machine that moment can take seconds, hence the long default `timeout`, which
        costs nothing when the disconnect comes.)"""
        deadline = time.monotonic() + timeout
        while self.disconnects < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.disconnects >= count

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def serve(
    fixture: str | Path = "fixture", *, port: int = DEFAULT_PORT, pace: float = DEFAULT_PACE
) -> int:
    """The `serve` command: replay `fixture` on 127.0.0.1:`port` until Ctrl-C; returns the exit
    status.

    On Ctrl-C, open streams get GRACE seconds to finish before they are cut.
    """
    try:
        source = load_source(fixture)
    except (OSError, ValueError) as error:
        print(f"Cannot replay {fixture}: {error}", file=sys.stderr)
        return 2
    try:
        listener = listen(HOST, port)
    except OSError as error:
        print(f"Cannot start the replay server: {error}", file=sys.stderr)
        return 2
    app = build_app(source, pace=pace)
    url = f"http://{HOST}:{listener.getsockname()[1]}"
    print(f"Replaying {fixture} on {url} ({pace} s between events). Try:")
    json_body = f"-H 'content-type: application/json' -d '{json.dumps({'stream': True})}'"
    print(f"  curl -N {url}/v1/messages {json_body}")
    print(f"  curl -N '{url}/v1/messages?error_after=5' {json_body}")
    print(f"  ANTHROPIC_BASE_URL={url} ANTHROPIC_API_KEY=test python your_script.py")
    logging.getLogger("uvicorn.error").addFilter(HUSH)
    config = server_config(app, log_level="info", lifespan="off", timeout_graceful_shutdown=GRACE)
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises the Ctrl-C it handled
        uvicorn.Server(config).run(sockets=[listener])
    return 0
