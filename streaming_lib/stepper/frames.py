"""The stepper's frames: what every stage holds after each network chunk.

A frame is a photograph of the whole pipeline (`LineDecoder`, `SSEDecoder`,
`MessageAccumulator`) taken after one more chunk of bytes has arrived. Frames
are a pure function of the bytes and the chunk plan: the widget and the static
page only draw them, they never run a stage themselves.

    >>> raw = b'event: ping\\ndata: {"type":"ping"}\\n\\n'
    >>> frames = compute_frames(raw, 16)
    >>> [frame.kind for frame in frames]
    ['start', 'chunk', 'chunk', 'chunk', 'end']
    >>> frames[1].pending, frames[1].event_type    # "event: ping\\n" ended, "data" waits
    (b'data', 'ping')

Step 0 is "nothing received yet", step k (1..n) is "chunk k has just been
fed", and step n + 1 is the end of the stream (the connection closed: the line
decoder is flushed and a message without `message_stop` is incomplete). A
stage that raises a `StreamError` ends the frames there: a real client stops
reading at its first error, so the frame that raised is the last one.

The stages are fed once, chunk after chunk, and their state is copied after
each chunk; the expensive copies (content, tool inputs) are made only at the
steps where an event arrived, and shared by the frames in between. Computing
every frame of the course fixture at 1-byte chunks takes tens of milliseconds.

Deliberately not handled here: HTML (`html.py`) and widgets (`widget.py`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..accumulator import MessageAccumulator, decode_event, load_json
from ..errors import StreamError
from ..lines import LineDecoder
from ..partial_json import PartialJSONError
from ..sse import SSEDecoder

# The chunk plan that cuts the bytes right after each blank line, so that every
# step delivers one whole event.
EVENT_BY_EVENT = "event"

# A line ending, as the WHATWG stream grammar defines it (CRLF, LF or a lone CR).
LINE_END = re.compile(rb"\r\n|\r|\n")

ChunkSize = int | str  # a number of bytes, or EVENT_BY_EVENT


@dataclass(frozen=True)
class Frame:
    """The state of every stage at one step: plain data only (str, bytes, tuples, dicts).

    Frames share their unchanged parts (the `events` tuple, the `content`
    list) with the frames before them: read them, never mutate them.
    """

    step: int  # 0 = before the first chunk; 1..n = after chunk n; n + 1 = end of stream
    kind: str  # "start", "chunk" or "end"
    start: int  # this step's chunk is raw[start:end] (empty for "start" and "end")
    end: int  # bytes received so far
    # Stage 1, LineDecoder
    pending: bytes  # the unfinished line, as bytes: it may end in half a character
    partial_char: bytes  # the bytes of the half character at the end of `pending`, if any
    after_cr: bool  # the last chunk ended with CR (an LF first in the next one is skipped)
    lines: tuple[str, ...]  # the lines this step completed
    # Stage 2, SSEDecoder
    event_type: str  # the event type buffer ("" means "message")
    data_lines: tuple[str, ...]  # the data buffer, one str per `data:` line
    last_event_id: str | None
    retry: int | None
    events: tuple[dict[str, Any], ...]  # every event dispatched so far: event, data, id, skipped
    new_events: int  # how many of the last `events` this step dispatched
    # Stage 3, MessageAccumulator
    content: list[dict[str, Any]] | None  # message["content"] (None before message_start)
    stopped: tuple[int, ...]  # indices of the blocks whose content_block_stop arrived
    # One dict per tool block: index, name, raw (the JSON buffer, str), parses (json.loads
    # accepts it, as the accumulator's `load_json` will at the stop), partial (the
    # partial-JSON snapshot), preview ("value", "empty" before any value, or "broken:
    # why"), stopped.
    tools: tuple[dict[str, Any], ...]
    stop_reason: str | None
    usage: dict[str, Any] | None
    complete: bool  # message_stop arrived
    error: dict[str, str] | None  # {"type": class name, "message": str} at the step that raised


def event_ends(raw: bytes) -> list[int]:
    """Offsets just past each blank line of `raw`: where an event ends (list of int).

    >>> event_ends(b"data: a\\n\\ndata: b\\r\\n\\r\\n")
    [9, 20]
    """
    ends, line_start = [], 0
    for match in LINE_END.finditer(raw):  # the whole stream at once: a CRLF is never split
        if match.start() == line_start:
            ends.append(match.end())
        line_start = match.end()
    return ends


def chunk_plan(raw: bytes, chunk_size: ChunkSize) -> list[tuple[int, int]]:
    """The chunks as (start, end) offsets in `raw`: `chunk_size` bytes each, or one event each.

    >>> chunk_plan(b"abcdefg", 3)
    [(0, 3), (3, 6), (6, 7)]
    >>> chunk_plan(b"data: a\\n\\ndata: b\\n\\ncut", EVENT_BY_EVENT)   # the rest is a last chunk
    [(0, 9), (9, 18), (18, 21)]
    """
    if chunk_size == EVENT_BY_EVENT:
        cuts = [end for end in event_ends(raw) if end < len(raw)] + [len(raw)]
    elif isinstance(chunk_size, int) and chunk_size >= 1:
        cuts = list(range(chunk_size, len(raw), chunk_size)) + [len(raw)]
    else:
        raise ValueError(f"chunk_size must be a positive int or {EVENT_BY_EVENT!r}, not {chunk_size!r}")
    starts = [0] + cuts[:-1]
    return [(start, end) for start, end in zip(starts, cuts) if end > start]


def incomplete_utf8_tail(data: bytes) -> bytes:
    """The bytes at the end of `data` that start a UTF-8 character without finishing it.

    >>> incomplete_utf8_tail("data: 原".encode()[:-1])
    b'\\xe5\\x8e'
    >>> incomplete_utf8_tail(b"plain ascii")
    b''
    """
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return b""  # ASCII: nothing is cut
        if byte >= 0xC0:  # a lead byte: how long its character should be
            length = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data[-back:] if back < length else b""
    return b""  # only continuation bytes: not the start of a character


class _Recorder:
    """Runs the three stages once and photographs them after every step."""

    def __init__(self) -> None:
        self.lines, self.sse, self.acc = LineDecoder(), SSEDecoder(), MessageAccumulator()
        self.events: tuple[dict[str, Any], ...] = ()
        # The accumulator's view, copied only when an event changed it: copying
        # it after every 1-byte chunk would cost more than the parsing itself.
        self.accumulator_view: dict[str, Any] = self._read_accumulator()

    def run(self, feed: Callable[[], list[str]], *, end_of_stream: bool) -> tuple[tuple[str, ...], int, dict[str, str] | None]:
        """Feed one step (`feed()` returns the completed lines); return (lines, new events, error)."""
        events_before, accepted_before = len(self.events), self.acc.event_number
        completed: list[str] = []
        error = None
        try:
            completed = feed()
            for line in completed:
                self._line(line)
            if end_of_stream:
                self.acc.final_message()  # raises IncompleteStreamError without message_stop
        except StreamError as failure:
            error = {"type": type(failure).__name__, "message": str(failure)}
        if self.acc.event_number != accepted_before:
            self.accumulator_view = self._read_accumulator()
        return tuple(completed), len(self.events) - events_before, error

    def _line(self, line: str) -> None:
        dispatched = self.sse.feed_line(line)
        if dispatched is None:
            return
        event = decode_event(dispatched, self.acc.event_number + 1)
        self.events += (
            {"event": dispatched.event, "data": dispatched.data, "id": dispatched.id, "skipped": event is None},
        )
        if event is not None:
            self.acc.feed(event)

    def _read_accumulator(self) -> dict[str, Any]:
        acc = self.acc
        message = acc.message
        if message is None:
            return {"content": None, "tools": (), "stop_reason": None, "usage": None, "stopped": ()}
        buffers = acc.json_buffers
        tools = []
        for index, parser in sorted(acc.input_parsers.items()):
            raw = buffers.get(index, "")
            try:
                load_json(raw)  # as the accumulator will at the block's stop
                parses = True
            except ValueError:  # not JSON, or too deep, or an integer too long
                parses = False
            # The preview keeps an unfinished string ("ca" of "calc.py"), as a
            # live display would; `snapshot()` returns a fresh copy each time.
            value, preview = None, "value"
            if parser.error is not None:
                preview = "broken: " + str(parser.error)  # not a JSON prefix: no preview any more
            else:
                try:
                    value = parser.snapshot(trailing_strings=True)
                except PartialJSONError:
                    preview = "empty"  # no value has started yet
            block = message["content"][index]
            tools.append(
                {
                    "index": index,
                    "name": block.get("name"),
                    "raw": raw,
                    "parses": parses,
                    "partial": value,
                    "preview": preview,
                    "stopped": index in acc.stopped,
                }
            )
        return {
            "content": copy.deepcopy(message["content"]),
            "tools": tuple(tools),
            "stop_reason": message.get("stop_reason"),
            "usage": copy.deepcopy(message.get("usage")),
            "stopped": tuple(sorted(acc.stopped)),
        }

    def photograph(
        self, step: int, kind: str, start: int, end: int, lines: tuple[str, ...], new_events: int, error: dict[str, str] | None
    ) -> Frame:
        pending, view = self.lines.pending, self.accumulator_view
        return Frame(
            step=step,
            kind=kind,
            start=start,
            end=end,
            pending=pending,
            partial_char=incomplete_utf8_tail(pending),
            after_cr=self.lines.after_cr,
            lines=lines,
            event_type=self.sse.event_type,
            data_lines=tuple(self.sse.data_lines),
            last_event_id=self.sse.last_event_id,
            retry=self.sse.retry,
            events=self.events,
            new_events=new_events,
            content=view["content"],
            stopped=view["stopped"],
            tools=view["tools"],
            stop_reason=view["stop_reason"],
            usage=view["usage"],
            complete=self.acc.complete,
            error=error,
        )


def compute_frames(raw: bytes, chunk_size: ChunkSize = 7) -> list[Frame]:
    """Every frame of stream `raw` (bytes) delivered by `chunk_plan(raw, chunk_size)`.

    Returns n + 2 frames for n chunks (start, one per chunk, end of stream),
    fewer if a stage raises: the frame with `error` set is then the last.
    """
    recorder = _Recorder()
    frames = [recorder.photograph(0, "start", 0, 0, (), 0, None)]
    for step, (start, end) in enumerate(chunk_plan(raw, chunk_size), 1):
        lines, new_events, error = recorder.run(partial(recorder.lines.feed, raw[start:end]), end_of_stream=False)
        frames.append(recorder.photograph(step, "chunk", start, end, lines, new_events, error))
        if error:
            return frames
    lines, new_events, error = recorder.run(recorder.lines.flush, end_of_stream=True)
    frames.append(recorder.photograph(len(frames), "end", len(raw), len(raw), lines, new_events, error))
    return frames


def frame_at(raw: bytes, chunk_size: ChunkSize, step: int) -> Frame:
    """Frame `step` of `compute_frames(raw, chunk_size)` (computes them all: cache the list to step through)."""
    return compute_frames(raw, chunk_size)[step]
