"""The errors of every stage, in one place.

Every error is a `StreamError`, says where it happened, and keeps what had
arrived before it, so a stream that fails halfway still hands back its work:

- `.partial`: the message so far (a dict shaped like the API's Message, tool
  inputs filled with their best partial value), or None before `message_start`;
- `.events`: the decoded events received so far (filled by
  `accumulate(..., keep_events=True)`; else []);
- `.event_number` (1-based, counting every event, pings included), `.index`
  (content block) and `.offset` (byte offset in the stream), where they apply.

    >>> from streaming_lib import APIStreamError, accumulate
    >>> error = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    >>> try:
    ...     accumulate(b"event: error\\ndata: " + error + b"\\n\\n")
    ... except APIStreamError as error:
    ...     print(error.error_type, error.retryable, error.event_number)
    overloaded_error True 1
"""

from __future__ import annotations

from typing import Any

# Error types worth retrying after a pause. The API's errors page gives each
# type its HTTP status (invalid_request_error 400, authentication_error 401,
# permission_error 403, not_found_error 404, request_too_large 413,
# rate_limit_error 429, api_error 500, overloaded_error 529); the SDK retries by
# status (`_base_client._should_retry`: 408, 409, 429 and 500 and up). Left out:
# rate_limit_error, since the same type also says a spend limit was reached,
# which no retry cures, and only the `retry-after` header tells the two apart.
RETRYABLE_ERROR_TYPES = frozenset({"overloaded_error", "api_error"})
# The first bytes of a body that is not an event stream kept in its error.
FIRST_BYTES_KEPT = 1024


class StreamError(Exception):
    """Base class: a stream could not be turned into a complete message."""

    def __init__(
        self,
        message: str,
        *,
        partial: dict[str, Any] | None = None,
        event_number: int | None = None,
        index: int | None = None,
        offset: int | None = None,
    ) -> None:
        super().__init__(message)
        self.partial = partial
        self.event_number = event_number
        self.index = index
        self.offset = offset
        self.events: list[Any] = []


class SSEDecodeError(StreamError):
    """The bytes are not valid UTF-8 (raised only with `strict=True`); `.offset` is the bad byte."""


class SizeLimitError(StreamError):
    """A line, or an event's data, is larger than the limit the reader was given
    (`max_line_bytes`, `max_event_bytes`): raised before it is held whole, so
    hostile input cannot fill memory. `.limit` is that limit in bytes; `.offset`
    the byte offset of the line's first byte (None for an event: its lines'
    endings are not kept to count them)."""

    def __init__(self, message: str, *, limit: int, **where: Any) -> None:
        super().__init__(message, **where)
        self.limit = limit


class EventDataError(StreamError):
    """An event's `data` is not a JSON object, or lacks its `type`; `.data` keeps the raw text."""

    def __init__(self, message: str, *, data: str, **where: Any) -> None:
        super().__init__(message, **where)
        self.data = data


class APIStreamError(StreamError):
    """The server sent `event: error` after HTTP 200 (for example `overloaded_error`).

    `.error_type` and `.error_message` come from the event's `error` object;
    `.retryable` is True for the kinds worth retrying (`overloaded_error`,
    `api_error`: `RETRYABLE_ERROR_TYPES` says why). Source: Messages API,
    "Streaming Messages", error events. Also raised for a body that is a JSON
    error object instead of an event stream (`events.body_error`).
    """

    def __init__(
        self, message: str, *, error_type: str | None, error_message: str, **where: Any
    ) -> None:
        super().__init__(message, **where)
        self.error_type = error_type
        self.error_message = error_message
        self.retryable = isinstance(error_type, str) and error_type in RETRYABLE_ERROR_TYPES


class IncompleteStreamError(StreamError):
    """The bytes ended before `message_stop`: a dropped connection, not a finished message.

    Raised by the accumulator when the bytes simply end, and by the network
    helpers (`network.py`) when the connection is cut; then `.offset` is the
    number of body bytes received before the cut."""


class StreamTimeoutError(IncompleteStreamError):
    """Nothing arrived for the read timeout, so the client gave up before `message_stop`.

    Raised by the network helpers (`network.py`). `.timeout` is the timeout
    that expired (float, seconds; None if unknown); `.offset` the number of body
    bytes received before the stall (None: not even the status line and
    headers had come). An `IncompleteStreamError` too: the stream did not
    finish, and whatever catches one (to retry, say) catches both."""

    def __init__(self, message: str, *, timeout: float | None, **where: Any) -> None:
        super().__init__(message, **where)
        self.timeout = timeout


class NotAnEventStreamError(StreamError):
    """The body is not an event stream: an HTML error page, plain text, JSON that
    is no error object, sent with HTTP 200 where `text/event-stream` was due.

    Raised when a body ends without a single event and its lines are no SSE
    fields (bytes alone: `accumulate`, `aaccumulate`), or, where the headers
    are at hand (`lab/network.py`), as soon as they name another content type.
    `.first_bytes` keeps the body's first bytes (at most `FIRST_BYTES_KEPT`),
    `.content_type` the header's value (None when only the bytes were seen).
    Not an `IncompleteStreamError`: nothing was cut, so retrying the same
    request gets the same answer. A JSON error object (`{"type": "error",
    "error": {...}}`) is an `APIStreamError` instead, with its type and message."""

    def __init__(
        self, message: str, *, first_bytes: bytes, content_type: str | None = None, **where: Any
    ) -> None:
        super().__init__(message, **where)
        self.first_bytes = first_bytes[:FIRST_BYTES_KEPT]
        self.content_type = content_type


class APIStatusError(StreamError):
    """The API answered with an HTTP error status (4xx, 5xx) before any byte of the body:
    no stream began, so there is no partial message (`.partial` None).

    `.status_code` (int), `.error_type` and `.error_message` from the API's JSON error body
    (`{"type": "error", "error": {"type", "message"}}`; None and "" for a body that is not
    one, a proxy's HTML page say), `.request_id` from the `request-id` header (or None).
    The anthropic SDK raises its class of the same name, one subclass per status; an error
    after HTTP 200 is an `APIStreamError` instead. Source: API errors,
    https://platform.claude.com/docs/en/api/errors."""

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        error_type: str | None = None,
        error_message: str = "",
        request_id: str | None = None,
        **where: Any,
    ) -> None:
        super().__init__(message, **where)
        self.status_code = status_code
        self.error_type = error_type
        self.error_message = error_message
        self.request_id = request_id


class APIConnectionError(StreamError):
    """No response at all: the server could not be reached (the connection refused, a name
    that does not resolve), or the connection failed or timed out before the status line.
    httpx's error is the `__cause__`. Nothing arrived, so `.partial` is None; asking again
    is safe (the SDK retries it, and raises its class of the same name at the end)."""


class EventOrderError(StreamError):
    """An event arrived where the Messages API never sends it (a delta before its block's start,
    anything before `message_start`, a second `message_start`, an event after `message_stop`)."""


class ToolInputJSONError(StreamError):
    """A tool block's `input_json_delta` fragments did not join into a valid JSON object
    at its `content_block_stop`, and the message did not stop for a reason that explains
    it (`max_tokens`, `model_context_window_exceeded`, `refusal`: the output was cut off).

    Raised once the whole stream was read, since the stop reason comes after the
    block's stop. `.raw` keeps the joined text, `.stop_reason` the message's stop
    reason (None if the stream ended without one), `.problem` what is wrong with the
    text ("is not valid JSON: ..."), `.event_number` the block's `content_block_stop`,
    `.partial` the message with the block's best partial input."""

    def __init__(
        self, message: str, *, raw: str, problem: str = "", stop_reason: Any = None, **where: Any
    ) -> None:
        super().__init__(message, **where)
        self.raw = raw
        self.problem = problem
        self.stop_reason = stop_reason


# -- Other wires (`providers/`): the errors only they can meet ---------------


class ProviderStreamError(APIStreamError):
    """Another provider's stream reported an error after HTTP 200: an OpenAI data line
    holding an `error` object, a Responses API `error` event, a Bedrock exception frame
    (`:message-type` `exception`, for example `throttlingException`).

    `.provider` names the wire ("openai_chat", "openai_responses", "gemini", "bedrock");
    `.error_type` and `.error_message` are as the wire sent them, `.code` the error's
    `code` as sent (an HTTP status such as 503, a word such as "server_error", None
    if it had none); `.retryable` is True for the kinds each provider documents as
    worth retrying after a pause (rate limits, overload, a server error), and for a
    code that is one of the HTTP statuses the SDKs retry (408, 409, 429, 500 and up:
    `RETRYABLE_STATUSES`). `.partial` is the result so far, in that wire's shape."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        retryable: bool = False,
        code: Any = None,
        **details: Any,
    ) -> None:
        super().__init__(message, **details)
        self.provider = provider
        self.code = code
        self.retryable = retryable or self.retryable or retryable_status(code)


# The HTTP statuses the `openai` and `anthropic` SDKs retry (`_should_retry`): a
# timeout, a conflict, a rate limit; 500 and up are checked apart.
RETRYABLE_STATUSES = frozenset({408, 409, 429})


def retryable_status(code: Any) -> bool:
    """Whether `code` is an HTTP status worth retrying after a pause (int, or its digits
    as a str): 408, 409, 429, or 500 and up.

    >>> retryable_status(503), retryable_status("429"), retryable_status(400)
    (True, True, False)
    """
    if isinstance(code, str) and code.isascii() and code.isdigit():
        code = int(code)
    if type(code) is not int:
        return False
    return code in RETRYABLE_STATUSES or 500 <= code <= 599


class FrameError(StreamError):
    """A binary `application/vnd.amazon.eventstream` frame (Bedrock) cannot be read: a CRC32
    that does not match its bytes, a length that cannot be, a header of an unknown type.

    `.offset` is the byte offset, in the whole stream, of the frame's first byte;
    `.problem` what is wrong ("prelude CRC 0x... does not match 0x..."). Never skipped:
    a frame whose bytes are damaged may hold any event. Source: AWS, "Event stream
    encoding" (prelude, headers, payload, two CRC32s)."""

    def __init__(self, message: str, *, problem: str, **where: Any) -> None:
        super().__init__(message, **where)
        self.problem = problem


class SequenceNumberError(EventOrderError):
    """A Responses API event whose `sequence_number` is not the next one: events came out of
    order, or some are missing. `.expected` and `.got` are the two numbers (int);
    `.event_number` counts the events read (1-based). Source: OpenAI API reference,
    "Streaming events" (every event carries its `sequence_number`)."""

    def __init__(self, message: str, *, expected: int, got: Any, **where: Any) -> None:
        super().__init__(message, **where)
        self.expected = expected
        self.got = got


class ResponseStatusError(StreamError):
    """A Responses API stream that ended with `response.failed` or `response.incomplete`:
    no error on the wire's HTTP level, yet no finished response.

    `.status` is "failed" or "incomplete"; `.reason` the response's `error` (failed:
    `{"code", "message"}`) or `incomplete_details` (incomplete: `{"reason"}`), as sent;
    `.partial` the response so far (the output items built from the deltas, the
    terminal event's fields on top); `.retryable` True when a failed response's
    error `code` is one OpenAI's error codes page says to retry after a pause
    (`rate_limit_exceeded`, `server_error`). Source: OpenAI API reference,
    "Streaming events"."""

    def __init__(
        self, message: str, *, status: str, reason: Any, retryable: bool = False, **where: Any
    ) -> None:
        super().__init__(message, **where)
        self.status = status
        self.reason = reason
        self.retryable = retryable
