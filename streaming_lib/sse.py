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
watch, which costs Python about 50 bytes a line beyond its text; `iter_sse`
joins them in groups, so its memory stays near the limit.)

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
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .errors import SizeLimitError
from .lines import LineDecoder

# A `retry` of more digits than this, leading zeros aside (milliseconds: about
# 32 million years), is ignored rather than handed to int(), which refuses
# strings of over 4300 digits.
MAX_RETRY_DIGITS = 18
# The largest data buffer an event may have unless told otherwise, in bytes.
MAX_EVENT_BYTES = 16 * 2**20
# `iter_sse` and `iter_events` keep an open event's data lines joined by this
# many at a time (see `iter_sse`).
LINES_PER_GROUP = 64


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
        self._max = sys.maxsize if max_event_bytes is None else max_event_bytes
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
        name, _, value = line.partition(":")
        if value[:1] == " ":
            value = value[1:]  # only one space is removed: "data:  x" keeps " x"
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
        elif name == "retry":
            digits = value.lstrip("0") or "0"  # "0001500" is 1500
            if value.isascii() and value.isdigit() and len(digits) <= MAX_RETRY_DIGITS:
                self.retry = self.reconnection_time = int(digits)
        # Anything else is ignored, as the spec says; that includes comments
        # (lines starting with ":", so their field name is ""), which servers
        # send as keep-alives.
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        event = None
        if self.data_lines:  # an event with an empty data buffer is dropped
            # Positional arguments, in field order (event, data, id, retry).
            data = "\n".join(self.data_lines)
            event = ServerSentEvent(self.event_type or "message", data, self.last_event_id, self.retry)
        self.event_type = ""
        self.data_lines = []
        self.retry = None
        self._data_bytes = 0
        return event


def utf8_length(text: str) -> int:
    """The number of bytes of `text` in UTF-8 (int), without encoding plain ASCII."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def too_large(limit: int) -> SizeLimitError:
    return SizeLimitError(f"an event's data is larger than {limit} bytes (max_event_bytes)", limit=limit)


def parse_sse(lines: Iterable[str], *, max_event_bytes: int | None = MAX_EVENT_BYTES) -> Iterator[ServerSentEvent]:
    """Yield the events of a stream given as lines (str, no terminators).

    Raises `SizeLimitError` for an event whose data passes `max_event_bytes`."""
    decoder = SSEDecoder(max_event_bytes=max_event_bytes)
    for line in lines:
        event = decoder.feed_line(line)
        if event is not None:
            yield event
    # End of stream: an event still being built had no blank line; it is dropped.


def iter_sse(chunks: Iterable[bytes], *, strict: bool = False,
             max_event_bytes: int | None = MAX_EVENT_BYTES) -> Iterator[ServerSentEvent]:
    """Yield the events of a stream given as byte chunks (stages 1 and 2 together).

    The same events, and errors, as `parse_sse(iter_lines(chunks, strict=strict,
    max_line_bytes=max_event_bytes), max_event_bytes=max_event_bytes)`, faster:
    this loop runs for every line of a stream, so it handles the two lines a
    stream is made of itself (`data: ...` and `event: ...`, split once at their
    first space) and the blank line that dispatches; every other line goes
    through `SSEDecoder.feed_line`. The size of an event's data is checked once
    per batch of lines, not per line: a batch is never more than the chunk that
    brought it, which is in memory already.

    Raises `SSEDecodeError` (strict mode) and `SizeLimitError`.
    """
    lines, decoder = LineDecoder(strict=strict, max_line_bytes=max_event_bytes), SSEDecoder(max_event_bytes=None)
    limit = sys.maxsize if max_event_bytes is None else max_event_bytes
    # The decoder's buffers as local variables, handed to it and back around `feed_line`.
    event_type, data, last_event_id, retry = "", [], None, None
    # The data buffer of an event still open after a batch: which list, how many of
    # its lines are counted, and their bytes. Per batch, so a long event costs O(n).
    # Its lines before `grouped` are joined in groups: each line a str of its own
    # would cost Python about 50 bytes more than its text (measured: an event of
    # "data: xy" lines took 20 times its data buffer), so every LINES_PER_GROUP
    # lines become one str, and memory stays near the limit.
    counted, counted_lines, counted_bytes, grouped = None, 0, 0, 0
    for batch in lines.feed_all(chunks):
        for line in batch:
            if not line:  # dispatch, then reset the buffers, as `SSEDecoder._dispatch` does
                if data:
                    text = "\n".join(data)
                    # UTF-8 takes at most 4 bytes a character: only a long event needs counting.
                    if 4 * len(text) >= limit and utf8_length(text) + 1 > limit:
                        raise too_large(limit)
                    yield ServerSentEvent(event_type or "message", text, last_event_id, retry)
                    data = []
                event_type, retry = "", None
                continue
            # "data: x" is ("data:", " ", "x"); "data:" alone is ("data:", "", ""), the
            # same field with the same empty value. Anything else before the first
            # space ("data:x", "id:", ":") is for the decoder.
            name, _, value = line.partition(" ")
            if name == "data:":
                data.append(value)
            elif name == "event:":
                event_type = value
            else:  # a comment, `id`, `retry`, a field without its space...: the decoder's own rules
                decoder.event_type, decoder.data_lines, decoder.retry = event_type, data, retry
                decoder.feed_line(line)  # never dispatches: the line is not blank
                event_type, data, retry = decoder.event_type, decoder.data_lines, decoder.retry
                last_event_id = decoder.last_event_id
        if data:  # an event goes on after this batch: its data so far must fit
            if data is not counted:
                counted, counted_lines, counted_bytes, grouped = data, 0, 0, 0
            if counted_lines < len(data):  # new lines: their bytes, each with its LF
                text = "\n".join(data[counted_lines:])
                counted_bytes += (len(text) if text.isascii() else utf8_length(text)) + 1
                counted_lines = len(data)
                if counted_bytes > limit:
                    raise too_large(limit)
                if counted_lines - grouped >= LINES_PER_GROUP:
                    data[grouped:] = ["\n".join(data[grouped:])]
                    grouped = counted_lines = len(data)
    # The last batch is the last line if it had no terminator: it cannot be the
    # blank line that dispatches, so it only adds to an event never sent (whose
    # size still counts); reading it, strict mode raises if it is not UTF-8.
