"""The stepper's frames: what every stage holds after each network chunk.

A frame is a photograph of the whole pipeline (`LineDecoder`, `SSEDecoder`,
`MessageAccumulator`) taken after one more chunk of bytes has arrived. Frames
are a pure function of the bytes, the chunk plan and the step: the widget and
the static page only draw them, they never run a stage themselves.

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

Frames are made when asked, not kept. A 1 MiB capture at 1-byte chunks has a
million steps; a list of them all, each with its own copy of the pending line
and of the message, would take gigabytes. So `compute_frames` runs the stages
once over the stream, as a client would, and keeps only:

- the events dispatched, once (every frame shows a prefix of them);
- a checkpoint every `CHECKPOINT_STEPS` steps: a copy of the line and SSE
  decoders, which are small (the pending line, the event being built) and
  the number of events dispatched so far. A checkpoint is skipped while the
  pending line is longer than the bytes fed since the last one, so the
  copies together never hold more than the stream itself.

Frame k is then made by taking the last checkpoint before k, feeding a new
accumulator the events dispatched until then (it is not copied: its message
grows with the stream), and feeding the chunks from there to k: at most
`CHECKPOINT_STEPS` of them, more only inside a line longer than that many
bytes. Going forward from the frame made last (the slider, the play button)
just feeds the chunks in between. A 1 MiB capture at 1-byte chunks opens in
about a second and holds about 5 MB (benchmarks/README.md, benchmark 6).

Deliberately not handled here: HTML (`html.py`) and widgets (`widget.py`).
"""

from __future__ import annotations

import copy
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, overload

from ...accumulator import MessageAccumulator
from ...errors import StreamError
from ...events import decode_event
from ...lines import LINE_END_BYTES, LineDecoder
from ...partial_json import PartialJSONError
from ...sse import ServerSentEvent, SSEDecoder
from ..block_progress import Progress
from ..utf8 import unfinished_character

# The chunk plan that cuts the bytes right after each blank line, so that every
# step delivers one whole event.
EVENT_BY_EVENT = "event"

# Steps between two checkpoints: a frame costs at most this many chunks fed
# (about a millisecond at 1-byte chunks), and a million steps keep a thousand
# small checkpoints.
CHECKPOINT_STEPS = 1024

# Feeding one event again to a resumed accumulator costs about as much as
# feeding this many chunks (measured on benchmarks/streams.py's streams).
RESUME_COST = 3

ChunkSize = int | str  # a number of bytes, or EVENT_BY_EVENT

NOTHING_ENDED: tuple[tuple[str, ...], int, None] = ((), 0, None)  # a step that ended no line


@dataclass(frozen=True)
class Frame:
    """The state of every stage at one step: plain data (str, bytes, tuples, dicts).

    Frames share their unchanged parts (the `events` log, the `content` list)
    with other frames: read them, never mutate them.
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
    # Every event dispatched so far (dicts: event, data, id, skipped), a
    # read-only sequence over the stream's one list of them.
    events: Sequence[dict[str, Any]]
    new_events: int  # how many of the last `events` this step dispatched
    # Stage 3, MessageAccumulator
    content: list[dict[str, Any]] | None  # message["content"] (None before message_start)
    stopped: tuple[int, ...]  # indices of the blocks whose content_block_stop arrived
    # One dict per tool block: index, name, raw (the JSON buffer, str), parses
    # (json.loads accepts it, as the accumulator's `load_json` will at the stop;
    # from `progress.Progress`), partial (the partial-JSON snapshot), preview
    # ("value", "empty" before any value, or "broken: why"), stopped.
    tools: tuple[dict[str, Any], ...]
    stop_reason: str | None
    usage: dict[str, Any] | None
    complete: bool  # message_stop arrived
    error: dict[str, str] | None  # {"type": class name, "message": str} at the step that raised


class EventsSoFar(Sequence[dict[str, Any]]):
    """The first `count` events of a stream's log of dispatched events: what a frame
    shows, without a copy (a tuple per frame would cost the whole log at every step)."""

    __slots__ = ("_log", "_count")

    def __init__(self, log: list[dict[str, Any]], count: int) -> None:
        self._log, self._count = log, count

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[dict[str, Any], ...]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return tuple(self._log[i] for i in range(self._count)[index])
        return self._log[
            range(self._count)[index]
        ]  # negative indices, and IndexError past the count

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Sequence)
            and len(self) == len(other)
            and all(a == b for a, b in zip(self, other, strict=True))
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{self._count} events>"


def event_ends(raw: bytes) -> list[int]:
    """Offsets just past each blank line of `raw`: where an event ends (list of int).

    >>> event_ends(b"data: a\\n\\ndata: b\\r\\n\\r\\n")
    [9, 20]
    """
    ends, line_start = [], 0
    for match in LINE_END_BYTES.finditer(raw):  # the whole stream at once: a CRLF is never split
        if match.start() == line_start:
            ends.append(match.end())
        line_start = match.end()
    return ends


class ChunkPlan:
    """The chunks of `raw` as offsets, without a list of them all: `chunk_size` bytes
    each, or one event each (EVENT_BY_EVENT). `len(plan)` is the number of chunks;
    chunk k (1-based) is raw[start:end] for `(start, end) = plan.bounds(k)`.

    >>> plan = ChunkPlan(b"abcdefg", 3)
    >>> len(plan), plan.bounds(1), plan.bounds(3), plan.step_reaching(4)
    (3, (0, 3), (6, 7), 2)
    """

    def __init__(self, raw: bytes, chunk_size: ChunkSize) -> None:
        self.size = len(raw)
        self._chunk: int | None = None
        self._ends: list[int] = []  # event by event: where each chunk ends
        if chunk_size == EVENT_BY_EVENT:
            self._ends = [end for end in event_ends(raw) if end < len(raw)] + (
                [len(raw)] if raw else []
            )
        elif isinstance(chunk_size, int) and not isinstance(chunk_size, bool) and chunk_size >= 1:
            self._chunk = chunk_size
        else:
            raise ValueError(
                f"chunk_size must be a positive int or {EVENT_BY_EVENT!r}, not {chunk_size!r}"
            )

    def __len__(self) -> int:
        return len(self._ends) if self._chunk is None else -(-self.size // self._chunk)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        """Every chunk's (start, end), in order (made as they are read, not kept)."""
        if self._chunk is None:
            return zip([0, *self._ends[:-1]], self._ends, strict=True)
        size, chunk = self.size, self._chunk
        ends = chain(range(chunk, size, chunk), [size] if size else [])
        return zip(range(0, size, chunk), ends, strict=True)

    def bounds(self, step: int) -> tuple[int, int]:
        """(start, end) of chunk `step` (1..len)."""
        if self._chunk is None:
            return (self._ends[step - 2] if step > 1 else 0), self._ends[step - 1]
        return (step - 1) * self._chunk, min(step * self._chunk, self.size)

    def step_reaching(self, offset: int) -> int:
        """The first step (1..len) after which `offset` bytes have arrived (len if none)."""
        if self._chunk is None:
            return min(bisect_left(self._ends, offset) + 1, len(self))
        return min(max(-(-offset // self._chunk), 1), len(self))


def chunk_plan(raw: bytes, chunk_size: ChunkSize) -> list[tuple[int, int]]:
    """The chunks as (start, end) offsets in `raw`: `chunk_size` bytes each, or one event each.

    >>> chunk_plan(b"abcdefg", 3)
    [(0, 3), (3, 6), (6, 7)]
    >>> chunk_plan(b"data: a\\n\\ndata: b\\n\\ncut", EVENT_BY_EVENT)   # the rest is a last chunk
    [(0, 9), (9, 18), (18, 21)]
    """
    return list(ChunkPlan(raw, chunk_size))


def incomplete_utf8_tail(data: bytes) -> bytes:
    """The bytes at the end of `data` that start a UTF-8 character without finishing it
    (`utf8.unfinished_character(data)[0]`).

    >>> incomplete_utf8_tail("data: 原".encode()[:-1])
    b'\\xe5\\x8e'
    >>> incomplete_utf8_tail(b"data: \\xc0")   # c0 never starts a character
    b''
    """
    return unfinished_character(data)[0]


class _Run:
    """The three stages fed chunk after chunk, as a client feeds them, from step 0 or a
    checkpoint."""

    def __init__(self, log: list[dict[str, Any]]) -> None:
        self.lines, self.sse = LineDecoder(), SSEDecoder()
        self.acc, self.progress = MessageAccumulator(), Progress()
        # Every event the stream dispatches, shared by all runs over it: the
        # first run appends them, a replay only counts them.
        self.log = log
        self.dispatched = 0  # events of `log` dispatched so far
        self.step = 0
        # What the last step did, for its frame: (lines completed, events dispatched, error).
        self.last: tuple[tuple[str, ...], int, dict[str, str] | None] = ((), 0, None)
        # The accumulator's view, made only when an event changed it (and shared
        # by the frames in between): copying the message after every 1-byte
        # chunk would cost more than the parsing itself.
        self._view: tuple[int, dict[str, Any]] | None = None

    def checkpoint(self) -> tuple[int, LineDecoder, SSEDecoder, int]:
        """A copy of the decoders' state (small: the pending line, the event being built)."""
        return self.step, copy.deepcopy(self.lines), copy.deepcopy(self.sse), self.dispatched

    @classmethod
    def resume(
        cls, log: list[dict[str, Any]], checkpoint: tuple[int, LineDecoder, SSEDecoder, int]
    ) -> _Run:
        """A run at a checkpoint's step: its decoders copied back, the accumulator fed the
        events dispatched until then (no error came before a checkpoint)."""
        run = cls(log)
        run.step, lines, sse, dispatched = checkpoint
        run.lines, run.sse = copy.deepcopy(lines), copy.deepcopy(sse)
        for record in log[:dispatched]:
            run._accept(ServerSentEvent(record["event"], record["data"], record["id"]))
        run.dispatched = dispatched
        return run

    def advance(self, chunk: bytes | None) -> None:
        """Feed one chunk (None: the end of the stream) and record what it did in `last`."""
        before = self.dispatched
        completed: list[str] = []
        error = None
        try:
            completed = self.lines.feed(chunk) if chunk is not None else self.lines.flush()
            if (
                not completed and chunk is not None
            ):  # most small chunks end no line: nothing else moves
                self.step += 1
                self.last = NOTHING_ENDED
                return
            for line in completed:
                dispatched = self.sse.feed_line(line)
                if dispatched is not None:
                    self._dispatch(dispatched)
            if chunk is None:
                self.acc.final_message()  # raises IncompleteStreamError without message_stop
        except StreamError as failure:
            # The message as raised (a `language.Text`: English as a value), so that a frame
            # is the same in every language and the panel says it in the stepper's.
            message = failure.args[0] if failure.args else ""
            error = {"type": type(failure).__name__, "message": message}
        self.step += 1
        self.last = (tuple(completed), self.dispatched - before, error)

    def _dispatch(self, dispatched: ServerSentEvent) -> None:
        if self.dispatched == len(self.log):  # the first run over the stream: log it
            self.log.append(
                {
                    "event": dispatched.event,
                    "data": dispatched.data,
                    "id": dispatched.id,
                    "skipped": False,
                }
            )
        record = self.log[self.dispatched]
        self.dispatched += 1
        record["skipped"] = not self._accept(dispatched)

    def _accept(self, dispatched: ServerSentEvent) -> bool:
        """Give one dispatched event to the accumulator; False if it is no Messages API event,
        or comes after `message_stop` (as `accumulate`, the stepper reads nothing after it)."""
        if self.acc.complete:
            return False
        event = decode_event(dispatched, self.acc.next_event_number)
        if event is None:
            return False
        self.acc.feed(event)
        self.progress.follow(self.acc, event)
        return True

    def view(self) -> dict[str, Any]:
        """The accumulator's state as a frame holds it (copied when it changed)."""
        if self._view is None or self._view[0] != self.acc.event_number:
            self._view = (self.acc.event_number, self._read_accumulator())
        return self._view[1]

    def _read_accumulator(self) -> dict[str, Any]:
        acc = self.acc
        message = acc.message
        if message is None:
            return {"content": None, "tools": (), "stop_reason": None, "usage": None, "stopped": ()}
        buffers = acc.json_buffers if acc.input_parsers else {}
        tools = []
        for index, parser in sorted(acc.input_parsers.items()):
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
            block, verdict = message["content"][index], acc.tool_call_verdict(index)
            tools.append(
                {
                    "index": index,
                    "name": block.get("name"),
                    "raw": buffers.get(index, ""),
                    "parses": self.progress.blocks[index].parses
                    if index in self.progress.blocks
                    else False,
                    "partial": value,
                    "preview": preview,
                    "stopped": index in acc.stopped,
                    "runnable": verdict.runnable,  # may the call run? (tool_calls.py)
                    "verdict": verdict.reason,
                }
            )
        return {
            "content": copy.deepcopy(message["content"]),
            "tools": tuple(tools),
            "stop_reason": message.get("stop_reason"),
            "usage": copy.deepcopy(message.get("usage")),
            "stopped": tuple(sorted(acc.stopped)),
        }

    def photograph(self, kind: str, start: int, end: int) -> Frame:
        """The frame of the step just fed."""
        lines, new_events, error = self.last
        pending, view = self.lines.pending, self.view()
        return Frame(
            step=self.step,
            kind=kind,
            start=start,
            end=end,
            pending=pending,
            partial_char=unfinished_character(pending)[0],
            after_cr=self.lines.after_cr,
            lines=lines,
            event_type=self.sse.event_type,
            data_lines=tuple(self.sse.data_lines),
            last_event_id=self.sse.last_event_id,
            retry=self.sse.retry,
            events=EventsSoFar(self.log, self.dispatched),
            new_events=new_events,
            content=view["content"],
            stopped=view["stopped"],
            tools=view["tools"],
            stop_reason=view["stop_reason"],
            usage=view["usage"],
            complete=self.acc.complete,
            error=error,
        )


class Frames(Sequence[Frame]):
    """Every frame of stream `raw` delivered by the chunk plan, made when asked (see the module
    docstring).

    A sequence of `Frame`: `len(frames)`, `frames[k]`, `frames[-1]`, iteration.
    n + 2 frames for n chunks (start, one per chunk, end of stream), fewer if a
    stage raises: the frame with `error` set is then the last.
    """

    def __init__(self, raw: bytes, chunk_size: ChunkSize = 7) -> None:
        self.raw, self.chunk_size = raw, chunk_size
        self.plan = ChunkPlan(raw, chunk_size)
        self._log: list[dict[str, Any]] = []
        self._checkpoints: list[tuple[int, LineDecoder, SSEDecoder, int]] = []
        self._checkpoint_steps: list[int] = []
        run, since = _Run(self._log), 0  # `since`: bytes fed since the last checkpoint
        for start, end in self.plan:
            if run.step % CHECKPOINT_STEPS == 0 and run.step and len(run.lines.pending) <= since:
                self._checkpoints.append(run.checkpoint())
                self._checkpoint_steps.append(run.step)
                since = 0
            run.advance(raw[start:end])
            since += end - start
            if run.last[2] is not None:
                break
        else:
            run.advance(None)  # the end of the stream
        self._count = run.step + 1
        self._cursor = run  # the run that made the last frame asked for (here: the last one)

    def _chunk(self, step: int) -> bytes | None:
        if step > len(self.plan):
            return None  # the end of the stream
        start, end = self.plan.bounds(step)
        return self.raw[start:end]

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, step: int) -> Frame: ...
    @overload
    def __getitem__(self, step: slice) -> list[Frame]: ...
    def __getitem__(self, step: int | slice) -> Any:
        if isinstance(step, slice):
            return [self[k] for k in range(self._count)[step]]
        step = range(self._count)[step]  # negative steps, and IndexError past the last
        run = self._run_before(step)
        while run.step < step:
            run.advance(self._chunk(run.step + 1))
        self._cursor = run
        if step == 0:
            return run.photograph("start", 0, 0)
        if step > len(self.plan):
            return run.photograph("end", len(self.raw), len(self.raw))
        return run.photograph("chunk", *self.plan.bounds(step))

    def __iter__(self) -> Iterator[Frame]:
        for step in range(self._count):
            yield self[step]

    def _run_before(self, step: int) -> _Run:
        """The cheapest run to bring to `step`: the last one used, if it is at `step` or
        before it, or one resumed from the last checkpoint before `step`."""
        index = (
            bisect_left(self._checkpoint_steps, step) - 1
        )  # a checkpoint before `step`, not at it:
        nearest = (
            self._checkpoints[index] if index >= 0 else None
        )  # the frame needs that step's lines
        cursor = self._cursor
        # Resuming feeds the accumulator every event so far (each costs a few
        # chunks' worth), then the chunks after the checkpoint.
        if (
            cursor is not None
            and cursor.step <= step
            and (
                nearest is None
                or step - cursor.step <= RESUME_COST * nearest[3] + step - nearest[0]
            )
        ):
            return cursor
        return _Run(self._log) if nearest is None else _Run.resume(self._log, nearest)

    def step_reaching(self, offset: int) -> int:
        """The first step that has received `offset` bytes (the last step if none has)."""
        return min(self.plan.step_reaching(offset), self._count - 1) if offset > 0 else 0


def compute_frames(raw: bytes, chunk_size: ChunkSize = 7) -> Frames:
    """Every frame of stream `raw` (bytes) delivered by `chunk_plan(raw, chunk_size)`: a
    `Frames` sequence, each frame made when asked.

    Returns n + 2 frames for n chunks (start, one per chunk, end of stream),
    fewer if a stage raises: the frame with `error` set is then the last.
    """
    return Frames(raw, chunk_size)


def frame_at(raw: bytes, chunk_size: ChunkSize, step: int) -> Frame:
    """Frame `step` of stream `raw` delivered by `chunk_plan(raw, chunk_size)` (one pass
    over the stream: to step through, keep `compute_frames(raw, chunk_size)` instead)."""
    return Frames(raw, chunk_size)[step]
