"""The relay's side of the upstream: what it sends the page when the upstream does not stream.

    unless_the_page_hangs_up(request, work)   `await work`, given up when the page hangs up
    read_capped(response, seconds=S)          the first MAX_ERROR_BYTES of a body, within S seconds
    upstream_problem(status, content_type, body, secret)   the relay's own JSON error for it

Whatever the upstream answers that is not a stream (an API error, a gateway's
HTML page, a JSON error under a 200, a body cut off), the page gets the
relay's own JSON error, shaped like the API's: never the upstream's body,
headers or content type, never a 500. An error message that quotes the key
("invalid x-api-key: sk-ant-...") reaches the page with the key replaced by
REDACTED. The error body is read raw, at most MAX_ERROR_BYTES as sent and,
if the upstream compressed it anyway (the relay asks for `identity`), at most
MAX_ERROR_BYTES once decompressed (gzip and deflate; any other coding is not
read): a small compressed body cannot make the relay hold a large one.

Deliberately not handled: retrying (the page asks again if it wants to).

    >>> body = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    >>> reply = upstream_problem(529, "application/json", body)
    >>> reply.status_code, json.loads(reply.body)["error"]
    (502, {'type': 'overloaded_error', 'message': 'the Messages API answered HTTP 529: Overloaded'})
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import TypeVar

import anyio
import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse

from ..lab.api import MAX_ERROR_BYTES, decoded
from ..lab.settings import redacted
from ..language import _, say

SSE = "text/event-stream"
T = TypeVar("T")


def problem(status: int, message: str, error_type: str | None = None) -> JSONResponse:
    """An error for the page, shaped like the API's (`{"type": "error", "error": {...}}`);
    `error_type` defaults to `forbidden` for a 403, else `invalid_request_error`."""
    kind = error_type or ("forbidden" if status == 403 else "invalid_request_error")
    said = say(message)  # our own sentences in the language in use; the API's as they came
    return JSONResponse(
        {"type": "error", "error": {"type": kind, "message": said}}, status_code=status
    )


def media_type(content_type: str | None) -> str:
    """The media type of a `content-type` value, lower-case, without parameters.

    >>> media_type("Text/Event-Stream; charset=utf-8")
    'text/event-stream'
    """
    return (content_type or "").split(";")[0].strip().lower()


def api_error_of(body: bytes) -> tuple[str, str] | None:
    """The (type, message) of an API error body (`{"type": "error", "error": {...}}`), or None.

    >>> api_error_of(b'{"type": "error", "error": {"type": "overloaded_error", "message": "Busy"}}')
    ('overloaded_error', 'Busy')
    >>> api_error_of(b"<html>502 Bad Gateway</html>") is None
    True
    """
    try:
        fields = json.loads(body)
    except (ValueError, RecursionError):  # cut off, not JSON, or nested past Python's stack
        return None
    error = fields.get("error") if isinstance(fields, dict) else None
    if not isinstance(error, dict):
        return None
    kind, message = error.get("type"), error.get("message")
    if not (isinstance(kind, str) and isinstance(message, str)):
        return None
    return kind, message


def upstream_problem(
    status: int, content_type: str | None, body: bytes, secret: str | None = None
) -> JSONResponse:
    """The relay's own error for an upstream answer that is not a stream (`body`: its first
    bytes): the API error's type and message if `body` is one, else what arrived; `secret`
    (the key) replaced by REDACTED wherever the upstream quoted it."""
    error = api_error_of(body)
    if error is not None:
        error = (redacted(error[0], secret), redacted(error[1], secret))
    media = media_type(content_type) or _("no content type")
    what = _("HTTP {status} with {media}", status=status, media=media)
    if status == 200:  # a 200 that is not an event stream: a gateway's page, a JSON error...
        message = _("the Messages API answered {what}, not an event stream", what=what)
        if error is not None:
            message = _("{said}: {type}: {detail}", said=message, type=error[0], detail=error[1])
        return problem(502, message, "api_error")
    not_an_error = _("the Messages API answered {what}, not an API error", what=what)
    if 400 <= status <= 499:  # the request's fault (401, 413, 429...): the page gets the same
        if error is not None:
            return problem(status, error[1], error[0])
        return problem(status, not_an_error, "api_error")
    # The upstream's own failure (500, 529...) or an answer the relay cannot use: a 502.
    if error is not None:
        said = _(
            "the Messages API answered HTTP {status}: {detail}", status=status, detail=error[1]
        )
        return problem(502, said, error[0])
    return problem(502, not_an_error, "api_error")


async def read_capped(
    response: httpx.Response, *, seconds: float, cap: int = MAX_ERROR_BYTES
) -> bytes:
    """The first `cap` bytes of `response`'s body (bytes), or what came before it was cut,
    timed out, or took over `seconds` in all (a body trickling in is not waited for).

    At most `cap` bytes are read as sent; a body in gzip or deflate is then
    decompressed to at most `cap` bytes (`decoded`)."""
    body = b""
    with anyio.move_on_after(seconds):
        try:
            async for chunk in response.aiter_raw():  # as sent: no decompression yet
                body += chunk
                if len(body) >= cap:
                    break
        except httpx.HTTPError:  # cut off or timed out: what came is all there is
            pass
        except httpx.StreamConsumed:  # read whole already (httpx.MockTransport's replies)
            return response.content[:cap]
    return decoded(body[:cap], response.headers.get("content-encoding"), cap)


async def unless_the_page_hangs_up(request: Request, work: Awaitable[T]) -> T | None:
    """`await work`, cancelled as soon as the page hangs up (then None).

    For what happens before a response starts (the upstream's headers, its error
    body): Starlette watches for a hang-up only while a response streams.
    """
    result: T | None = None
    failure: Exception | None = None
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            while (await request.receive())["type"] != "http.disconnect":
                pass
            group.cancel_scope.cancel()

        group.start_soon(watch)
        try:
            result = await work
        except Exception as error:  # raised as itself, not inside the task group's ExceptionGroup
            failure = error
        group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    return result
