"""Stage 2: lines in, Server-Sent Events out.

Follows WHATWG HTML, "9.2.6 Interpreting an event stream", rule by rule:
- a blank line dispatches the event being built;
- a line starting with `:` is a comment and is ignored;
- otherwise the field name is what comes before the first `:` (the whole line
  if there is none) and the value what comes after, minus one leading space;
- `event` sets the event type buffer, `data` appends a line to the data buffer,
  `id` sets the last event ID (unless the value contains NUL), `retry` sets the
  reconnection time (only if the value is all ASCII digits; here at most 18 of
  them, leading zeros aside); any other field is ignored;
- an event is dispatched only if its data buffer is not empty; a final event
  without its blank line is never dispatched.

One rule is ours, not the spec's: an event whose data buffer (each `data:`
value and a LF, in UTF-8 bytes) passes `max_event_bytes` (16 MiB unless told;
the API's largest events are far smaller) is a `SizeLimitError`, raised before
the event is held whole, so an event of endless `data:` lines cannot fill
memory. From bytes, no line may pass that many bytes either (`lines.py`).
(`SSEDecoder.data_lines` keeps each line as a str of its own, for readers to
watch, which costs Python about 50 bytes a line beyond its text; `streaming_lib.iter_sse`
(`fast.py`) joins them in groups, so its memory stays near the limit.)

Deliberately not handled here: bytes and line endings (`lines.py`) and what the
data means (JSON, the Messages API: `accumulator.py`).

    >>> decoder = SSEDecoder()
    >>> decoder.feed_line("event: ping")
    >>> decoder.feed_line("data: {}")
    >>> decoder.feed_line("")
    ServerSentEvent(event='ping', data='{}', id=None, retry=None)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .errors import SizeLimitError
from .language import _
from .lines import iter_lines, size_limit

# A `retry` of more digits than this, leading zeros aside (milliseconds: about
# 32 million years), is ignored rather than handed to int(), which refuses
# strings of over 4300 digits.
MAX_RETRY_DIGITS = 18
# The largest data buffer an event may have unless told otherwise, in bytes.
MAX_EVENT_BYTES = 16 * 2**20


@dataclass(slots=True)
class ServerSentEvent:
    """One dispatched event: its type, its data (str, lines joined with LF), the
    last event ID at dispatch (None if the stream never sent one) and the `retry`
    value (milliseconds) sent within this event, if any.

    A plain record: the decoders never touch an event once they hand it out.
    (Not a frozen dataclass: building a frozen one costs 3x more, and a stream
    builds tens of thousands: measured in benchmarks/.)
    """

    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None

    def json(self) -> Any:
        """The data parsed as JSON (raises `json.JSONDecodeError` if it is not)."""
        return json.loads(self.data)


class SSEDecoder:
    """Feed lines one at a time; a blank line returns the event they built.

    The buffers are plain attributes so a reader (or the stepper) can watch
    them fill: `event_type`, `data_lines`, `last_event_id`, `retry`.
    A `data:` line that takes the data buffer past `max_event_bytes` (None: no
    limit) raises `SizeLimitError` instead of being kept.
    """

    def __init__(self, *, max_event_bytes: int | None = MAX_EVENT_BYTES) -> None:
        # The largest data buffer taken, in bytes (sys.maxsize: no limit), and
        # the size of this event's so far: the limit is checked per line.
        self._max = size_limit(max_event_bytes)
        self._data_bytes = 0
        # The spec's "event type buffer": "" means the default type, "message".
        self.event_type = ""
        # The spec's "data buffer", kept as a list of lines and joined with LF
        # once at dispatch: appending to one growing string would re-copy it
        # for every `data:` line. Non-empty list <=> non-empty data buffer.
        self.data_lines: list[str] = []
        # The spec's "last event ID buffer". It is NOT reset at dispatch: every
        # later event carries it, and a reconnecting client sends it back.
        self.last_event_id: str | None = None
        # A `retry:` value seen in the event being built (milliseconds).
        self.retry: int | None = None
        # The reconnection time: the last valid `retry:`, kept across events.
        self.reconnection_time: int | None = None

    def feed_line(self, line: str) -> ServerSentEvent | None:
        """Process one line (str, no terminator); return an event on dispatch, else None.

        Raises `SizeLimitError` for a `data:` line that takes the data buffer past
        `max_event_bytes`; the line is not kept."""
        if not line:
            return self._dispatch()
        name, value = parse_field(line)
        # Checked in order of frequency: this runs for every line of the stream.
        if name == "data":
            self._data_bytes += utf8_length(value) + 1  # the spec appends the value, then a LF
            if self._data_bytes > self._max:
                raise too_large(self._max)
            self.data_lines.append(value)
        elif name == "event":
            self.event_type = value
        elif name == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif name == "retry" and (milliseconds := retry_value(value)) is not None:
            self.retry = self.reconnection_time = milliseconds
        # Anything else is ignored, as the spec says; that includes comments
        # (lines starting with ":", so their field name is ""), which servers
        # send as keep-alives.
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        event = None
        if self.data_lines:  # an event with an empty data buffer is dropped
            # Positional arguments, in field order (event, data, id, retry).
            data = "\n".join(self.data_lines)
            event = ServerSentEvent(
                self.event_type or "message", data, self.last_event_id, self.retry
            )
        self.event_type = ""
        self.data_lines = []
        self.retry = None
        self._data_bytes = 0
        return event


def parse_field(line: str) -> tuple[str, str]:
    """One line that is not blank (str) -> (field name, value), both str.

    The name is what comes before the first `:` (the whole line if there is
    none), the value what comes after, minus one leading space (WHATWG HTML
    9.2.6, "If the line contains a U+003A COLON character"). A comment's name is "".

        >>> parse_field("data:  x"), parse_field("data"), parse_field(": ping")
        (('data', ' x'), ('data', ''), ('', 'ping'))
    """
    name, _, value = line.partition(":")
    if value[:1] == " ":
        value = value[1:]  # only one space is removed: "data:  x" keeps " x"
    return name, value


def retry_value(value: str) -> int | None:
    """The reconnection time (int, milliseconds) a `retry` field's value sets,
    or None if it sets none: only ASCII digits count (WHATWG HTML 9.2.6),
    and here at most `MAX_RETRY_DIGITS` of them, leading zeros aside.

        >>> retry_value("0001500"), retry_value("1.5"), retry_value("")
        (1500, None, None)
    """
    digits = value.lstrip("0") or "0"  # "0001500" is 1500
    if value.isascii() and value.isdigit() and len(digits) <= MAX_RETRY_DIGITS:
        return int(digits)
    return None


def utf8_length(text: str) -> int:
    """The number of bytes of `text` in UTF-8 (int), without encoding plain ASCII."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def too_large(limit: int) -> SizeLimitError:
    return SizeLimitError(
        _("an event's data is larger than the size limit, {limit} bytes", limit=limit), limit=limit
    )


def parse_sse(
    lines: Iterable[str], *, max_event_bytes: int | None = MAX_EVENT_BYTES
) -> Iterator[ServerSentEvent]:
    """Yield the events of a stream given as lines (str, no terminators).

    Raises `SizeLimitError` for an event whose data passes `max_event_bytes`."""
    decoder = SSEDecoder(max_event_bytes=max_event_bytes)
    for line in lines:
        event = decoder.feed_line(line)
        if event is not None:
            yield event
    # End of stream: an event still being built had no blank line; it is dropped.


def iter_sse(
    chunks: Iterable[bytes], *, strict: bool = False, max_event_bytes: int | None = MAX_EVENT_BYTES
) -> Iterator[ServerSentEvent]:
    """Yield the events of a stream given as byte chunks (stages 1 and 2 together).

    No line, and no event's data, may pass `max_event_bytes` bytes. Raises
    `SSEDecodeError` (strict mode) and `SizeLimitError`. (`streaming_lib.iter_sse`
    gives the same events and errors, faster and in less memory: `fast.iter_sse`.)

        >>> list(iter_sse([b"event: ping\\ndata: {}\\n", b"\\n"]))
        [ServerSentEvent(event='ping', data='{}', id=None, retry=None)]
    """
    lines = iter_lines(chunks, strict=strict, max_line_bytes=max_event_bytes)
    yield from parse_sse(lines, max_event_bytes=max_event_bytes)
