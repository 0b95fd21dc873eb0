"""The chat app: a page, and a relay that streams the Messages API on to it.

    GET  /             the page (static/index.html; its script and style under /static/),
                       in the app's language, or in the one `?lang=` names (`?lang=zh`)
    GET  /about        {"model": str, "replaying": str | null}: what answers the page
    POST /chat         {"prompt": str}  ->  the upstream's SSE bytes, as they arrive
    GET  /favicon.ico  the page's icon

The relay calls `POST {upstream}/v1/messages` with `"stream": true` and hands
the response body on, chunk by chunk, untouched (but for the key, should the
upstream quote it: `upstream.StreamRedactor`): the page parses it itself
(static/chat.js, with the rules of notebooks 01-03). The upstream is the local
replay server (`streaming_lib.lab.server.ReplayServer`) unless an API key is given,
then the real API. The replay server answers every prompt with the same recorded
stream: `/about` names it, and the page says so above the prompt. The key goes
upstream in `x-api-key` and nowhere else: the page talks only to this app, and no
upstream header comes back to it.

The relay is not an open proxy (anyone who can reach it could spend the key):

- it answers only hosts it knows (`127.0.0.1`, `localhost`: a web page that
  rebinds its own domain name to this machine is refused, 400);
- it forwards only the page's own requests: same origin (`Origin` and
  `Sec-Fetch-Site`, which a browser sets and a web page cannot forge), else 403;
- it accepts only its own request shape, `{"prompt": str}` of at most
  MAX_PROMPT_CHARS characters, as JSON (else 400, 415 or 422), in a body of at
  most MAX_BODY_BYTES (else 413, read no further), and builds the upstream
  request itself; no header or field of the page's is forwarded.

Its settings are checked when it starts (`lab/settings.py`): a key that is not
printable ASCII, or a URL holding a CR, LF or space, is refused in one sentence
rather than failing every request; a URL's password is never shown.

What the page gets back is the upstream's stream, or an error of the relay's
own (JSON, `{"type": "error", ...}`, never the upstream's body or content type):

- a non-200 answer: its status if it is a 4xx, else 502 (the relay never
  answers a 500), with the API error's type and message if its body (read up
  to MAX_ERROR_BYTES) is one;
- a 200 whose content type is not `text/event-stream` (a JSON error, an HTML
  page): 502, saying so, with the API error's message if the body is one;
- a stream compressed though the relay asked for none (`accept-encoding:
  identity`): 502, as its bytes could be neither passed on as they come nor
  searched for the key;
- no answer at all: 502 (unreachable) or 504 (silent past the read timeout).

The page hanging up (Stop, a closed tab) closes the upstream request at once,
whether its headers, its error body or its stream were on their way. One HTTP
client serves every request (opened at start-up, closed at shutdown). How an
upstream that does not stream is answered: `upstream.py`.

With the local replay server, the page's query parameters `error_after`,
`drop_at`, `pace`, `first_token_delay` and `hold_open` are forwarded to it
(its faults: `server.py`), so the page can be shown an error mid-stream or a cut
stream. They are never sent to the real API.

Deliberately not handled: conversations (one prompt, one answer), running the
tool, authentication of the page's user (the app is for this machine only).

The upstream request is built here from the prompt alone:

    >>> body = upstream_request("fix calc.py")
    >>> body["stream"], [tool["name"] for tool in body["tools"]], body["messages"]
    (True, ['write_file'], [{'role': 'user', 'content': 'fix calc.py'}])
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Send

from ..lab.settings import StreamRedactor, checked_key, checked_upstream
from ..lab.threaded import BodyTooLarge, read_body
from ..language import _, current_language, language_named
from ..partial_json_strings import SURROGATE
from ..tools.i18n import STEPPER, words
from .upstream import (
    SSE,
    media_type,
    problem,
    read_capped,
    unless_the_page_hangs_up,
    upstream_problem,
)
from .words import page_words

STATIC = Path(__file__).parent / "static"
REAL_API = "https://api.anthropic.com"
API_VERSION = "2023-06-01"  # the `anthropic-version` header the API requires
MODEL = "claude-haiku-4-5"
MAX_TOKENS = 1024
MAX_PROMPT_CHARS = 4000  # one question, not a document: a cap on what the key can be spent on
MAX_BODY_BYTES = 64 * 1024  # the request body is refused before parsing beyond this
LOOPBACK_HOSTS = [
    "127.0.0.1",
    "localhost",
]  # the Host names answered by default (no IPv6: it listens on IPv4)
# Seconds: to connect upstream, and to wait for each read (the real API sends a `ping`
# well within this); a silent upstream past it is a 504. Shorter ones for tests.
UPSTREAM_TIMEOUT = httpx.Timeout(10.0, read=300.0)
# The replay server's faults (server.py) the page may ask for; the local upstream only.
FAULTS = ("error_after", "drop_at", "pace", "first_token_delay", "hold_open")

# The one tool the model is offered: the course fixture's `write_file`.
WRITE_FILE = {
    "name": "write_file",
    "description": "Write a text file: its path and its whole new content.",
    "input_schema": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}

TOOL_SCHEMAS = {WRITE_FILE["name"]: WRITE_FILE["input_schema"]}  # for the learner's verdicts
KEPT_REPORTS = 16  # the learner's client's reports kept for the page (`GET /yours/N`)
REPORT_WAIT = 5.0  # seconds the page's request for a report waits for the reading to end

log = logging.getLogger("streaming_lib.chat")

# The page is a template (its words filled in, chat/words.py); its script and style are as they are.
PAGE = Environment(loader=FileSystemLoader(STATIC), autoescape=True, undefined=StrictUndefined)


def render_page(lang: str) -> str:
    """The page (static/index.html) in `lang`: its own words, and chat.js's table of words
    (`words.page_words`), filled in. ValueError for a language with no catalogue."""
    table = page_words(lang)
    return PAGE.get_template("index.html").render(
        html_lang=words(STEPPER, lang)["html_lang"], words=table, say=table.__getitem__
    )


def cross_origin(request: Request) -> str | None:
    """Why `request` is not the page's own (a str), or None if it is.

    A browser sends `Origin` with every POST, and `Sec-Fetch-Site` with every
    request (Fetch Metadata); a script on another site can set neither. So a
    request without `Origin` is not from our page, and one whose `Origin` is
    not this app's own scheme://host:port comes from another site.
    """
    origin = request.headers.get("origin")
    if origin is None:
        return _("no Origin header: only the chat page may use the relay")
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    if origin != own:
        return _(
            "cross-origin request from {origin}: only the chat page ({own}) may use the relay",
            origin=origin,
            own=own,
        )
    site = request.headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        return _("Sec-Fetch-Site is {site}: only the chat page may use the relay", site=site)
    return None


async def read_prompt(request: Request) -> str | Response:
    """The prompt of a `{"prompt": str}` JSON body, or the error response refusing it."""
    # Media types are case-insensitive (RFC 9110, 8.3.1).
    if media_type(request.headers.get("content-type")) != "application/json":
        return problem(415, _("the body must be JSON (content-type: application/json)"))
    try:
        body = await read_body(request, MAX_BODY_BYTES)  # a huge body is never held whole
    except BodyTooLarge:
        return problem(413, _("the body is over {limit} bytes", limit=MAX_BODY_BYTES))
    except ClientDisconnect:  # gone (or cut off as too slow) before its body ended
        return problem(400, _("the page hung up before its request ended"))  # read by no one
    try:
        fields = json.loads(body)
    except (ValueError, RecursionError) as error:  # RecursionError: nested past Python's stack
        return problem(400, _("the body is not JSON: {error}", error=type(error).__name__))
    if not (
        isinstance(fields, dict) and set(fields) == {"prompt"} and isinstance(fields["prompt"], str)
    ):
        return problem(422, _('the body must be {{"prompt": "..."}} and nothing else'))
    prompt = fields["prompt"]
    if not prompt.strip() or len(prompt) > MAX_PROMPT_CHARS:
        return problem(
            422, _("the prompt must hold from 1 to {limit} characters", limit=MAX_PROMPT_CHARS)
        )
    if not prompt.isascii() and SURROGATE.search(prompt):  # half a character: not text at all
        return problem(422, _("the prompt holds half a character (a lone UTF-16 surrogate)"))
    return prompt


def upstream_request(prompt: str) -> dict[str, Any]:
    """The Messages API request body the relay sends for `prompt` (built here, never taken from the
    page)."""
    return {
        "model": MODEL,
        "max_tokens": MAX_TOKENS,
        "stream": True,
        "tools": [WRITE_FILE],
        "messages": [{"role": "user", "content": prompt}],
    }


class RelayResponse(StreamingResponse):
    """A `StreamingResponse` that passes a cut upstream on as a cut.

    If the upstream hangs up mid-body, ending our body cleanly would tell the
    page "that was all". Instead we never send the final empty body message:
    uvicorn then closes the connection with the body unfinished, and the page's
    reader fails as it would have on the upstream's connection.
    """

    def __init__(
        self, chunks: AsyncIterator[bytes], *, cut: list[bool], headers: dict[str, str]
    ) -> None:
        super().__init__(chunks, headers=headers)
        self.cut = cut  # set to [True] by the body's generator when the upstream hung up

    async def stream_response(self, send: Send) -> None:
        async def send_all_but_a_cut_end(message: Message) -> None:
            if (
                message["type"] == "http.response.body"
                and not message.get("more_body", False)
                and self.cut[0]
            ):
                return
            await send(message)

        await super().stream_response(send_all_but_a_cut_end)


def build_app(
    upstream: str,
    *,
    api_key: str | None = None,
    faults: bool = False,
    allowed_hosts: list[str] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout: httpx.Timeout = UPSTREAM_TIMEOUT,
    replaying: str | None = None,
    core: Callable[[httpx.Response], AsyncIterator[bytes]] | None = None,
    reader: Callable[[], Any] | None = None,
    lang: str | None = None,
) -> Starlette:
    """The chat app (ASGI), relaying to the Messages API at `upstream` (a base URL, no `/v1`).

    `api_key` is sent upstream as `x-api-key` (None: no key, as the replay
    server needs none). `faults`: forward the page's fault query parameters
    (only for the local replay server). `allowed_hosts`: the `Host` names
    answered (default: the loopback names). `transport`: httpx's, for tests;
    `timeout`: the upstream's (default UPSTREAM_TIMEOUT). `replaying`: the name of the
    recorded stream the upstream replays whatever the prompt (None: a real model
    answers), which `/about` tells the page. The app's HTTP client
    is opened by its lifespan: run it with a server, or in `with TestClient(app)`.

    Lesson 07 runs the app on the learner's code: `core(upstream)` is the relay's
    streaming core (`my_client/relay.py`: an async generator of the upstream body's
    pieces; None: the app's own), and `reader()` makes a reader (`.feed(piece)`,
    `.finish(cut, schemas) -> dict`: `tools/my_client/beside.py`) that reads the same
    pieces as they are relayed; its report is at `GET /yours/N`, N given to the page
    in the `x-your-client` header of the answer.

    `lang`: the language of the page ("en", "zh"; None: the language in use when the app
    is built, `streaming_lib.set_language`); a page asked for with `?lang=` names its own.

    Raises ValueError if `upstream` is not an http(s) URL with a host, or `api_key` is not
    printable ASCII (`checked_key`).
    """
    upstream = checked_upstream(upstream)
    page_lang = current_language() if lang is None else language_named(lang)
    if page_lang is None:
        raise ValueError(f"the chat page speaks no language {lang!r}")
    if api_key is not None:
        checked_key(api_key)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, httpx.AsyncClient]]:
        async with httpx.AsyncClient(transport=transport, timeout=timeout) as client:
            yield {"client": client}  # each request's `request.state.client`

    reports: dict[int, asyncio.Future[dict[str, Any]]] = {}  # reading number -> its report

    def new_reading() -> tuple[int, asyncio.Future[dict[str, Any]], Any]:
        number = max(reports, default=0) + 1
        # The reading's own future: the table may drop it (more than KEPT_REPORTS readings
        # begun since) while its stream still runs, and its end must not depend on the table.
        future = reports[number] = asyncio.get_running_loop().create_future()
        for old in sorted(reports)[:-KEPT_REPORTS]:  # only the last few are kept
            del reports[old]
        return number, future, reader() if reader is not None else None

    async def yours(request: Request) -> Response:
        number = request.path_params["number"]
        if number not in reports:
            return problem(
                404,
                _(
                    "no reading {number}: the relay keeps the last {count}",
                    number=number,
                    count=KEPT_REPORTS,
                ),
            )
        try:
            with anyio.fail_after(REPORT_WAIT):
                return JSONResponse(await asyncio.shield(reports[number]))
        except TimeoutError:
            return problem(504, _("reading {number} has not finished", number=number))

    async def page(request: Request) -> Response:
        # ?lang=zh, zh-CN...: a language with a catalogue; anything else: the app's own.
        asked = language_named(request.query_params.get("lang", "")) or page_lang
        return HTMLResponse(render_page(asked), headers={"cache-control": "no-cache"})

    async def about(request: Request) -> Response:
        return JSONResponse({"model": MODEL, "replaying": replaying})

    async def icon(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon")

    async def chat(request: Request) -> Response:
        refusal = cross_origin(request)
        if refusal is not None:
            return problem(403, refusal)
        prompt = await read_prompt(request)
        if isinstance(prompt, Response):
            return prompt
        params = {
            name: request.query_params[name]
            for name in FAULTS
            if faults and name in request.query_params
        }
        headers = {
            "anthropic-version": API_VERSION,
            # No compression: the relay hands on the bytes as they come, and a
            # compressed body would be held back by the decompressor.
            "accept-encoding": "identity",
        }
        if api_key is not None:
            headers["x-api-key"] = api_key

        client: httpx.AsyncClient = request.state.client
        outgoing = client.build_request(
            "POST",
            upstream + "/v1/messages",
            params=params,
            headers=headers,
            json=upstream_request(prompt),
        )
        try:
            response = await unless_the_page_hangs_up(request, client.send(outgoing, stream=True))
        except httpx.TimeoutException as error:
            why = type(error).__name__
            return problem(504, _("the Messages API did not answer in time: {why}", why=why))
        except httpx.HTTPError as error:
            why = type(error).__name__
            return problem(502, _("the Messages API could not be reached: {why}", why=why))
        if response is None:  # the page hung up first: httpx closed the connection
            return problem(400, _("the page hung up before the Messages API answered"))
        if response.status_code != 200 or media_type(response.headers.get("content-type")) != SSE:
            # An API error before the stream (400, 401, 429, 529...), or a 200 that is
            # no stream: the relay's own error, from the body's first bytes; none of its
            # headers, nor its content type, goes to the page.
            try:
                body = await unless_the_page_hangs_up(
                    request, read_capped(response, seconds=timeout.read or 10.0)
                )
            finally:
                with anyio.CancelScope(shield=True):
                    await response.aclose()
            return upstream_problem(
                response.status_code, response.headers.get("content-type"), body or b"", api_key
            )
        coding = response.headers.get("content-encoding", "identity").strip().lower()
        if coding != "identity":
            # Asked for none, it compressed anyway: its bytes cannot be handed on as they
            # come (the page would get them compressed), nor searched for the key.
            with anyio.CancelScope(shield=True):
                await response.aclose()
            return problem(
                502,
                _(
                    "the Messages API compressed its stream ({coding}) though the relay asked "
                    "for none",
                    coding=coding,
                ),
                "api_error",
            )

        cut = [False]
        number, report_of, reading = new_reading() if reader is not None else (0, None, None)
        pieces = core(response) if core is not None else response.aiter_raw()

        async def relay() -> AsyncIterator[bytes]:
            # What must not buffer (the bonus notebook on proxies, bonus/06_proxies_nginx):
            # `aiter_raw` yields each chunk as it is read from the socket (no
            # decoding, no waiting for a full line or event), and StreamingResponse
            # writes each one at once; the response says `cache-control: no-cache`
            # and `x-accel-buffering: no` to any proxy in front of the app.
            ended = False
            # An upstream quoting the key in its stream: the page gets REDACTED instead.
            redactor = StreamRedactor(api_key) if api_key else None
            try:
                try:
                    async for chunk in pieces:
                        sent = chunk if redactor is None else redactor.feed(chunk)
                        if sent:
                            if reading is not None:
                                reading.feed(sent)  # the same piece, for the learner's client
                            yield sent
                    ended = True
                except httpx.HTTPError as error:
                    log.info("the upstream stream was cut: %s", type(error).__name__)
                    cut[0] = True
                finally:
                    # Reached at the end, at a cut, and when the page hangs up (Stop):
                    # Starlette then cancels this generator. The close is shielded from
                    # that cancellation, so the upstream connection is closed at once.
                    with anyio.CancelScope(shield=True):
                        if core is not None:
                            await pieces.aclose()  # type: ignore[attr-defined]
                        await response.aclose()
                if redactor is not None and (held := redactor.flush()):  # the end, or a cut
                    if reading is not None:
                        reading.feed(held)
                    yield held
            finally:
                if reading is not None:  # the learner's code, off the event loop
                    with anyio.CancelScope(shield=True):
                        report = await anyio.to_thread.run_sync(
                            reading.finish, not ended, TOOL_SCHEMAS
                        )
                        if report_of is not None:
                            report_of.set_result(report)

        relay_headers = {
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-cache",
            "x-accel-buffering": "no",
        }
        if reading is not None:
            relay_headers["x-your-client"] = str(number)
        return RelayResponse(relay(), cut=cut, headers=relay_headers)

    routes = [
        Route("/", page, methods=["GET"]),
        Route("/about", about, methods=["GET"]),
        Route("/favicon.ico", icon, methods=["GET"]),
        Route("/chat", chat, methods=["POST"]),
        Route("/yours/{number:int}", yours, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    hosts = allowed_hosts if allowed_hosts is not None else LOOPBACK_HOSTS
    app = Starlette(
        routes=routes,
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
        lifespan=lifespan,
    )
    app.state.upstream = upstream
    return app


class _HushCutRelays(logging.Filter):
    """uvicorn reports an unfinished body as an application error; a relayed cut is on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "ASGI callable returned without completing response."


HUSH = _HushCutRelays()
