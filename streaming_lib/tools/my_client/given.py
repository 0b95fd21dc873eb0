"""What the lessons give around the learner's code: the leaves of each stage.

The learner's files in `my_client/` hold the rules of each stage (`feed` of the line
decoder, `feed_line` of the SSE decoder, the accumulator's whole state machine: the order
rule, the dispatch, every handler and `final_message`; the tool input at the stop; the
retry policy; the client's request loop); this module holds what the lessons hand out
around them, the same as the lessons' own cells: the decoders' and the accumulator's
state, the delta rules (a table of one-line leaves), `open_block` and the best partial
input of a tool block (lesson 04's preview), and for the client (lesson 06) the httpx
call's boilerplate and the typed errors it raises (`send`, `Body`, `status_error`,
`connection_error`, `not_an_event_stream`).
Nothing here decides anything the learner writes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx

from ...errors import (
    APIConnectionError,
    APIStatusError,
    EventOrderError,
    StreamError,
    ToolInputJSONError,
)
from ...lab.api import API_VERSION, error_body
from ...lab.network import DROPPED, STALLED, not_an_event_stream, transport_error  # noqa: F401
from ...language import _
from ...partial_json import PartialJSONError, parse_partial_json
from ...tool_calls import CUT_OFF_STOP_REASONS
from .reports import named

__all__ = ["CUT_OFF_STOP_REASONS", "DELTA_RULES", "TOOL_BLOCKS", "Accumulator", "LineDecoder"]
__all__ += ["SSEDecoder", "open_block", "send", "status_error", "connection_error", "Body"]

# Blocks whose input comes as JSON text in `input_json_delta` fragments (lesson 03).
TOOL_BLOCKS = {"tool_use", "server_tool_use", "mcp_tool_use"}


def add_text(block: dict[str, Any], delta: dict[str, Any]) -> None:
    block["text"] += delta["text"]


def add_citation(block: dict[str, Any], delta: dict[str, Any]) -> None:
    block["citations"] = (block.get("citations") or []) + [delta["citation"]]


def add_thinking(block: dict[str, Any], delta: dict[str, Any]) -> None:
    block["thinking"] += delta["thinking"]


def set_signature(block: dict[str, Any], delta: dict[str, Any]) -> None:
    block["signature"] = delta["signature"]  # it comes whole, once: set, never append


# delta type -> rule(block, delta); a delta type not here is skipped (lesson 03).
DELTA_RULES: dict[str, Callable[[dict[str, Any], dict[str, Any]], None]] = {
    "text_delta": add_text,
    "citations_delta": add_citation,
    "thinking_delta": add_thinking,
    "signature_delta": set_signature,
}


class LineDecoder:
    """Lesson 02's line decoder without its `feed`, which is the learner's: the state
    (`pending` bytes of the unfinished line, `after_cr`) and `flush`."""

    feed: Callable[[LineDecoder, bytes], list[str]]

    def __init__(self) -> None:
        self.pending = bytearray()  # the unfinished line's bytes (it grows in place)
        self.after_cr = False  # the last chunk ended with CR: an LF next ends no line

    def flush(self) -> list[str]:
        """The stream ended: its last line if no line ending closed it (0 or 1 str).

        >>> decoder = LineDecoder()
        >>> decoder.pending += b"data: no line ending"
        >>> decoder.flush(), decoder.flush()
        (['data: no line ending'], [])
        """
        lines = [self.pending.decode("utf-8", errors="replace")] if self.pending else []
        self.pending = bytearray()
        return lines


class SSEDecoder:
    """Lesson 01's buffers of the event being built (WHATWG HTML 9.2.6), as plain attributes."""

    def __init__(self) -> None:
        self.event_type = ""  # the event type buffer: "" dispatches as "message"
        self.data_lines: list[str] = []  # the data buffer, one str per line, joined at dispatch
        self.last_event_id: str | None = None  # kept from one event to the next
        self.retry: int | None = None  # a retry value read within this event, in ms
        self.reconnection_time: int | None = None  # the stream's: the last valid retry


def open_block(acc: Accumulator, index: int) -> dict[str, Any]:
    """Block `index` of the message, which must have started and not stopped; raises
    EventOrderError otherwise (lesson 03's order rule for deltas and stops)."""
    content = acc.message["content"]  # type: ignore[index]
    if not 0 <= index < len(content):
        raise EventOrderError(f"an event for block {index}, which never started")
    if index in acc.stopped:
        raise EventOrderError(f"an event for block {index}, which already stopped")
    return content[index]


Handler = Callable[["Accumulator", dict[str, Any]], None]


class Accumulator:
    """Lesson 03's accumulator state, as plain attributes; the learner's
    `my_client/accumulator.py` holds every rule that changes it (`feed`, the handlers,
    `final_message`). `make_input(fragments, index)` makes a tool block's input at its
    stop: lesson 04's `tool_input`, reached through `acc.tool_input`."""

    def __init__(self, make_input: Callable[..., Any]) -> None:
        self.make_input = make_input
        self.message: dict[str, Any] | None = None  # None before message_start
        self.json_parts: dict[int, list[str]] = {}  # block index -> its input's fragments
        self.stopped: set[int] = set()  # the blocks whose content_block_stop arrived
        self.complete = False  # message_stop arrived
        # Tool inputs that were not JSON at their stop: judged at the end, when the stop
        # reason says whether the output was cut off (then the best partial input stands).
        self.input_errors: dict[int, ToolInputJSONError] = {}

    def tool_input(self, fragments: list[str], index: int) -> Any:
        """Block `index`'s input at its stop, made by `make_input`; when that raises
        ToolInputJSONError, the best partial input, the error kept in `input_errors`."""
        try:
            return self.make_input(fragments, index)
        except ToolInputJSONError as error:
            self.input_errors[index] = error
            return self.best_input(index)

    def best_input(self, index: int) -> Any:
        """What a preview shows of block `index`'s input when its JSON never finished
        (lesson 04's partial JSON): display only, never to run."""
        try:
            value = parse_partial_json("".join(self.json_parts[index]))
        except PartialJSONError:
            return self.message["content"][index].get("input", {})  # type: ignore[index]
        return {} if value is None else value


# -- lesson 06: the client's request, its body and its errors -------------------------

READ_TIMEOUT = 600.0  # seconds: the SDK's default wait for the next bytes (10 minutes)
CONNECT_TIMEOUT = 5.0  # seconds to connect, as the SDK's default


def send(
    client: httpx.Client, request: dict[str, Any], *, base_url: str, api_key: str
) -> httpx.Response:
    """`POST {base_url}/v1/messages` with `request` (a dict, as the Messages API takes it) and
    `"stream": true`, the key and the API version in the headers; returns the response as
    soon as its status line and headers are in, its body unread (`client.send(...,
    stream=True)`: close it, or read it in a `with`). A query in `base_url` is kept (the
    replay server's faults: `http://127.0.0.1:8765?status=529`). Raises
    httpx.TransportError (ConnectError, ReadTimeout, ...) when no response came."""
    url = httpx.URL(base_url)
    url = url.copy_with(path=url.path.rstrip("/") + "/v1/messages")
    headers = {"x-api-key": api_key, "anthropic-version": API_VERSION}
    outgoing = client.build_request("POST", url, headers=headers, json={**request, "stream": True})
    return client.send(outgoing, stream=True)


def status_error(response: httpx.Response) -> APIStatusError:
    """The error for a response with an error status (400 and up): its JSON error body
    read, at most MAX_ERROR_BYTES as sent and again once decompressed (an error body can
    be anything a proxy sends), the response closed, its type and message kept."""
    try:
        error = json.loads(error_body(response)).get("error") or {}
        error_type, message = error.get("type"), str(error.get("message", ""))
    except (ValueError, AttributeError, httpx.HTTPError):  # a proxy's page, or no body
        error_type, message = None, ""
    finally:
        response.close()
    said = _(
        "HTTP {status} before the body: {kind}: {message}",
        status=response.status_code,
        kind=error_type,
        message=message,
    )
    return APIStatusError(
        said,
        status_code=response.status_code,
        error_type=error_type,
        error_message=message,
        request_id=response.headers.get("request-id"),
    )


def connection_error(error: httpx.TransportError) -> APIConnectionError:
    """The error for a try that got no response at all (`error`: httpx's, kept as the cause)."""
    said = _("no response: {error}", error=named(error))
    failed = APIConnectionError(said)
    failed.__cause__ = error
    return failed


class Body:
    """The body of `response` (sent with stream=True), as chunks (bytes) as they arrive.
    A cut connection or a stall past the read timeout ends the chunks instead of raising,
    so that the stages judge what arrived; `.error` then holds our typed error:
    `IncompleteStreamError` (cut) or `StreamTimeoutError` (stalled), with `.offset` the
    body bytes received before it."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.error: StreamError | None = None

    def __iter__(self) -> Iterator[bytes]:
        offset = 0
        try:
            for chunk in self.response.iter_bytes():
                offset += len(chunk)
                yield chunk
        except DROPPED + STALLED as error:
            self.error = transport_error(error, offset)
