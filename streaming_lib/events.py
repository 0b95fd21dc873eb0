"""Stage 2 to 3: Server-Sent Events in, Messages API events (dicts) out.

Each SSE event of a Messages API stream carries one event as JSON in its data
(source: the API reference, "Streaming Messages"; `event:` repeats its type):

    event: content_block_delta
    data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}

`decode_event` turns one `ServerSentEvent` into that dict; `iter_events` does
the whole way from bytes (`fast.iter_events` the same, faster). Which events
count, and which data must be JSON, is decided by the event's name:

- the Messages API's own names (`API_EVENT_NAMES`) are events: their data must
  be JSON, and its `type`, when it is one of those names too, must be the
  same one; `ping` and `error` win over their data, as in the SDK;
- an event with no `event:` line (or named `message`, which the SSE spec makes
  the same thing) is named by its data's `type`, as proxies that drop the
  `event:` lines send it (https://github.com/earendil-works/pi/issues/1983);
  data that is not a JSON object with such a `type` (OpenAI's bare
  `data: [DONE]`) names no event, and is skipped;
- any other name is an event the API's clients do not know (`done`, as in
  https://github.com/earendil-works/pi/issues/3708, or `keepalive`): it is
  skipped whatever its data, since the API may add
  event types and clients are to skip the ones they do not know (the SDK
  instead parses its data as JSON).

fixtures/README.md, "What the event name decides", lists these rules beside
the SDK's.

Deliberately not handled here: what the events mean, in which order they may
come (`accumulator.py`).

    >>> list(iter_events([b'event: message_stop\\ndata: {"type": "message_stop"}\\n\\n']))
    [{'type': 'message_stop'}]
    >>> list(iter_events([b'data: {"type": "message_stop"}\\n\\nevent: done\\ndata: [DONE]\\n\\n']))
    [{'type': 'message_stop'}]
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from typing import Any

from .errors import APIStreamError, EventDataError, NotAnEventStreamError, StreamError
from .language import Text, _
from .lines import iter_lines
from .partial_json_strings import SURROGATE
from .sse import MAX_EVENT_BYTES, ServerSentEvent, iter_sse, parse_field  # noqa: F401 (ServerSentEvent: for the examples)

# The event types of the Messages API (source: "Streaming Messages", event
# types). Only events with these names are read; any other name is skipped.
API_EVENT_NAMES = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
        "error",
    }
)
# The name an unnamed event gets (WHATWG HTML 9.2.6: the default event type).
UNNAMED = "message"
# The field names a line of an event stream may have (WHATWG HTML 9.2.6), and
# "", the name of a comment (a line starting with ":", as keep-alives are).
SSE_FIELD_NAMES = frozenset({"event", "data", "id", "retry", ""})
# The byte order mark an event stream may start with (WHATWG HTML 9.2.6), in UTF-8.
UTF8_BOM = "\ufeff".encode()
# The bytes of a body kept for `body_error` while no event has come: far more
# than the API's error objects take.
BODY_HEAD_BYTES = 64 * 1024
# jiter (and so `load_json`, and `PartialJSONParser` unless told) rejects a
# value nested inside more lists or objects than this.
JITER_MAX_DEPTH = 200


def decode_event(sse: Any, number: int) -> dict[str, Any] | None:
    """The JSON object (dict) of one Messages API event, or None for an event
    that is none: an unknown name, an unnamed event whose data names no event,
    an event with empty data.

    `sse`: anything with `event` and `data` (str), such as a `ServerSentEvent`.
    `number`: the 1-based number this event will have, for errors.

    - `error`: whatever its data (even empty), it becomes an error event: its
      `error` object if it has one, else its raw text. (A block with no `data:`
      line at all is no event, by the SSE rules: it never gets here, where
      the SDK, which dispatches it anyway, raises.)
    - `ping`: whatever its data, it is `{"type": "ping"}`, which changes nothing.
      (The SDK drops pings; here they are still fed to the accumulator, so they
      count in the event numbers that errors give.)
    - no name (`message`): the data's `type`, if the data is a JSON object and
      its `type` one of `API_EVENT_NAMES`, names the event, which is then read
      as if it had that name; otherwise it is skipped.
    - any other name not in `API_EVENT_NAMES`: skipped, whatever its data.

    Raises `EventDataError`, naming event `number`, when the data of an event
    it reads is not JSON (for an unnamed event: JSON it cannot use), is `null`,
    is nested inside more than 200 lists or objects, holds an integer of over
    4300 digits (Python's limit for `int`), or has a `type` that is another of
    `API_EVENT_NAMES` than the event's name. Other values that are not objects
    are returned as they are: the accumulator rejects them.

        >>> decode_event(ServerSentEvent("message", '{"type": "ping"}'), 1)
        {'type': 'ping'}
        >>> decode_event(ServerSentEvent("keepalive", "{}"), 1) is None
        True
    """
    name, data = sse.event, sse.data
    event: Any = None
    if name == UNNAMED:
        try:
            event = load_json(data)
        except json.JSONDecodeError:
            return None  # not JSON: names no event
        except ValueError as error:  # JSON, but its `type` cannot be read
            raise _data_error(
                number, name, data, _("data cannot be used: {why}", why=str(error))
            ) from None
        name = event.get("type") if type(event) is dict else None
        if type(name) is not str or name not in API_EVENT_NAMES:
            return None
    elif name not in API_EVENT_NAMES:
        return None  # an event the Messages API does not send
    if name == "ping":
        return {"type": "ping"}
    if name == "error":
        if event is None:
            try:
                event = load_json(data)
            except ValueError:
                event = None
        if isinstance(event, dict) and isinstance(event.get("error"), dict):
            return {**event, "type": "error"}
        return {"type": "error", "error": {"type": None, "message": data}}
    if event is not None:
        return event  # unnamed: its data was read above, and its `type` is its name
    if not data:
        return None
    try:
        event = load_json(data)
    except ValueError as error:
        if isinstance(error, json.JSONDecodeError):
            why = _(
                "data is not JSON: {why} (character {position})", why=error.msg, position=error.pos
            )
        else:  # too deep, or an integer of over 4300 digits
            why = _("data cannot be used: {why}", why=str(error))
        raise _data_error(number, name, data, why) from None
    if event is None:  # `null` must not read as "nothing to feed"
        raise _data_error(number, name, data, _("the event is not an object with a 'type'"))
    kind = event.get("type") if type(event) is dict else None
    if kind != name and type(kind) is str and kind in API_EVENT_NAMES:
        raise _data_error(
            number,
            name,
            data,
            _(
                "named {name!r} by its event line but {kind!r} by its data's type",
                name=name,
                kind=kind,
            ),
        )
    return event


def _data_error(number: int, name: str, data: str, why: str) -> EventDataError:
    said = _("event {number} ({name}): {why}", number=number, name=name, why=why)
    return EventDataError(said, data=data, event_number=number)


def iter_events(
    chunks: Iterable[bytes], *, strict: bool = False, max_event_bytes: int | None = MAX_EVENT_BYTES
) -> Iterator[Any]:
    """Yield the Messages API events (dicts) of a stream given as byte chunks.

    `decode_event(sse, n)` for every `sse` of `iter_sse(chunks, strict=strict,
    max_event_bytes=max_event_bytes)` (no line, and no event's data, of more
    than `max_event_bytes` bytes: 16 MiB unless told, None for no limit),
    leaving out the Nones, where `n` counts the events yielded so far plus one
    (1-based, as `MessageAccumulator.event_number` will count them once fed).
    (`streaming_lib.iter_events` gives the same events and errors, faster:
    `fast.iter_events`.)

    Raises `SSEDecodeError` (strict mode, invalid UTF-8), `SizeLimitError` and
    `EventDataError`.

        >>> chunks = [b"event: ping\\ndata: {}\\n\\n", b'data: {"type": "message_stop"}\\n\\n']
        >>> list(iter_events(chunks))
        [{'type': 'ping'}, {'type': 'message_stop'}]
    """
    number = 0  # events yielded so far: an event that is None does not count
    for sse in iter_sse(chunks, strict=strict, max_event_bytes=max_event_bytes):
        event = decode_event(sse, number + 1)
        if event is not None:
            number += 1
            yield event


def body_error(first_bytes: bytes, *, content_type: str | None = None) -> StreamError | None:
    """Why a body gave no event, if it was no event stream: the error to raise
    instead of "the stream ended without message_stop" (None: it may be an
    event stream cut short, an `IncompleteStreamError`).

    `first_bytes`: the body's first bytes (up to `BODY_HEAD_BYTES`), the body
    having ended without a single event (bytes alone), or the whole body
    (at most that many bytes) of a response whose `content_type` header
    (str) is not `text/event-stream`. Read in this order:

    - a JSON error object, `{"type": "error", "error": {"type": ..., "message":
      ...}}` (a gateway's answer with HTTP 200, shaped as the API's error
      responses: "Errors", error shapes; a `type` left out counts as "error"):
      `APIStreamError` with the server's error type and message, retryable as
      an `error` event of that type is;
    - with bytes alone, an empty body (nothing arrived: a connection closed
      before its first byte), only blank lines, or a line that is an SSE field
      (`event:`, `data:`, `id:`, `retry:`) or a comment: None, an event stream;
    - anything else (an HTML page, plain text, other JSON; with a content type,
      whatever it is): `NotAnEventStreamError`, keeping the first bytes.

        >>> body_error(b'{"type":"error","error":{"type":"api_error","message":"Oops"}}')
        APIStreamError('the body is a JSON error object, not an event stream: api_error: Oops')
        >>> body_error(b"<p>Bad gateway</p>")
        NotAnEventStreamError("the body is not an event stream; it begins '<p>Bad gateway</p>'")
        >>> body_error(b"event: message_start\\ndata: {") is None  # an event stream, cut
        True
    """
    # RFC 8259 section 8.1: a parser may ignore a byte order mark that a sender added.
    text = first_bytes.decode("utf-8", "replace").removeprefix("\ufeff")
    error = _error_object(text)
    if error is not None:
        error_type, said = error.get("type"), str(error.get("message") or "")
        summary = ": ".join(str(part) for part in (error_type, said) if part) or _("no details")
        return APIStreamError(
            _("the body is a JSON error object, not an event stream: {summary}", summary=summary),
            error_type=error_type if isinstance(error_type, str) else None,
            error_message=said,
        )
    if content_type is None:
        lines = [line for line in iter_lines([first_bytes], max_line_bytes=None) if line]
        if not lines or any(parse_field(line)[0] in SSE_FIELD_NAMES for line in lines):
            return None
        if _cut_in_a_field_name(first_bytes):
            return None
    start = text[:60] + ("…" if len(text) > 60 else "")
    if content_type is None:
        said = _("the body is not an event stream; {what}", what=_begins(first_bytes, start))
    else:
        said = _(
            "the body is {content_type}, not an event stream; {what}",
            content_type=content_type,
            what=_begins(first_bytes, start),
        )
    return NotAnEventStreamError(said, first_bytes=first_bytes, content_type=content_type)


def _cut_in_a_field_name(first_bytes: bytes) -> bool:
    """Whether `first_bytes` (a whole body) ended inside its first field's name:
    part of a byte order mark, or after it (or without it) part of `event:`,
    `data:`, `id:` or `retry:`, and nothing more. A connection cut there (after
    `ev`, say) carried an event stream as far as anyone can tell."""
    if UTF8_BOM.startswith(first_bytes):
        return True
    rest = first_bytes.removeprefix(UTF8_BOM)
    return any(f"{name}:".encode().startswith(rest) for name in SSE_FIELD_NAMES if name)


def _begins(first_bytes: bytes, start: str) -> Text:
    return _("it is empty") if not first_bytes else _("it begins {start!r}", start=start)


def _error_object(text: str) -> dict[str, Any] | None:
    """The `error` object (dict) of a body that is a JSON error object, else None."""
    try:
        value = load_json(text)
    except ValueError:
        return None
    if (
        type(value) is dict
        and type(value.get("error")) is dict
        and value.get("type", "error") == "error"
    ):
        return value["error"]
    return None


def kept_head(chunks: Iterable[bytes], head: bytearray) -> Iterator[bytes]:
    """Yield `chunks` unchanged, copying their first `BODY_HEAD_BYTES` bytes into
    `head` on the way: what `body_error` reads if no event comes of them."""
    iterator = iter(chunks)
    for chunk in iterator:
        yield chunk  # first: a chunk that is not bytes is the line decoder's to refuse
        head += chunk[: BODY_HEAD_BYTES - len(head)]
        if len(head) >= BODY_HEAD_BYTES:
            yield from iterator  # enough kept: the rest passes through untouched
            return


def load_json(text: str, *, lone_surrogates: str = "keep", allow_nan: bool = True) -> Any:
    """`json.loads(text)`: the same value, or the same error; except that a value
    nested inside more than 200 lists or objects raises ValueError, as jiter (the
    SDK's parser) refuses it. Used for event data and for a tool's input at its
    stop. (`fast.load_json` gives the same, faster: jiter reads the text first.)

    The depth limit is jiter's: the accumulator deep-copies what it keeps, and
    data nested hundreds deep would overflow Python's stack there. So it raises
    only ValueError (JSONDecodeError for text that is not JSON).

    `lone_surrogates`: "keep" (event data: a text delta may hold one half of a
    character whose other half is in the next, which the accumulator pairs),
    or "replace": every surrogate left in a string or key of the value (a
    `\\ud83d` escape without its pair; escaped pairs are one character already)
    becomes U+FFFD, as `PartialJSONParser` reads them (a tool's input).

        >>> load_json('["\\\\ud83d", "\\\\ud83d\\\\ude00"]', lone_surrogates="replace")
        ['�', '😀']

    `allow_nan=False` refuses `NaN`, `Infinity` and `-Infinity`, which Python's
    parsers take but JSON (RFC 8259, section 6) does not have (a tool's input),
    and a number too large for a float (`1e400`), which Python would read as
    infinity, a value no JSON text can hold: "number out of range", as jiter says.
    """
    try:
        value = (
            json.loads(text)
            if allow_nan
            else json.loads(text, parse_constant=_not_json, parse_float=_finite_float)
        )
        too_deep = _nesting(value) > JITER_MAX_DEPTH
    except RecursionError:  # nested far deeper still
        too_deep = True
    if too_deep:
        raise ValueError(f"nested inside more than {JITER_MAX_DEPTH} lists or objects")
    return _replace_surrogates(value) if lone_surrogates == "replace" else value


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (math.inf, -math.inf):
        raise ValueError(f"number out of range: {text} is too large for a float")
    return value


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value (RFC 8259 has no NaN or Infinity)")


def _replace_surrogates(value: Any) -> Any:
    """`value` with every surrogate in its strings and keys made U+FFFD (at most 201 levels
    deep)."""
    if type(value) is str:
        return SURROGATE.sub("\ufffd", value)
    if type(value) is list:
        return [_replace_surrogates(item) for item in value]
    if type(value) is dict:
        return {
            SURROGATE.sub("\ufffd", key): _replace_surrogates(item) for key, item in value.items()
        }
    return value


def _nesting(value: Any) -> int:
    """How many lists or objects enclose the most deeply nested value in `value`
    (0 for a scalar or `[]`, 1 for `[1]` or `[[]]`), counted as jiter counts."""
    depth, level = 0, [value]
    while children := [
        child
        for item in level
        if isinstance(item, (list, dict))
        for child in (item.values() if isinstance(item, dict) else item)
    ]:
        depth, level = depth + 1, children
    return depth
