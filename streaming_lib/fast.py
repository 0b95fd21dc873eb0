"""The speed paths: the same stages as `lines.py`, `sse.py`, `events.py` and
`partial_json.py`, rewritten for the lines and events that make up almost every
real stream, and nothing else.

Every function and class here gives exactly what the plain one gives (the
same lines, events, values and errors, at every chunking):
`tests/test_fast_paths.py` holds each one equal to its plain version on random
streams, random cuts, strict and not, with and without size limits. Each keeps
its own state and uses the plain modules only through their public names.
Whatever is rare (a CR, a byte order mark, strict decoding, an `id:` or
`retry:` line, a field without its space, an event that is not plain, a `\\u`
escape) is handed to the plain code, or read with the plain stages' own pure
functions (`sse.parse_field`, `sse.retry_value`, `events.decode_event`,
`partial_json_strings.read_string`), so every rule still has one home.

What each one pays for (benchmarks/README.md; 2 quiet CPUs, CPython 3.11. The
committed run, on a machine loaded by other jobs, gave 119 MB/s, 27x and 154x
where the quiet run below gave 175 MB/s, 17.8x and 115x):

- `FastLineDecoder`: a plain chunk (LF endings only, no strict decoding) is
  split with the state in local variables, no method call per chunk: about
  0.5 µs a 64-byte chunk where `LineDecoder.feed` takes 0.9 µs.
- `iter_sse`: the `data: ...` and `event: ...` lines and the blank line are
  read in the loop itself, split once at their first space, and an event's
  size is counted per batch of lines, not per line: bytes to events at 175
  MB/s at 4 KiB chunks, 3.6 times the SDK's decoder (benchmark 4). An open
  event's data lines are joined `LINES_PER_GROUP` at a time: a str per line
  costs Python about 50 bytes beyond its text (an event of `data: xy` lines
  took 20 times its data buffer; 34 MB peak for 16 MiB, was 337 MB).
- `FastEventDecoder` (and `iter_events`, which feeds it every chunk): the
  same loop on lines still in bytes (`feed(..., decode=False)`): a plain event
  goes from its lines to jiter without being decoded to str, encoded back, or
  made a `ServerSentEvent`, and an event of an unknown name is skipped unread.
  It is pushed one chunk at a time, so the sync pipeline and the async one
  (`aio.py`) run the same code. It is most of `accumulate`'s time (benchmark
  3: 17.8 times the SDK on a 1 MB text stream). Given the accumulator's
  `piece_lists()`, it also appends a text, thinking or tool input piece to
  its block's list itself instead of yielding the event: the event nearly
  every stream is made of is then never handed over and read again, and its
  `event: content_block_delta` line is recognised whole, not split. That
  took `accumulate` from about 1.65 to about 1.2 times the least a Python
  client can do (benchmark 7's jiter bound, 256 KiB to 1 MiB).
- `load_json`: jiter (the SDK's own JSON parser, in Rust) reads event data
  about 3 times faster than `json.loads` (2.4 µs against 0.5 µs on the event
  bodies of benchmark 1); `iter_events` reads plain events with it too.
- `FastPartialJSONParser` (its strings read by `read_string`): a string
  fragment with no `\\u` escape and no surrogate is decoded by `json`'s own
  scanner, in C, in one call (0.4 µs less per fragment), and one with no
  quote, backslash or unprintable character is taken as it is (0.3 µs less):
  most of the live preview's time is in strings (benchmark 1: 115 times the
  SDK at 1 MiB). A run of small values (a key, a short string, a number, a
  literal, the comma after) is read a regular expression per token, not a
  method call per character class: a table of small values in 16-character
  fragments took 7.6 µs a fragment to parse, now about 6, and fed whole
  3.5 µs per 16 characters. A long text (a preview read after many
  fragments) is read string by string by the plain reader: the fast one
  copied the rest of the text for every string and `\\u` escape in it (0.2 s
  for a 64 KiB table, minutes for 1 MiB of escaped CJK; now 17 ms and 0.4 s).

    >>> list(iter_sse([b"data: a\\n", b"\\n"]))
    [ServerSentEvent(event='message', data='a', id=None, retry=None)]
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable, Iterator
from json.decoder import scanstring  # type: ignore[attr-defined]  # missing from the stubs
from typing import Any

import jiter

from . import events, partial_json_strings
from .events import API_EVENT_NAMES, UNNAMED, decode_event
from .lines import BOM, CR, LF, MAX_LINE_BYTES, LineDecoder, size_limit
from .partial_json import (
    _INFINITIES,
    AppendString,
    EndValue,
    PartialJSONParser,
    SetValue,
)
from .partial_json_strings import SURROGATE
from .sse import MAX_EVENT_BYTES, ServerSentEvent, parse_field, retry_value, too_large, utf8_length

# An open event's data lines are kept joined this many at a time (see `iter_sse`).
LINES_PER_GROUP = 64


class FastLineDecoder:
    """`lines.LineDecoder`, faster over a whole stream: `feed_each`, `feed_all`,
    `feed` and `flush` give the same lines and errors, and `pending`, `offset`,
    `after_cr`, `strict` and `max_line_bytes` read the same, at every chunking.

    A plain chunk (bytes, no CR, not strict, no line over the limit, and not a
    stream whose first byte may start a byte order mark) is split here, with
    the state in local variables and no method call per chunk. At the first
    chunk that is not plain, a `LineDecoder` takes over at that byte offset
    (`LineDecoder(offset=...)`, fed the pending bytes first) and reads the rest
    of the stream: CR, the byte order mark, strict decoding, long lines and
    their errors have their rules in `lines.py` alone.

    `decode=False` (in `feed_each` and `feed_all`) yields each line as UTF-8
    bytes instead (used by `iter_events`): a plain chunk is split and not decoded
    at all, which is safe because no UTF-8 character contains the byte of LF.
    `line.decode("utf-8", "replace")` then gives the line `decode=True` gives.

    While a `feed_each` is under way (it holds the state in its local
    variables), `feed`, `flush` and another `feed_each` raise RuntimeError;
    `pending` and `offset` are up to date whenever it yields.

        >>> decoder = FastLineDecoder()
        >>> list(decoder.feed_each([b"data: a\\nda", b"ta: b\\n\\n"])), decoder.flush()
        ([['data: a'], ['data: b', '']], [])
    """

    def __init__(
        self, *, strict: bool = False, max_line_bytes: int | None = MAX_LINE_BYTES
    ) -> None:
        self._strict = strict
        self._max = size_limit(max_line_bytes)
        # The bytes of the line not yet ended (never a CR or LF among them),
        # and the bytes fed so far, as long as the chunks have been plain.
        self._pending = bytearray()
        self._fed = 0
        # The plain decoder that reads the stream once a chunk was not plain
        # (from the start in strict mode); None until then.
        self._plain: LineDecoder | None = (
            LineDecoder(strict=True, max_line_bytes=max_line_bytes) if strict else None
        )
        # A `feed_each` is under way: part of the state is in its local variables.
        self._feeding_each = False

    @property
    def strict(self) -> bool:
        """As `LineDecoder.strict`."""
        return self._strict

    @property
    def max_line_bytes(self) -> int | None:
        """As `LineDecoder.max_line_bytes`."""
        return None if self._max == sys.maxsize else self._max

    @property
    def pending(self) -> bytes:
        """As `LineDecoder.pending`: the bytes held for the line not yet finished."""
        return bytes(self._pending) if self._plain is None else self._plain.pending

    @property
    def offset(self) -> int:
        """As `LineDecoder.offset`: bytes fed so far."""
        return self._fed if self._plain is None else self._plain.offset

    @property
    def after_cr(self) -> bool:
        """As `LineDecoder.after_cr` (never true before a CR made the plain decoder take over)."""
        return self._plain is not None and self._plain.after_cr

    def feed(self, chunk: bytes, *, decode: bool = True) -> list:
        """As `LineDecoder.feed`: the lines (list of str, or of UTF-8 bytes with
        `decode=False`) `chunk` completes."""
        self._check_idle("feed")
        batches = list(self.feed_each([chunk], decode=decode))
        return batches[0] if batches else []

    def flush(self) -> list[str]:
        """As `LineDecoder.flush`: the unterminated last line, if any (list of 0 or 1 str)."""
        self._check_idle("flush")
        return self._take_over().flush()

    def feed_all(self, chunks: Iterable[bytes], *, decode: bool = True) -> Iterator[list]:
        """`feed_each(chunks, decode=decode)`, then `flush()`: every batch of lines,
        and at the end the last unterminated line, if any, as a batch of its own."""
        yield from self.feed_each(chunks, decode=decode)
        if last := self.flush():
            yield last if decode else [line.encode() for line in last]

    def feed_each(self, chunks: Iterable[bytes], *, decode: bool = True) -> Iterator[list]:
        """Feed every chunk of `chunks` (bytes) in turn; yield the lines each one
        completes (a non-empty list of str, or of UTF-8 bytes with `decode=False`),
        exactly as `LineDecoder.feed` would return them, chunk by chunk."""
        self._check_idle("feed_each")
        self._feeding_each = True
        # `pending` is this decoder's buffer, changed in place; `fed` a local copy,
        # written back before each yield.
        pending, fed, max_line, plain = self._pending, self._fed, self._max, self._plain
        # The offset past which the pending line would be longer than the limit:
        # a chunk with no line end then costs one comparison of two ints.
        full_at = fed - len(pending) + max_line
        try:
            for chunk in chunks:
                if plain is None:
                    # The first byte of a byte order mark, at the start: not plain.
                    if type(chunk) is bytes and CR not in chunk and (fed or chunk[:1] != BOM[:1]):
                        fed += len(chunk)
                        pending += chunk
                        if LF in chunk:
                            # Split and drop everything up to the last LF. Dropping the
                            # head of a bytearray only moves its start: no copy of the tail.
                            end = pending.rfind(LF) + 1
                            if end <= max_line:  # else a line may be too long
                                lines: list[str] | list[bytes]
                                if decode:
                                    lines = pending[:end].decode("utf-8", "replace").split("\n")
                                else:
                                    lines = bytes(pending[:end]).split(b"\n")
                                del pending[:end]
                                lines.pop()
                                full_at = fed - len(pending) + max_line
                                self._fed = fed
                                yield lines
                                continue
                        elif fed <= full_at:
                            continue
                        # Past the limit: the chunk is taken back, for the plain decoder.
                        del pending[len(pending) - len(chunk) :]
                        fed -= len(chunk)
                    self._fed = fed
                    plain = self._take_over()
                if batch := plain.feed(chunk):
                    yield batch if decode else [line.encode() for line in batch]
        finally:  # also when the caller stops early or an error is raised
            self._fed, self._feeding_each = fed, False

    def _take_over(self) -> LineDecoder:
        """The plain decoder, made (if it is not yet) to go on from where this one is."""
        if self._plain is None:
            start = self._fed - len(self._pending)
            plain = LineDecoder(max_line_bytes=self.max_line_bytes, offset=start)
            plain.feed(bytes(self._pending))  # no line end, not over the limit: held
            self._pending.clear()
            self._plain = plain
        return self._plain

    def _check_idle(self, call: str) -> None:
        if self._feeding_each:
            raise RuntimeError(
                f"{call}() while a feed_each() over this decoder is under way: finish or close "
                "it first"
            )


def iter_lines(
    chunks: Iterable[bytes], *, strict: bool = False, max_line_bytes: int | None = MAX_LINE_BYTES
) -> Iterator[str]:
    """`lines.iter_lines`, through `FastLineDecoder`: the same lines and errors.

    >>> list(iter_lines([b"a\\nb"]))
    ['a', 'b']
    """
    for lines in FastLineDecoder(strict=strict, max_line_bytes=max_line_bytes).feed_all(chunks):
        yield from lines


def iter_sse(
    chunks: Iterable[bytes], *, strict: bool = False, max_event_bytes: int | None = MAX_EVENT_BYTES
) -> Iterator[ServerSentEvent]:
    """`sse.iter_sse`: the same events (`ServerSentEvent`) and errors
    (`SSEDecodeError` in strict mode, `SizeLimitError`) from byte chunks, faster.

    The two lines a stream is made of (`data: ...` and `event: ...`, split once
    at their first space) and the blank line that dispatches are read here;
    every other line is read by `sse.parse_field` and the SSE rules below it.
    The size of an event's data is checked once per batch of lines, not per
    line: a batch is never more than the chunk that brought it, which is in
    memory already.
    """
    lines = FastLineDecoder(strict=strict, max_line_bytes=max_event_bytes)
    limit = size_limit(max_event_bytes)
    # The SSE decoder's buffers (`SSEDecoder`), as local variables.
    data: list[str]
    event_type, data, last_event_id, retry = "", [], None, None
    # The data buffer of an event still open after a batch: which list, how many of
    # its lines are counted, and their bytes. Per batch, so a long event costs O(n).
    # Its lines before `grouped` are joined LINES_PER_GROUP at a time (see above).
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
            # space ("data:x", "id:", ":") is read by the SSE rules.
            name, _, value = line.partition(" ")
            if name == "data:":
                data.append(value)
            elif name == "event:":
                event_type = value
            else:
                name, value = parse_field(line)
                if name == "data":
                    data.append(value)
                elif name == "event":
                    event_type = value
                elif name == "id":
                    if "\0" not in value:
                        last_event_id = value
                elif name == "retry" and (milliseconds := retry_value(value)) is not None:
                    retry = milliseconds
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


# `iter_events` reads an event itself when its `event:` line (as bytes) is one
# of these and its data is a JSON object whose `type` is the name (or, for an
# unnamed event, one of the names): the value maps each to the `type` expected,
# ANY_NAME for "any of PLAIN_TYPES". `ping` and `error` go to `decode_event`.
PLAIN_TYPES = API_EVENT_NAMES - {"ping", "error"}
ANY_NAME = object()  # equal to no `type`
PLAIN_NAMES = {name.encode(): name for name in PLAIN_TYPES} | {
    b"": ANY_NAME,
    UNNAMED.encode(): ANY_NAME,
}
# The names, as bytes, that win over their data (`decode_event` reads them).
DECODED_NAMES = frozenset({b"ping", b"error"})
# The line most events start with, and its name: `_read` compares a line with it
# before splitting it, and a piece's name is then this very object (`is`).
DELTA_NAME = b"content_block_delta"
DELTA_LINE = b"event: " + DELTA_NAME
# Where `FastEventDecoder` appends a plain delta's piece instead of yielding the
# event: delta type -> (the delta's field, the list, the block's index).
Pieces = dict[str, tuple[str, list[str], int]]


class FastEventDecoder:
    """Bytes in, Messages API events out, one chunk at a time: `events.iter_events`
    pushed instead of pulled, so that a sync loop (`iter_events`, `accumulate`)
    and an async one (`aio.aiter_events`, `aaccumulate`) run the same per-chunk
    work. `feed(chunk)` yields the events (dicts) the chunk completes and
    `flush()` reads the last line when the stream ends; fed every chunk in turn
    and then flushed, they give the events and errors `events.iter_events`
    gives for the same chunks, numbered the same way.

    A plain event (named by one of the API's names but `ping` and `error`, or
    unnamed, with data that jiter reads as an object whose `type` is that name)
    goes from its lines, still bytes (`FastLineDecoder`, `decode=False`), to
    its value directly. An unknown name is skipped without reading its data.
    Every other event is decoded and handed to `decode_event`.

        >>> decoder = FastEventDecoder()
        >>> list(decoder.feed(b'data: {"type": "message_stop"}\\n')), list(decoder.feed(b"\\n"))
        ([], [{'type': 'message_stop'}])
    """

    def __init__(
        self, *, strict: bool = False, max_event_bytes: int | None = MAX_EVENT_BYTES
    ) -> None:
        self._lines = FastLineDecoder(strict=strict, max_line_bytes=max_event_bytes)
        self._limit = size_limit(max_event_bytes)
        # Decoded, data may grow up to 3 times (an invalid byte becomes U+FFFD, 3 bytes):
        # data shorter than this fits whatever it holds, and needs no counting.
        self._may_not_fit = -(-self._limit // 3)
        # The SSE decoder's buffers (`SSEDecoder`), the data lines still bytes, and
        # the number of the last event yielded.
        self._event_type, self._number = b"", 0
        self._data: list[bytes] = []
        # The data buffer of an event still open after a batch: which list, how many of
        # its lines are counted, and their bytes. Per batch, so a long event costs O(n).
        # Its lines before `grouped` are joined LINES_PER_GROUP at a time (see `iter_sse`).
        self._counted: list[bytes] | None = None
        self._counted_lines, self._counted_bytes, self._grouped = 0, 0, 0
        # The last event read, if it was a piece taken into a `pieces` list (see `feed`):
        # its entry there and the piece; None if it was yielded.
        self._taken: tuple[tuple[str, list[str], int], str] | None = None

    @property
    def event_number(self) -> int:
        """The number of the last event read (int, 1-based; 0 before the first):
        yielded or taken into a `pieces` list. Up to date whenever an event is
        yielded, and once a batch is done."""
        return self._number

    @property
    def last_taken(self) -> tuple[tuple[str, list[str], int], str] | None:
        """If the last event of the last batch read was a piece taken into a
        `pieces` list (see `feed`): (its entry there, the piece); else None."""
        return self._taken

    def feed(self, chunk: bytes, pieces: Pieces | None = None) -> Iterator[Any]:
        """The events (dicts) that `chunk` (bytes) completes, as they are read: an
        error in an event comes after the events before it. Raises as `iter_events`.

        `pieces` (the accumulator's `piece_lists()`) maps a delta type to (the
        delta's field, a list, a block index): a plain `content_block_delta`
        whose delta type is a key of it, whose `index` is that int, and whose
        field is a str, is not yielded: its piece is appended to that list (counted in
        `event_number`, and remembered in `last_taken` if it is the batch's
        last). The dict is read at every such event, so the one who feeds the
        yielded events may change it between them."""
        return self._read(self._lines.feed(chunk, decode=False), pieces)

    def flush(self, pieces: Pieces | None = None) -> Iterator[Any]:
        """The end of the stream: the last line, if it had no end, completes no
        event (nothing is yielded), but strict mode and the size limit still read it."""
        return self._read([line.encode() for line in self._lines.flush()], pieces)

    def _read(self, batch: list[bytes], pieces: Pieces | None) -> Iterator[Any]:
        # The state in local variables while a batch is read (this is the speed path),
        # written back when the batch is done, or left (`finally`).
        event_type, data, number = self._event_type, self._data, self._number
        limit, may_not_fit, from_json = self._limit, self._may_not_fit, jiter.from_json
        taken: tuple[str, list[str], int] | None = None
        taken_piece, self._taken = "", None
        try:
            for line in batch:
                if not line:  # dispatch, as in `iter_sse`
                    if data:
                        text = data[0] if len(data) == 1 else b"\n".join(data)
                        # Sizes are those of the lines decoded, as `iter_sse` sees them.
                        if len(text) >= may_not_fit and _decoded_length(text) + 1 > limit:
                            raise too_large(limit)
                        event = None
                        if event_type is DELTA_NAME and pieces:
                            # A piece for one of the `pieces` lists: appended there, not
                            # yielded (see `feed`). Subscripts: anything missing, or of
                            # another type, raises, and the event is read below as any other.
                            try:
                                event = from_json(text)  # as `load_json` reads it
                                index, delta = event["index"], event["delta"]
                                entry = pieces.get(delta["type"])
                                # `is`, not `==`: neither `True` nor `1.0` is the index
                                # (jiter, like Python, makes one object of each int from
                                # 0 to 256; a larger index is read below, as any other).
                                if (
                                    entry is not None
                                    and index is entry[2]
                                    and event["type"] == "content_block_delta"
                                    and type(piece := delta[entry[0]]) is str
                                ):
                                    # jiter never gives a lone surrogate: nothing to mend.
                                    entry[1].append(piece)
                                    number += 1
                                    taken, taken_piece = entry, piece
                                    data = []
                                    event_type = b""
                                    continue
                            except (ValueError, KeyError, TypeError):
                                pass  # (`event` is what jiter read, if it read it)
                        expected = PLAIN_NAMES.get(event_type)
                        if expected is not None:
                            # A try, not contextlib.suppress: this is the speed path.
                            try:  # noqa: SIM105
                                if event is None:  # not read above
                                    event = from_json(text)  # as `load_json` reads it
                            except ValueError:  # also bytes that are not UTF-8
                                pass
                            if type(event) is not dict or event.get("type") != expected:
                                kind = event.get("type") if type(event) is dict else None
                                if (
                                    expected is not ANY_NAME
                                    or type(kind) is not str
                                    or kind not in PLAIN_TYPES
                                ):
                                    # Not read above, or not plain: `decode_event` decides.
                                    event = None
                            if event is None:
                                event_name = event_type.decode("utf-8", "replace") or UNNAMED
                                event = decode_event(
                                    ServerSentEvent(event_name, text.decode("utf-8", "replace")),
                                    number + 1,
                                )
                        elif event_type in DECODED_NAMES:  # `ping`, `error`: whatever the data
                            event = decode_event(
                                ServerSentEvent(
                                    event_type.decode(), text.decode("utf-8", "replace")
                                ),
                                number + 1,
                            )
                        # Any other name is not an API event: skipped, its data unread.
                        if event is not None:
                            number += 1
                            self._number, taken = number, None
                            yield event
                        data = []
                    event_type = b""
                    continue
                if line == DELTA_LINE:  # most events' first line: no need to split it
                    event_type = DELTA_NAME
                    continue
                name, _, value = line.partition(b" ")  # as in `iter_sse`
                if name == b"data:":
                    data.append(value)
                elif name == b"event:":
                    event_type = value
                else:  # `id`, `retry`, comments change no event; a field without its space might
                    field, text_value = parse_field(line.decode("utf-8", "replace"))
                    if field == "data":
                        data.append(text_value.encode())
                    elif field == "event":
                        event_type = text_value.encode()
            # An event goes on after this batch: its data so far must fit, as in `iter_sse`.
            if data:
                if data is not self._counted:
                    self._counted, self._counted_lines = data, 0
                    self._counted_bytes = self._grouped = 0
                if self._counted_lines < len(data):
                    text = b"\n".join(data[self._counted_lines :])
                    self._counted_bytes += (
                        len(text) if text.isascii() else _decoded_length(text)
                    ) + 1
                    self._counted_lines = len(data)
                    if self._counted_bytes > limit:
                        raise too_large(limit)
                    if self._counted_lines - self._grouped >= LINES_PER_GROUP:
                        data[self._grouped :] = [b"\n".join(data[self._grouped :])]
                        self._grouped = self._counted_lines = len(data)
        finally:
            self._event_type, self._data, self._number = event_type, data, number
            self._taken = None if taken is None else (taken, taken_piece)


def iter_events(
    chunks: Iterable[bytes], *, strict: bool = False, max_event_bytes: int | None = MAX_EVENT_BYTES
) -> Iterator[Any]:
    """`events.iter_events`: the same Messages API events (dicts), numbered the
    same way in errors, and the same errors (`SSEDecodeError`, `SizeLimitError`,
    `EventDataError`), faster: every chunk fed to a `FastEventDecoder`.

        >>> list(iter_events([b'data: {"type": "message_stop"}\\n\\n']))
        [{'type': 'message_stop'}]
    """
    decoder = FastEventDecoder(strict=strict, max_event_bytes=max_event_bytes)
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.flush()


def _decoded_length(raw: bytes) -> int:
    """The UTF-8 bytes of `raw` once decoded, invalid bytes as U+FFFD (int)."""
    return len(raw) if raw.isascii() else utf8_length(raw.decode("utf-8", "replace"))


def read_string(text: str, pos: int) -> tuple[str, int]:
    """`partial_json_strings.read_string`: the same (decoded text, index where
    reading stopped) for a string's characters from `text[pos:]`, read in one
    call where it can: a fragment with no quote, backslash or unprintable
    character is taken as it is, and one with no `\\u` escape and no surrogate
    is decoded by `json.decoder.scanstring`, in C, up to its closing quote if
    it has one. An odd backslash at the very end starts an escape that the next
    fragment finishes: reading stops before it. Anything else (a `\\u` escape,
    a surrogate, a bad escape or control character) is read by the plain one.

    A text longer than `LONG_TEXT` characters after `pos` (many fragments
    read in one call: a preview read late) is read by the plain one, which
    looks no further than where it stops: the steps above copy and scan the
    whole rest of the text, once for every string and every `\\u` escape in
    it, the square of its length (a 64 KiB table took 0.2 s, 1 MiB minutes).

        >>> read_string('"ab\\\\n" , 1', 1), read_string("ab", 0), read_string("ab\\\\", 0)
        (('ab\\n', 5), ('ab', 2), ('ab', 2))
    """
    if len(text) - pos > LONG_TEXT:
        return partial_json_strings.read_string(text, pos)
    rest = text[pos:] if pos else text
    if "\\" not in rest and '"' not in rest and rest.isprintable():
        return rest, len(text)
    # (A surrogate is not printable: `isprintable` rules most text out faster than the search.)
    if "\\u" in rest or not (rest.isascii() or rest.isprintable() or not SURROGATE.search(rest)):
        return partial_json_strings.read_string(text, pos)
    cut = (len(rest) - len(rest.rstrip("\\"))) & 1 if rest[-1] == "\\" else 0
    try:  # as if a quote closed the string after the fragment
        decoded, used = scanstring(rest[:-1] + '"' if cut else rest + '"', 0)
    except ValueError:  # a bad escape or control character: the plain one names it
        return partial_json_strings.read_string(text, pos)
    if used <= len(rest) - cut:  # a quote of the fragment closed the string: stop there
        return decoded, pos + used - 1
    return decoded, len(text) - cut


# `read_string` on a text longer than this after the string's start reads only
# up to the string's end: longer than what a 4 KiB chunk brings, so a preview
# read once per chunk is read as before, in one `scanstring` call per string.
LONG_TEXT = 4096

# What `FastPartialJSONParser._run` reads in one regular-expression step each:
# a small value complete in the text (a string with no escape, control character
# or surrogate; true, false or null; a number of at most 100 digits in each part,
# followed by what ends it), a key of that kind and its colon, and what follows a
# value. `partial_json` reads each of these in five or six method calls.
_SMALL_VALUE = re.compile(
    r'[ \t\n\r]*(?:"([^"\\\x00-\x1f\ud800-\udfff]*)"|(true|false|null)'
    r"|(-?(?:0|[1-9][0-9]{0,99}))((?:\.[0-9]{1,100})?(?:[eE][+-]?[0-9]{1,100})?)(?=[ \t\n\r,\]}]))"
)
_SMALL_KEY = re.compile(r'[ \t\n\r]*"([^"\\\x00-\x1f\ud800-\udfff]*)"[ \t\n\r]*:')
_AFTER_VALUE = re.compile(r"[ \t\n\r]*([,\]}])")
_LITERAL_VALUES = {"true": True, "false": False, "null": None}


class FastPartialJSONParser(PartialJSONParser):
    """`partial_json.PartialJSONParser` with its strings read by `read_string`, and
    snapshots that cost the open containers, not the whole value: the same changes,
    snapshot values and errors (the accumulator's tool input parsers).

    A snapshot of the plain parser copies the whole value, so one read after
    every fragment of a table of small values is quadratic in Python objects
    (benchmark 7: 680 times the plain bound for a 64 KiB table). This one keeps
    a copy of the value beside it as it grows (`_mirrors`, one per open
    container, outermost first): a value that has ended is copied once, when
    it lands, and never changes again, so every later snapshot holds that same
    copy. A snapshot copies only the open containers, each in one C-level
    `list.copy` or `dict.copy`. Values that have ended are therefore shared
    between snapshots: a snapshot is for showing, never change it.
    """

    _read_string = staticmethod(read_string)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        # The copy of each open container, outermost first (beside `_stack`), and the
        # copy of the top-level list or dict once it has started.
        self._mirrors: list[Any] = []
        self._root_mirror: Any = None

    def _place(self, value: Any) -> None:
        super()._place(value)
        if type(value) is list or type(value) is dict:  # a container starts: empty
            value = [] if type(value) is list else {}  # its copy, filled as it grows
        if not self._mirrors:
            if type(value) is list or type(value) is dict:
                self._root_mirror = value
        elif type(top := self._mirrors[-1]) is list:
            top.append(value)
        else:
            top[self._keys[-1]] = value
        if type(value) is list or type(value) is dict:
            self._mirrors.append(value)

    # A run of small values, keys and commas is read by `_run`; what it does not
    # take (a container's start, an escape, a value cut by the fragment's end) is
    # read by the plain state, which `_run` hands back to.

    def _value(self, text: str, pos: int) -> int:
        end = self._run(text, pos, "value")
        return end if end > pos else super()._value(text, pos)

    def _key(self, text: str, pos: int) -> int:
        end = self._run(text, pos, "key")
        return end if end > pos else super()._key(text, pos)

    def _after_value(self, text: str, pos: int) -> int:
        end = self._run(text, pos, "after")
        return end if end > pos else super()._after_value(text, pos)

    def _run(self, text: str, pos: int, where: str) -> int:
        """Read small values, keys and what follows values from `text[pos:]` inside
        a list or dict, `where` being what comes first ("value", "key" or "after"),
        with the changes and values the plain states make; stop where a token is not
        one of them, leave the state that reads it, return the position reached."""
        stack, mirrors, keys, track = self._stack, self._mirrors, self._keys, self._track
        if not stack:
            return pos  # the top level: the plain states
        depth_ok = self.max_depth is None or len(stack) <= self.max_depth
        while True:
            if where == "key":
                match = _SMALL_KEY.match(text, pos)
                if match is None:
                    self._state = self._key
                    return pos
                keys[-1], pos = match.group(1), match.end()
                where = "value"
            if where == "value":
                match = _SMALL_VALUE.match(text, pos) if depth_ok else None
                if match is None:
                    self._state = self._value
                    return pos
                string, literal, whole, fraction = match.groups()
                if string is not None:
                    value: Any = string
                elif literal is not None:
                    value = _LITERAL_VALUES[literal]
                elif fraction:
                    value = float(whole + fraction)
                    if value in _INFINITIES and not self.allow_inf_nan:
                        self._state = self._value  # the plain state names the error
                        return pos
                else:
                    value = int(whole)
                if track:
                    path = self._child_path()
                    self._changes.append(SetValue(path, "" if string is not None else value))
                    if string:
                        self._changes.append(AppendString(path, string))
                    if string is not None:
                        self._changes.append(EndValue(path))
                top, mirror = stack[-1], mirrors[-1]
                if type(top) is list:
                    top.append(value)
                    mirror.append(value)
                else:
                    top[keys[-1]] = mirror[keys[-1]] = value  # type: ignore[call-overload]
                pos = match.end()
            match = _AFTER_VALUE.match(text, pos)
            char = match.group(1) if match is not None else ""
            is_list = type(stack[-1]) is list
            if char == ",":
                self._after_comma = True
                where, pos = ("value" if is_list else "key"), match.end()  # type: ignore[union-attr]
            elif char == ("]" if is_list else "}"):
                self._close()
                pos = match.end()  # type: ignore[union-attr]
                if self.done:
                    return pos
                where, depth_ok = "after", self.max_depth is None or len(stack) <= self.max_depth
            else:
                self._state = self._after_value
                return pos

    def _close(self) -> None:
        self._mirrors.pop()  # its copy is complete: from now on shared as it is
        super()._close()

    def _copy_value(self) -> tuple[Any, Any]:
        mirrors = self._mirrors
        if not mirrors:  # the value is complete
            return self._root_mirror, None
        top = copy = mirrors[-1].copy()
        for level in range(len(mirrors) - 2, -1, -1):  # outwards: each open parent
            parent = mirrors[level].copy()
            if type(parent) is list:
                parent[-1] = copy  # its open child is its last item
            else:
                parent[self._keys[level]] = copy  # or the value of its last key
            copy = parent
        return copy, top


def load_json(text: str, *, lone_surrogates: str = "keep", allow_nan: bool = True) -> Any:
    """`events.load_json`: the same value, or the same error, faster.

    jiter reads the text first. For the text it accepts, its values are
    `json.loads`'s (tests/test_fast_paths.py checks it on random documents), and
    they hold no lone surrogate (jiter refuses "\\ud800"), so `lone_surrogates`
    changes nothing. Whatever it refuses (text that is not JSON, too deep, a
    lone surrogate, a str that is not UTF-8) goes to `events.load_json`, which
    gives the value or raises its error.

        >>> load_json('{"type": "ping"}')
        {'type': 'ping'}
    """
    try:
        value = jiter.from_json(text.encode(), allow_inf_nan=allow_nan)
    except ValueError:  # also UnicodeEncodeError: a str with a lone surrogate
        return events.load_json(text, lone_surrogates=lone_surrogates, allow_nan=allow_nan)
    if not allow_nan and _holds_infinity(value):  # jiter reads `1e400` as inf: let
        return events.load_json(text, allow_nan=False)  # the plain parse raise its error
    return value


def _holds_infinity(value: Any) -> bool:
    """Whether a float in `value` (a parsed JSON value) is infinite: a walk over its
    lists and objects, so its cost is the number of values, not of characters."""
    level = [value]
    while level:
        if any(type(item) is float and item in (math.inf, -math.inf) for item in level):
            return True
        level = [
            child
            for item in level
            if type(item) in (list, dict)
            for child in (item.values() if type(item) is dict else item)
        ]
    return False
