"""Stages 1 and 2 for the SSE wires (OpenAI, Gemini), one chunk at a time, and the loop
that feeds a wire's state machine, sync or async.

The course's own `LineDecoder` and `SSEDecoder` do stages 1 and 2 unchanged; what is
left is reading each event's data as a JSON object, with an `EventDataError` that
names the event's number when it is not one, and one thing the SSE rules ignore:

- **a bare JSON error object among the events.** Google's servers, failing midway,
  write `{"error": {"code": 503, "status": "UNAVAILABLE", ...}}` after the last
  event, on lines of its own and without `data:`. The SSE rules ignore such lines
  (an unknown field name, or no colon at all); read alone, the stream would look
  cut. So the lines that are no SSE field are kept, and at the next blank line or
  at the end of the body, if they make a JSON object holding an `error`, that
  object is handed on as an event of type `error`, where it stood. Anything else
  in them is ignored, as the spec says. (The `google-genai` SDK reads these lines
  the same way.) And an event named `error` whose data is no JSON object (a line
  of text) gives `{"message": <that text>}`: the server's words, not a data error.

`JSONEventDecoder.feed(chunk)` gives `(event type, data)` pairs; `run` and `arun`
drive a wire's accumulator with them, so `accumulate` and `aaccumulate` do the same
work per chunk and give the same result or the same error.

    >>> decoder = JSONEventDecoder(end="[DONE]")
    >>> decoder.feed(b'data: {"a": 1}\\n\\ndata: [DO')
    [('message', {'a': 1})]
    >>> decoder.feed(b'NE]\\n\\n'), decoder.ended
    ([], True)
    >>> JSONEventDecoder().feed(b'data: {"a": 1}\\n\\n{"error": {"code": 503}}\\n\\n')
    [('message', {'a': 1}), ('error', {'error': {'code': 503}})]
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable, Iterator
from typing import Any, Protocol

from ..errors import EventDataError, IncompleteStreamError, StreamError
from ..events import BODY_HEAD_BYTES, SSE_FIELD_NAMES, body_error, load_json
from ..language import _
from ..lines import LineDecoder
from ..sse import MAX_EVENT_BYTES, ServerSentEvent, SSEDecoder, parse_field

Event = tuple[str, dict[str, Any]]  # (the SSE event type, its data as a JSON object)


class JSONEventDecoder:
    """Bytes cut anywhere in, `(event type, data)` pairs out, data a JSON object (dict).

    `feed(chunk: bytes) -> list[Event]` gives the events `chunk` completes;
    `close() -> list[Event]` is the end of the body. `end` is the data that closes
    the stream (OpenAI's `[DONE]`, which is not JSON): once it comes, `ended` is
    True and nothing after it is read. `number` counts the events handed out.

    Raises `EventDataError` (data that is not a JSON object: `.event_number`
    1-based, `.data` the raw text); at `close()`, what `events.body_error` makes of
    a body that gave no event at all (`APIStreamError`, `NotAnEventStreamError`), and
    `IncompleteStreamError` when `end` never came.
    """

    def __init__(self, *, end: str | None = None) -> None:
        self.end = end
        self.ended = False
        self.number = 0
        self.lines = LineDecoder(max_line_bytes=MAX_EVENT_BYTES)
        self.sse = SSEDecoder(max_event_bytes=MAX_EVENT_BYTES)
        # Lines since the last blank line that are no SSE field: maybe a bare JSON body.
        self.stray: list[str] = []
        self.stray_bytes = 0  # their size (characters, line ends included)
        self.head = bytearray()  # the body's first bytes, examined if no event comes

    def feed(self, chunk: bytes) -> list[Event]:
        if self.ended:
            return []
        lines = self.lines.feed(chunk)
        if len(self.head) < BODY_HEAD_BYTES:
            self.head += chunk[: BODY_HEAD_BYTES - len(self.head)]
        return self._read(lines, at_end=False)

    def close(self) -> list[Event]:
        """The end of the body: the events its last line completes (a bare error object)."""
        if self.ended:
            return []
        events = self._read(self.lines.flush(), at_end=True)
        if self.number == 0 and (error := body_error(bytes(self.head))) is not None:
            raise error
        return events

    def check_ended(self) -> None:
        """After `close()`: `IncompleteStreamError` if the closing data never came."""
        if self.end is not None and not self.ended:
            raise IncompleteStreamError(
                _("the stream ended without its closing data: {end}", end=self.end)
            )

    def _read(self, lines: list[str], *, at_end: bool) -> list[Event]:
        events: list[Event] = []
        for line in lines:
            if self.ended:
                break
            if not line:
                events += self._stray_error()
            elif parse_field(line)[0] not in SSE_FIELD_NAMES:
                self._keep_stray(line)
            sse = self.sse.feed_line(line)
            if sse is not None:
                if self.end is not None and sse.data == self.end:
                    self.ended = True
                    break
                self.number += 1
                events.append((sse.event, self._data(sse)))
        if at_end and not self.ended:
            events += self._stray_error()
        return events

    def _data(self, sse: ServerSentEvent) -> dict[str, Any]:
        """The event's data; for an event named `error`, data that is no JSON object
        (a line of text) is the error's message, not a data error hiding it."""
        try:
            return decode_data(sse, self.number)
        except EventDataError:
            if sse.event != "error":
                raise
            return {"message": sse.data}

    def _keep_stray(self, line: str) -> None:
        # An error object is small: past BODY_HEAD_BYTES of stray text, it is none, and
        # the lines are dropped, as the SSE rules drop them, so junk cannot fill memory.
        if self.stray_bytes <= BODY_HEAD_BYTES:
            self.stray.append(line)
            self.stray_bytes += len(line) + 1

    def _stray_error(self) -> list[Event]:
        """The stray lines as an `error` event, if they make a JSON error object."""
        text, too_long = "\n".join(self.stray), self.stray_bytes > BODY_HEAD_BYTES
        self.stray, self.stray_bytes = [], 0
        if not text or too_long:
            return []
        try:
            value = load_json(text)
        except ValueError:
            return []  # not JSON: ignored, as the SSE rules ignore such lines
        if type(value) is not dict or not value.get("error"):
            return []
        self.number += 1
        return [("error", value)]


def iter_json(chunks: Iterable[bytes], *, end: str | None = None) -> Iterator[dict[str, Any]]:
    """Each event's data (dict), in order: `JSONEventDecoder` over `chunks`, its errors
    included (a bare error object comes as its data, `{"error": ...}`).

        >>> list(iter_json([b'data: {"a": 1}\\n\\ndata: [DONE]\\n\\n'], end="[DONE]"))
        [{'a': 1}]
    """
    decoder = JSONEventDecoder(end=end)
    for chunk in as_chunks(chunks):
        yield from (data for _, data in decoder.feed(chunk))
        if decoder.ended:
            return
    yield from (data for _, data in decoder.close())
    decoder.check_ended()


def decode_data(sse: ServerSentEvent, number: int) -> dict[str, Any]:
    """One event's data as a JSON object (dict); `EventDataError` if it is not one."""
    try:
        value = load_json(sse.data)
    except ValueError as error:
        raise EventDataError(
            _("event {number}: data is not JSON ({error})", number=number, error=str(error)),
            data=sse.data,
            event_number=number,
        ) from None
    if not isinstance(value, dict):
        raise EventDataError(
            _("event {number}: data is not a JSON object", number=number),
            data=sse.data,
            event_number=number,
        )
    return value


class WireAccumulator(Protocol):
    """What `run` needs of a wire's state machine."""

    @property
    def number(self) -> int: ...  # the events fed so far

    def feed(self, data: dict[str, Any], event: str = "message", /) -> None: ...

    @property
    def done(self) -> bool: ...  # the wire's last event came: read no further

    def snapshot(self) -> dict[str, Any] | None: ...  # the result so far

    def result(self) -> dict[str, Any]: ...  # the final result, or IncompleteStreamError


def as_chunks(chunks: Iterable[bytes]) -> Iterable[bytes]:
    """One bytes-like object is one chunk (iterating it would give ints)."""
    if isinstance(chunks, (bytes, bytearray, memoryview)):
        return [bytes(chunks)]
    return chunks


def _feed(acc: WireAccumulator, decoder: JSONEventDecoder, events: list[Event]) -> bool:
    """Feed `events` to `acc`; True once nothing more is to be read."""
    for event, data in events:
        acc.feed(data, event)
        if acc.done:
            return True
    return decoder.ended


def _fill(error: StreamError, acc: WireAccumulator) -> None:
    if error.partial is None:
        error.partial = acc.snapshot()
    if error.event_number is None:
        error.event_number = acc.number


def run(acc: WireAccumulator, chunks: Iterable[bytes], *, end: str | None = None) -> dict[str, Any]:
    """Feed `acc` the events of `chunks` (bytes cut anywhere); its final result (dict).

    Every `StreamError` leaves with `.partial` (the result so far) and `.event_number`."""
    decoder = JSONEventDecoder(end=end)
    try:
        for chunk in as_chunks(chunks):
            if _feed(acc, decoder, decoder.feed(chunk)):
                break
        else:
            if not _feed(acc, decoder, decoder.close()):
                decoder.check_ended()
        return acc.result()
    except StreamError as error:
        _fill(error, acc)
        raise


async def arun(
    acc: WireAccumulator, chunks: AsyncIterable[bytes], *, end: str | None = None
) -> dict[str, Any]:
    """`run` over async byte chunks: the same work per chunk, the same result or error;
    only the wait for the next chunk is async. Asks for no chunk after the wire's last
    event. Closing the connection stays the caller's."""
    decoder = JSONEventDecoder(end=end)
    try:
        async for chunk in chunks:
            if _feed(acc, decoder, decoder.feed(chunk)):
                break
        else:
            if not _feed(acc, decoder, decoder.close()):
                decoder.check_ended()
        return acc.result()
    except StreamError as error:
        _fill(error, acc)
        raise
