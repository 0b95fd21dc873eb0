"""Stage 3: Messages API events in, one message out.

The Messages API streams a message as a fixed sequence of events (source: the
API reference, "Streaming Messages"):

    message_start                       the message, with empty `content`
    content_block_start  (index 0)      block 0, empty
    content_block_delta  (index 0) ...  pieces of block 0
    content_block_stop   (index 0)
    ... the same for index 1, 2, ...
    message_delta                       stop_reason, cumulative usage
    message_stop

with `ping` anywhere after `message_start` and `error` anywhere at all.
`MessageAccumulator` applies each event to a snapshot of the message: a delta
goes to the block at its `index`; a tool block's `input_json_delta` fragments
are only text until `content_block_stop`, where they are parsed once. Whether
that input may be run is judged only at the end (`tool_calls.py`).

Text, thinking and tool input text hold real characters only: a gateway may
cut one character between its two UTF-16 halves (`\\ud83d` ending one delta,
`\\ude00` opening the next), which JSON decodes to two lone surrogates. The
halves are joined at the seam; a high half ending what has arrived is held
back, unseen, until the next delta; a half without its pair is U+FFFD (the
Unicode standard's replacement for an unpaired surrogate, ch. 3.9).

Deliberately not handled here: bytes, lines and SSE fields (earlier stages);
`accumulate()` at the end of this module only chains the stages together.

    >>> acc = MessageAccumulator()
    >>> message = {"id": "msg_1", "content": [], "usage": {"output_tokens": 1}}
    >>> acc.feed({"type": "message_start", "message": message})
    >>> block = {"type": "text", "text": ""}
    >>> acc.feed({"type": "content_block_start", "index": 0, "content_block": block})
    >>> delta = {"type": "text_delta", "text": "Hi"}
    >>> acc.feed({"type": "content_block_delta", "index": 0, "delta": delta})
    >>> acc.message["content"]
    [{'type': 'text', 'text': 'Hi'}]
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from .errors import (
    APIStreamError,
    EventDataError,
    EventOrderError,
    IncompleteStreamError,
    StreamError,
    ToolInputJSONError,
)
from .events import BODY_HEAD_BYTES, body_error, kept_head
from .fast import FastEventDecoder, FastPartialJSONParser, Pieces, load_json

# The speed paths of the stages (fast.py): the same events, values and parses as
# `events.iter_events`, `events.load_json` and `partial_json.PartialJSONParser`.
from .language import _
from .partial_json import Change, PartialJSONError, PartialJSONParser
from .partial_json_strings import SURROGATE
from .sse import MAX_EVENT_BYTES
from .tool_calls import CUT_OFF_STOP_REASONS, ToolCallVerdict, tool_call_verdict

# Blocks whose `input` arrives as `input_json_delta` fragments.
TOOL_BLOCK_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})

# delta type -> (the block type it belongs to, the block field it appends to)
TEXT_DELTAS = {
    "text_delta": ("text", "text"),
    "thinking_delta": ("thinking", "thinking"),
}

# The string field that text-like deltas append to, per block type.
TEXT_FIELDS = {block: field for block, field in TEXT_DELTAS.values()}
# delta type -> the field holding its piece, for the speed paths (`feed_each`, `piece_lists`).
DELTA_FIELDS = {kind: field for kind, (_, field) in TEXT_DELTAS.items()} | {
    "input_json_delta": "partial_json"
}

# `message_delta` fields never copied: they say which message this is or hold
# its blocks. Any other field (`stop_reason`, `stop_sequence`, `stop_details`,
# `container`, ...) is copied when it has a value: null, like absent, says
# nothing new: a later `message_delta` without `stop_reason`, or with null,
# must not undo the one that set it (the SDK's side of it:
# https://github.com/anthropics/anthropic-sdk-python/issues/1940).
NEVER_SET = frozenset({"id", "type", "role", "model", "content", "usage"})

# RFC 8259, section 2: the only whitespace JSON has. Tool input fragments that
# join to nothing else hold no value: the input is `{}`, as with no fragments.
JSON_WHITESPACE = " \t\n\r"


class InputParsers(Mapping[int, PartialJSONParser]):
    """Tool block index -> the `PartialJSONParser` of its input (read-only mapping),
    made and brought up to date only when it is read: the accumulator's
    `input_parsers`.

    Why lazy: a tool input arrives as tens of thousands of fragments, and
    `accumulate` only returns the final message, whose input is parsed once,
    at the block's stop. Feeding every fragment to a parser as it came was
    almost half of `accumulate`'s time on a long tool input (benchmarks/README.md,
    benchmark 7). So the accumulator only keeps the fragments (`fragments`: its
    own lists, appended to as they arrive), and reading a parser here feeds it,
    in one call, the text that came since it was last read.

    The last fragment that arrived is always fed on its own, so that what it
    changed (`last_changes`) is exactly what a parser fed every fragment in
    turn reports for it. Change records cost about a third of a parse, so a
    parser makes them only once they are asked for: the first `last_changes`
    of a block whose parser was made without them makes it anew, over the text
    so far. Each character is thus parsed once, or twice for the blocks whose
    changes were first asked for after a snapshot: linear, whatever the reading
    pattern (never, after every fragment, once a screen refresh).

        >>> fragments = {1: ['{"a": ', '"xy']}
        >>> parsers = InputParsers(fragments)
        >>> 1 in parsers, parsers.made()
        (True, [])
        >>> parsers[1].snapshot(True), parsers.last_changes(1)
        ({'a': 'xy'}, [SetValue(path=('a',), value=''), AppendString(path=('a',), text='xy')])
    """

    def __init__(self, fragments: dict[int, list[str]]) -> None:
        self._fragments = fragments
        self._previews: dict[int, _Preview] = {}
        # The parsers of `unread_changes`, one per block it was asked of.
        self._unread: dict[int, _Preview] = {}

    def __getitem__(self, index: int) -> PartialJSONParser:
        fragments = self._fragments_of(index)
        preview = self._previews.get(index)
        if preview is None:
            preview = self._previews[index] = _Preview(track_changes=False)
        if preview.fed < len(fragments):
            preview.catch_up(fragments)
        return preview.parser

    def __contains__(self, index: object) -> bool:
        return type(index) is int and index in self._fragments  # without making a parser

    def __iter__(self) -> Iterator[int]:
        return iter(self._fragments)

    def __len__(self) -> int:
        return len(self._fragments)

    def _fragments_of(self, index: int) -> list[str]:
        """Block `index`'s fragments; KeyError if it is not a tool block (`True` and
        `1.0` are not block indices, though a dict takes them for 1)."""
        if type(index) is not int or index not in self._fragments:
            raise KeyError(index)
        return self._fragments[index]

    def made(self) -> list[int]:
        """The blocks whose parser exists (list of int): those a preview was read of."""
        return sorted(set(self._previews) | set(self._unread))

    def last_changes(self, index: int) -> list[Change]:
        """What block `index`'s last fragment changed in its value (list of changes;
        [] once its text is not JSON)."""
        fragments = self._fragments_of(index)
        preview = self._previews.get(index)
        if preview is None or not preview.tracks_changes:
            preview = self._previews[index] = _Preview(track_changes=True)
        if preview.fed < len(fragments):
            preview.catch_up(fragments)
        return preview.last_changes

    def unread_changes(self, index: int) -> list[Change]:
        """What block `index`'s fragments changed in its value since this was last
        asked (list of changes, in order; at the first ask, everything since the
        block's start): what a display that draws once per network chunk, or
        per screen refresh, applies. Applied in turn, they follow
        `input_snapshot(index, trailing_strings=True)`, but for a number still
        being written, which a change reports once it has ended. [] once the
        text is not JSON, including the read in which it stopped being JSON
        (the changes of that read's text before the fault are not reported).
        KeyError if block `index` (an int) is not a tool block.

        Its own parser, fed the fragments that came since in one call: the
        cost is the characters that came, not the events (a chunk of 4 KiB
        brings about 28 fragments of 16 characters). Asked after every event it
        gives what `last_changes` gives, at the cost of a parser call per fragment."""
        fragments = self._fragments_of(index)
        reader = self._unread.get(index)
        if reader is None:
            reader = self._unread[index] = _Preview(track_changes=True)
        fed, count = reader.fed, len(fragments)
        reader.fed = count
        if fed == count:
            return []
        return reader.read(fragments[fed] if fed == count - 1 else "".join(fragments[fed:]))


class _Preview:
    """One tool block's parser, how many of the block's fragments it has read, and
    what the last of them changed (it was read on its own)."""

    __slots__ = ("fed", "last_changes", "parser", "tracks_changes")

    def __init__(self, *, track_changes: bool) -> None:
        # Only values JSON has, as the stop's parse: never inf for `1e400`.
        self.parser = FastPartialJSONParser(track_changes=track_changes, allow_inf_nan=False)
        self.tracks_changes = track_changes
        self.fed = 0
        self.last_changes: list[Change] = []

    def catch_up(self, fragments: list[str]) -> None:
        """Feed the parser the fragments it has not read (list of str, the block's)."""
        fed, count = self.fed, len(fragments)
        self.fed = count
        if fed < count - 1:  # all the text before the last fragment, in one feed
            self.read("".join(fragments[fed : count - 1]))
        self.last_changes = self.read(fragments[-1])

    def read(self, text: str) -> list[Change]:
        """Feed the parser `text` (str); the changes it made (list; [] once not JSON)."""
        if self.parser.error is not None:  # not JSON: judged at the block's stop, not here
            return []
        try:
            return self.parser.feed(text)
        except PartialJSONError:
            return []


class MessageAccumulator:
    """Rebuild a Message (dict) from its stream events (dicts, as decoded from `data`).

    Read it while it fills:
    - `message`: the snapshot (dict with `id`, `type`, `role`, `model`,
      `content`, `stop_reason`, `stop_sequence`, `usage` and whatever else
      the wire sent), None before `message_start`. Live: copy it to keep it.
    - `complete`: True once `message_stop` has arrived.
    - `json_buffers[index]`: a tool block's raw input text so far (str).
    - `input_parsers[index]`: a `PartialJSONParser` over that text, for live
      previews (display only, never for executing): `input_snapshot(index)`
      is the best value so far, and `input_changes` lists what the last event
      changed in it (`SetValue`, `AppendString`, `EndValue`), so a preview can
      follow the input in O(n) in total instead of re-parsing it per fragment;
      `unread_input_changes(index)` lists what changed since it was last asked,
      for a display that draws once per chunk (the new fragments parsed in one call).
      Lazy: a block's parser is made, and fed the text that arrived since, only
      when one of these is read (see `InputParsers`); `accumulate`, which
      reads none of them, parses each input once, at its block's stop.
    - `text_added`: the text (str) the last event appended to a text or thinking
      block, with split surrogate halves already joined: what a live display
      appends ("" when the event added none).
    - `stopped`: the block indices whose `content_block_stop` arrived.
    - `input_errors[index]`: the `ToolInputJSONError` of a tool block whose input
      was not a valid JSON object at its stop. Not raised there: the stop reason
      that explains it (`max_tokens`) comes later, so `final_message()` decides.
    - `tool_call_verdict(index)`: may that tool call run, and why (or why not).
    - `event_number`: events fed so far (1-based numbers in errors);
      `next_event_number`: the number the next event fed will have (what
      `events.decode_event` must be told when decoding it).

    `feed(event)` raises the `StreamError` subclasses of `errors.py`.
    """

    def __init__(self) -> None:
        self._message: dict[str, Any] | None = None
        self.complete = False
        self.event_number = 0
        self.stopped: set[int] = set()
        self.input_errors: dict[int, ToolInputJSONError] = {}
        # Fragments of each tool block's input. Joined on demand: a 1 MiB input
        # in 16-byte fragments would cost gigabytes of copying with `+=`.
        self._json_parts: dict[int, list[str]] = {}
        self.input_parsers = InputParsers(self._json_parts)
        # The tool block whose input the last event added to (its last fragment),
        # or None: what `input_changes` reports on, once read.
        self._input_changed: int | None = None
        # Pieces of text appended to a block field since it was last joined,
        # keyed by (index, field), for the same reason.
        self._text_parts: dict[tuple[int, str], list[str]] = {}
        # A high surrogate that ended the last piece of a block field, keyed by
        # (index, field), "input" for tool input text: a gateway may split one
        # character's UTF-16 halves across two deltas, so its pair may open the
        # next piece. Kept out of the text until then: see `_mended`.
        self._halves: dict[tuple[int, str], str] = {}
        self.text_added = ""
        # Where a decoder may append the next piece itself (`piece_lists`), and
        # whether it was emptied while a half was held, or at message_stop.
        self._pieces: Pieces = {}
        self._pieces_held_back = False
        # The `event_number` up to which `_pieces` is known to be right.
        self._pieces_at = 0

    # -- reading the state -------------------------------------------------

    @property
    def message(self) -> dict[str, Any] | None:
        """The message so far (live dict; text fields joined on access)."""
        for (index, field), parts in self._text_parts.items():
            if len(parts) > 1:
                parts[:] = ["".join(parts)]
            self._message["content"][index][field] = parts[0]  # type: ignore[index]
        return self._message

    @property
    def input_changes(self) -> list[Change]:
        """What the last event changed in a tool block's input value (list of
        `SetValue`, `AppendString`, `EndValue`, in order): [] after an event that
        added no input text, or once the input is not JSON (`input_parsers[index].error`).
        Read after every event, they follow `input_snapshot(index, trailing_strings=True)`,
        but for a number still being written, which a change reports once it has ended."""
        if self._input_changed is None:
            return []
        return self.input_parsers.last_changes(self._input_changed)

    def unread_input_changes(self, index: int) -> list[Change]:
        """What tool block `index`'s input value changed since this was last asked
        (list of `SetValue`, `AppendString`, `EndValue`, in order; at the first
        ask, everything since the block's start): for a display that draws once
        per network chunk or screen refresh instead of after every event. The
        fragments that came since are parsed in one call (`InputParsers.unread_changes`),
        so reading it costs the characters that came, not the events.
        Raises KeyError if block `index` is not a tool block."""
        return self.input_parsers.unread_changes(index)

    @property
    def next_event_number(self) -> int:
        """The 1-based number of the next event fed (int): events fed so far plus
        one. Front ends that decode events one at a time pass it to
        `decode_event`, so a decoding error and a feeding error count alike."""
        return self.event_number + 1

    @property
    def json_buffers(self) -> dict[int, str]:
        """Raw tool input text per block index (str), exactly as the fragments joined."""
        return {index: "".join(parts) for index, parts in self._json_parts.items()}

    def incomplete_blocks(self) -> list[int]:
        """Indices of the blocks not complete: no `content_block_stop` yet, or a tool
        input that failed to parse at it."""
        content = self._message["content"] if self._message else []
        return [
            index
            for index in range(len(content))
            if index not in self.stopped or index in self.input_errors
        ]

    def tool_call_verdict(
        self, index: int, schema: dict[str, Any] | None = None
    ) -> ToolCallVerdict:
        """May the tool call in block `index` run? A `ToolCallVerdict` with `.runnable`
        (bool) and `.reason` (a sentence). Runnable only for a client `tool_use` block
        whose stop arrived with a valid JSON object as input (matching `schema`, the
        tool's `input_schema`, if given), in a message that got `message_stop` with
        `stop_reason` "tool_use". The rules and their sources: `tool_calls.py`."""
        error = self.input_errors.get(index)
        return tool_call_verdict(
            self.message,
            index,
            complete=self.complete,
            stopped=index in self.stopped,
            input_error=error.problem if error is not None else None,
            schema=schema,
        )

    def is_safe_to_execute(self, index: int, schema: dict[str, Any] | None = None) -> bool:
        """`tool_call_verdict(index, schema).runnable`."""
        return self.tool_call_verdict(index, schema).runnable

    def input_snapshot(self, index: int, *, trailing_strings: bool = False) -> Any:
        """The best value of tool block `index`'s input so far (display only).

        Equal to `parse_partial_json(json_buffers[index], trailing_strings=...)`
        without re-parsing; `trailing_strings=True` keeps an unfinished string
        (a file being written). Raises `PartialJSONError` while there is no
        value yet or when the text is not JSON.

        Its cost is that of the containers still open (`fast.FastPartialJSONParser`),
        so it can be read after every fragment: the lists and dicts that have
        ended are shared by the snapshots that follow. Show it; never change it.
        """
        return self.input_parsers[index].snapshot(trailing_strings)

    def snapshot(self, *, ended: bool = False) -> dict[str, Any] | None:
        """A deep copy of the message in which every tool block that never got its
        `content_block_stop` carries its best partial input (display only).

        `ended=True` (the final message, an error's `.partial`): the stream is over,
        so half a character held back for its pair never gets it, and is U+FFFD."""
        message = copied(self.message)
        if ended and message is not None:
            for index, field in self._halves:
                if field != "input":  # a tool input's held half is only in its raw JSON text
                    message["content"][index][field] += "\ufffd"
        for index in self.incomplete_blocks():
            block = message["content"][index]
            if index in self._json_parts:
                try:
                    value = self.input_parsers[index].snapshot()
                except PartialJSONError:
                    continue  # no value yet, or not JSON: keep the start's `{}`
                # A copy of its own: the parser's snapshots share what has ended.
                block["input"] = {} if value is None else copied(value)
        return message

    def fill_partial(self, error: StreamError) -> None:
        """Give `error` the message so far (`.partial`) if it has none: an error raised
        before the accumulator saw the event (bad bytes, bad JSON) knows no message."""
        if error.partial is None and self._message is not None:
            error.partial = self.snapshot(ended=True)

    def final_message(self) -> dict[str, Any]:
        """The finished message (a new dict).

        Raises `IncompleteStreamError` before `message_stop`, and the
        `ToolInputJSONError` of the first tool block whose input was not a valid
        JSON object at its stop, unless the stop reason says the output was cut
        off (`max_tokens`, `model_context_window_exceeded`, `refusal`): then the message is
        returned, that block holding its best partial input (and its verdict
        says it may not run)."""
        if not self.complete:
            raise IncompleteStreamError(
                _(
                    "the stream ended after event {number} without message_stop",
                    number=self.event_number,
                ),
                partial=self.snapshot(ended=True),
                event_number=self.event_number,
            )
        stop_reason = self._message.get("stop_reason")  # type: ignore[union-attr]
        if self.input_errors and stop_reason not in CUT_OFF_STOP_REASONS:
            error = self.input_errors[min(self.input_errors)]
            error.stop_reason, error.partial = stop_reason, self.snapshot(ended=True)
            raise error
        return self.snapshot(ended=True)  # type: ignore[return-value]

    # -- applying events ---------------------------------------------------

    def feed(self, event: dict[str, Any]) -> None:
        """Apply one event (dict, the decoded `data` of one SSE event)."""
        self.event_number += 1
        self._input_changed = None
        self.text_added = ""
        kind = event.get("type") if type(event) is dict else None
        if type(kind) is not str:
            raise self._error(
                EventDataError, _("the event is not an object with a 'type'"), data=repr(event)
            )
        handler = HANDLERS.get(kind)
        if handler is None:
            return  # unknown event types are ignored (the API may add new ones)
        # ping and error may come at any point, even first.
        if (self.complete or self._message is None) and kind not in ("ping", "error"):
            if self.complete:
                raise self._error(EventOrderError, _("{kind} after message_stop", kind=kind))
            if kind != "message_start":
                raise self._error(EventOrderError, _("{kind} before message_start", kind=kind))
        try:
            handler(self, event)
        except (KeyError, TypeError, AttributeError) as missing:
            raise self._error(
                EventDataError,
                _("malformed {kind}: {missing!r}", kind=kind, missing=missing),
                data=_as_text(event),
                index=event.get("index"),
            ) from None

    def feed_each(self, events: Iterable[Any], keep: Callable[[Any], None] | None = None) -> bool:
        """Feed every event (dicts) in turn, exactly as `feed` would, each first
        given to `keep` if there is one; True as soon as `message_stop` is fed
        (the events after it are not read). The speed path of `feed` for the one
        event nearly every stream is made of: a `text_delta`, `thinking_delta`
        or `input_json_delta` whose block is open and has had such a piece
        before (its parts list exists) is appended here, with the same
        `event_number`, `text_added` and `input_changes` as `feed` leaves.
        Anything else (the first piece of a block, a piece with a surrogate,
        any error) goes to `feed`, where every rule has its home;
        `tests/test_fast_paths.py` holds the two equal on random streams."""
        json_parts, text_parts, stopped = self._json_parts, self._text_parts, self.stopped
        halves, fields = self._halves, DELTA_FIELDS
        if self.complete:  # every event is an error now: `feed` says which
            fields = {}
        for event in events:
            if keep:
                keep(event)
            # Subscripts, not `.get`: anything missing or of another type raises
            # here, before a change is made, and `feed` then reads the event.
            try:
                if event["type"] == "content_block_delta" and not halves:
                    index, delta = event["index"], event["delta"]
                    field = fields[delta["type"]]
                    parts = (
                        json_parts.get(index)
                        if field == "partial_json"
                        else text_parts.get((index, field))
                    )
                    piece = delta[field]
                    if (
                        parts is not None
                        and type(index) is int
                        and index not in stopped
                        and type(piece) is str
                        and (piece.isascii() or not SURROGATE.search(piece))
                    ):
                        self.event_number += 1
                        if field == "partial_json":
                            self._input_changed, self.text_added = index, ""
                        else:
                            self._input_changed, self.text_added = None, piece
                        parts.append(piece)
                        continue
            except (KeyError, TypeError, IndexError):
                pass
            self.feed(event)
            if self.complete:
                return True
        return False

    def piece_lists(self) -> Pieces:
        """Where a decoder may append a delta's piece itself, for
        `fast.FastEventDecoder.feed(chunk, pieces)`: delta type (`text_delta`,
        `thinking_delta`, `input_json_delta`) -> (the delta's field, the list of
        pieces the accumulator keeps for that field of a block, the block's
        index). An entry is there for an open block that has such a list (a tool
        block from its start, a text or thinking block from its first delta):
        the one an event last went to through `feed`. Empty while half a
        character is held back (see `_mended`) and once `message_stop` has come:
        then every piece goes through `feed`.

        Live, and kept up to date by `feed_read` after each event it feeds: a
        piece appended there is exactly what `feed` would append for that event.
        Events fed any other way (`feed`, `feed_each`) are seen here: the
        entries are then made anew."""
        if self._pieces_at != self.event_number:  # events came some other way since
            self._pieces_held_back = True
            self._update_pieces({})
            self._pieces_at = self.event_number
        return self._pieces

    def feed_read(self, decoder: FastEventDecoder, events: Iterable[Any]) -> bool:
        """Feed the events (dicts) `decoder` yields for one chunk, read with
        `decoder.feed(chunk, self.piece_lists())` (or `flush`), and count the
        pieces it took itself: afterwards `event_number`, `text_added` and
        `input_changes` are what feeding every event to `feed` leaves. True once
        `message_stop` is fed (the events after it are not read). Raises as
        `feed` and the decoder do; `tests/test_fast_paths.py` holds it equal to
        `feed` on random streams and chunkings.

        The speed path of `accumulate`: a text, thinking or tool input piece, the
        event nearly every stream is made of, is appended by the decoder, never
        made an event that is handed over and read again here."""
        # Events fed by hand, not read by this decoder: its numbers are behind by them.
        fed_by_hand = self.event_number - decoder.event_number
        try:
            for event in events:
                # The pieces taken before it counted, as `feed` counts events.
                self.event_number = fed_by_hand + decoder.event_number - 1
                self.feed(event)
                self._update_pieces(event)
                if self.complete:
                    self._pieces_at = self.event_number
                    return True
            self._pieces_at = fed_by_hand + decoder.event_number
            return False
        finally:  # (after an error, `_pieces_at` is behind: the entries are made anew)
            self.event_number = fed_by_hand + decoder.event_number
            if (taken := decoder.last_taken) is not None:  # the last event read was a piece
                (field, _, index), piece = taken
                if field == "partial_json":
                    self._input_changed, self.text_added = index, ""
                else:
                    self._input_changed, self.text_added = None, piece

    def _update_pieces(self, event: dict[str, Any]) -> None:
        """`piece_lists()` after `event` was fed: the entries of its block, or of every
        open block once no half is held any more; none while one is, or after
        message_stop. One entry per delta type: the block an event last went to."""
        pieces = self._pieces
        if self.complete or self._halves:
            pieces.clear()
            self._pieces_held_back = True
            return
        if self._pieces_held_back:
            self._pieces_held_back = False
            indices = sorted(set(self._json_parts) | {index for index, _ in self._text_parts})
        elif type(index := event.get("index")) is int:
            indices = [index]
        else:
            return  # not a block's event: no block's list changed
        for index in indices:
            for kind, field in DELTA_FIELDS.items():
                parts = (
                    self._json_parts.get(index)
                    if field == "partial_json"
                    else self._text_parts.get((index, field))
                )
                if parts is not None and index not in self.stopped:
                    pieces[kind] = (field, parts, index)
                elif kind in pieces and pieces[kind][2] == index:
                    del pieces[kind]

    def _on_ping(self, event: dict[str, Any]) -> None:
        pass  # keeps idle connections open; carries nothing

    def _on_error(self, event: dict[str, Any]) -> None:
        error = event.get("error")
        if not isinstance(error, dict):  # not the documented shape: keep whatever came
            error = {"message": "" if error is None else str(error)}
        error_type, text = error.get("type"), str(error.get("message") or "")
        summary = ": ".join(str(part) for part in (error_type, text) if part) or _(
            "an error event with no details"
        )
        raise self._error(APIStreamError, summary, error_type=error_type, error_message=text)

    def _on_message_start(self, event: dict[str, Any]) -> None:
        if self._message is not None:
            raise self._error(EventOrderError, _("a second message_start"))
        message = event["message"]
        if not isinstance(message, dict) or not isinstance(message.get("content") or [], list):
            raise self._error(
                EventDataError,
                _("message_start needs a 'message' object whose 'content' is a list"),
                data=_as_text(event),
            )
        self._message = copied(message)
        self._message["content"] = list(self._message.get("content") or [])
        if "usage" in self._message and self._message["usage"] is None:
            del self._message["usage"]  # null usage is no usage: message_delta may bring some

    def _on_content_block_start(self, event: dict[str, Any]) -> None:
        index, block, content = event["index"], event["content_block"], self._message["content"]  # type: ignore[index]
        if not _is_index(index) or index != len(content):
            raise self._error(
                EventOrderError,
                _(
                    "content_block_start for index {index!r}, expected {expected}",
                    index=index,
                    expected=len(content),
                ),
                index=index,
            )
        field = TEXT_FIELDS.get(block.get("type"))
        if field and not isinstance(block.get(field, ""), (str, type(None))):
            raise self._error(
                EventDataError,
                _(
                    "a block of type {type} whose {field!r} is not a string",
                    type=block["type"],
                    field=field,
                ),
                data=_as_text(event),
                index=index,
            )
        block = copied(block)
        # A block's initial field that is missing is empty, as some translating
        # gateways send `{"type": "text"}`: "" for text and thinking (null too);
        # a tool's input comes from its fragments at the stop, else stays `{}`.
        # (A tool input sent as null is kept: no fragments, and it never runs.)
        if field and block.get(field) is None:
            block[field] = ""
        elif block.get("type") in TOOL_BLOCK_TYPES and "input" not in block:
            block["input"] = {}
        content.append(block)  # blocks of unknown types are kept as they came
        if field and not block[field].isascii() and SURROGATE.search(block[field]):
            # A start that holds half a character already (a gateway cut it there).
            self._text_parts[index, field] = [self._mended((index, field), block[field])]
        if block.get("type") in TOOL_BLOCK_TYPES:
            self._json_parts[index] = []  # its parser is made when a preview is read

    def _on_content_block_delta(self, event: dict[str, Any]) -> None:
        index, delta = event["index"], event["delta"]
        # First, the fast way for an open tool block's next input fragment: a long
        # tool input is tens of thousands of them. `_json_parts` has a list for
        # every tool block that content_block_start opened, so no other check is needed.
        parts = self._json_parts.get(index) if type(index) is int else None
        if parts is not None and index not in self.stopped and delta["type"] == "input_json_delta":
            fragment = delta["partial_json"]
            if type(fragment) is not str:
                raise self._not_text(delta, "partial_json", index)
            if self._halves or not fragment.isascii() and SURROGATE.search(fragment):
                fragment = self._mended((index, "input"), fragment)
            parts.append(fragment)  # parsed only if a preview is read (`InputParsers`)
            self._input_changed = index
            return
        block = self._open_block(index, "content_block_delta")
        kind, block_type = delta["type"], block.get("type")
        if kind == "input_json_delta":  # a block that is not an open tool block
            if block_type in TOOL_BLOCK_TYPES:  # one that came whole in message_start
                raise self._error(
                    EventOrderError,
                    _(
                        "{kind} for block {index}, which came whole in message_start",
                        kind=kind,
                        index=index,
                    ),
                    index=index,
                )
            raise self._wrong_block(kind, block_type, index)
        if kind in TEXT_DELTAS:
            expected, field = TEXT_DELTAS[kind]
            if block_type != expected:
                raise self._wrong_block(kind, block_type, index)
            piece = delta[field]
            if type(piece) is not str:
                raise self._not_text(delta, field, index)
            parts = self._text_parts.get((index, field))
            if parts is None:
                parts = self._text_parts[index, field] = [
                    self._mended((index, field), block.get(field) or "")
                ]
            if self._halves or not piece.isascii() and SURROGATE.search(piece):
                piece = self._mended((index, field), piece)
            parts.append(piece)
            self.text_added = piece
        elif kind == "citations_delta":
            if block_type != "text":
                raise self._wrong_block(kind, block_type, index)
            block["citations"] = (block.get("citations") or []) + [delta["citation"]]
        elif kind == "signature_delta":
            if block_type != "thinking":
                raise self._wrong_block(kind, block_type, index)
            block["signature"] = delta["signature"]
        # Any other delta type is ignored: the API may add new ones.

    def _on_content_block_stop(self, event: dict[str, Any]) -> None:
        index = event["index"]
        block = self._open_block(index, "content_block_stop")
        if self._halves:
            self._end_halves(index)
        self.stopped.add(index)
        if index in self._json_parts:
            raw = "".join(self._json_parts[index])
            # No fragments, only empty ones, or only whitespace: no value, so the
            # input stays as started, `{}`.
            if raw.strip(JSON_WHITESPACE):
                try:
                    block["input"] = self._parse_tool_input(raw, index)
                except ToolInputJSONError as error:
                    # Not raised yet: the stop reason that explains it (max_tokens cut
                    # the call) only comes later, in message_delta. The block counts
                    # as incomplete: snapshots show its best partial input.
                    self.input_errors[index] = error

    def _parse_tool_input(self, raw: str, index: int) -> Any:
        """The one strict parse of a tool's input, at its stop: a JSON object, or
        ToolInputJSONError."""
        try:
            value = load_json(raw, lone_surrogates="replace", allow_nan=False)
        except ValueError as error:  # also: over 4300 digits, nested too deep
            why = (
                _(
                    "is not valid JSON: {why} (character {position})",
                    why=error.msg,
                    position=error.pos,
                )
                if isinstance(error, json.JSONDecodeError)
                else _("cannot be used: {why}", why=str(error))
            )
        else:
            if isinstance(value, dict):  # the API's `input` is always an object
                return value
            why = _("is a JSON {type}, not an object", type=type(value).__name__)
        raise self._error(
            ToolInputJSONError,
            _("tool input of block {index} {problem}", index=index, problem=why),
            raw=raw,
            problem=why,
            index=index,
        )

    def _on_message_delta(self, event: dict[str, Any]) -> None:
        message = self._message
        for key, value in event["delta"].items():
            if key in NEVER_SET:
                continue  # the message's identity and content never change here
            if value is not None:  # null or absent: keep what an earlier event set
                message[key] = value  # type: ignore[index]
        # Usage counts here are running totals: overwrite, never add. A field
        # that is absent (or null) keeps its message_start value; so does all
        # of it when `usage` itself is null.
        usage = message.setdefault("usage", {})  # type: ignore[union-attr]
        for key, value in (event.get("usage") or {}).items():
            if value is not None:
                usage[key] = value

    def _on_message_stop(self, event: dict[str, Any]) -> None:
        self.complete = True

    # -- helpers -------------------------------------------------------------

    def _mended(self, key: tuple[int, str], piece: str) -> str:
        """`piece` (str) with real characters only: a high surrogate held from the
        last piece of the same field and a low one opening this piece become one
        character; a half without its pair becomes U+FFFD, except a high one at
        the end, held until the next piece (or the block's stop) says what it is.
        Only the seam and the pieces holding surrogates are looked at, so a long
        text costs nothing more. (Text decoded from JSON holds surrogates only
        where it had lone `\\ud83d`-style escapes: a gateway that cut a
        character's UTF-16 pair across two deltas.)"""
        held = self._halves.pop(key, "")
        if not held and (piece.isascii() or not SURROGATE.search(piece)):
            return piece
        piece = held + piece
        if piece and "\ud800" <= piece[-1] <= "\udbff":
            self._halves[key], piece = piece[-1], piece[:-1]
        # UTF-16 is where surrogates mean something: encoded with them kept, the
        # halves decode as a pair into one character, or as U+FFFD alone.
        return piece.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")

    def _end_halves(self, index: int) -> None:
        """Block `index` stops: a high surrogate still held never gets its pair (U+FFFD)."""
        for key in [key for key in self._halves if key[0] == index]:
            del self._halves[key]
            if key[1] != "input":
                self._text_parts[key].append("\ufffd")
                self.text_added = "\ufffd"
                continue
            self._json_parts[index].append("\ufffd")
            self._input_changed = index

    def _open_block(self, index: int, kind: str) -> dict[str, Any]:
        content = self._message["content"]  # type: ignore[index]
        if not _is_index(index) or not 0 <= index < len(content):
            raise self._error(
                EventOrderError,
                _("{kind} for block {index!r}, which never started", kind=kind, index=index),
                index=index,
            )
        if index in self.stopped:
            raise self._error(
                EventOrderError,
                _("{kind} for block {index}, which already stopped", kind=kind, index=index),
                index=index,
            )
        return content[index]

    def _wrong_block(self, kind: str, block_type: Any, index: int) -> StreamError:
        return self._error(
            EventOrderError,
            _("{kind} for block {index}, a {type} block", kind=kind, index=index, type=block_type),
            index=index,
        )

    def _not_text(self, delta: dict[str, Any], field: str, index: int) -> StreamError:
        return self._error(
            EventDataError,
            _("{kind} with a {field!r} that is not a string", kind=delta["type"], field=field),
            data=_as_text(delta),
            index=index,
        )

    def _error(self, cls: type[StreamError], text: str, **details: Any) -> StreamError:
        said = _("event {number}: {what}", number=self.event_number, what=text)
        if not _is_index(details.get("index")):  # `.index` is a block index or None; the text
            details.pop("index", None)  # shows any other value that came
        partial = self.snapshot(ended=True) if self._message is not None else None
        return cls(said, partial=partial, event_number=self.event_number, **details)


# Event type -> the method that applies it. A dict rather than `getattr(self,
# "_on_" + type)`: looked up once per event. Types not here are ignored.
HANDLERS = {
    "message_start": MessageAccumulator._on_message_start,
    "content_block_start": MessageAccumulator._on_content_block_start,
    "content_block_delta": MessageAccumulator._on_content_block_delta,
    "content_block_stop": MessageAccumulator._on_content_block_stop,
    "message_delta": MessageAccumulator._on_message_delta,
    "message_stop": MessageAccumulator._on_message_stop,
    "ping": MessageAccumulator._on_ping,
    "error": MessageAccumulator._on_error,
}


def copied(value: Any) -> Any:
    """A deep copy of `value`, a value decoded from JSON: its dicts and lists are
    new, all the way down; its str, int, float, bool and None are shared, as
    they never change. Anything else (in an event made by hand) is copied by
    `copy.deepcopy`, and so is a value that holds itself. A few times faster
    than `copy.deepcopy` alone, which looks every value up in its memo: the
    message is copied at `message_start` and at the end, and each block at its start.

        >>> start = {"type": "text", "text": "", "citations": [{"a": 1}]}
        >>> block = copied(start)
        >>> block == start, block["citations"][0] is start["citations"][0]
        (True, False)
    """
    try:
        return _copied(value)
    except RecursionError:  # a value that holds itself: `deepcopy` keeps the loop
        return copy.deepcopy(value)


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _copied(item) for key, item in value.items()}
    if kind is list:
        return [_copied(item) for item in value]
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    return copy.deepcopy(value)


def _as_text(value: Any) -> str:
    """An event (or part of one) as JSON text for an error's `.data`; a value JSON
    cannot hold (one built in Python, not decoded) is written as its repr."""
    return json.dumps(value, default=repr)


def _is_index(value: Any) -> bool:
    return type(value) is int  # not a bool, a float or a string that looks like one


def accumulate(
    source: bytes | Iterable[bytes],
    *,
    strict: bool = False,
    max_event_bytes: int | None = MAX_EVENT_BYTES,
    keep_events: bool = False,
) -> dict[str, Any]:
    """The whole pipeline: bytes (one object, or an iterable of chunks) to the final message (dict).

    Reading stops at `message_stop`: the message is complete there, so the
    final message is returned as soon as the chunk holding its end (the blank
    line after it) arrives, and nothing after it is ever read. Whatever
    follows, an event (`event: done` with `data: [DONE]`, a stray delta, an
    error), bytes that are not UTF-8 or not SSE, or a connection that stays
    open for minutes, the result is the same, at every chunking: the chunks
    that end an event are the same whatever the cuts, and no chunk after the
    one that ends `message_stop` is requested. (Closing the connection is the
    caller's: leave the `with` block of the response.)

    Raises a `StreamError`; its `.partial` is the message so far and its
    `.event_number` the number of the event at fault (or of the last one fed).
    With `keep_events=True` its `.events` also lists the decoded event dicts
    received before the failure; unless asked they are not kept (`.events` is
    []), as they would cost about as much memory as the stream itself. A
    `StreamError` raised by `source` itself is completed the same way; an
    `IncompleteStreamError` from it (a chunk iterator over a connection that
    was cut or stalled, `network.body_chunks`) also gets the `.event_number`
    of the last event received, as when the bytes simply end. Bytes that end
    without a single event and are no event stream raise what they are
    (`events.body_error`): `APIStreamError` for a JSON error object,
    `NotAnEventStreamError` for anything else; an empty body stays an
    `IncompleteStreamError`. A line, or
    an event's data, of more than `max_event_bytes` bytes (16 MiB unless told;
    None: no limit) is a `SizeLimitError` (see `iter_events`).

        >>> stream = b'event: message_start\\n'
        >>> stream += b'data: {"type":"message_start","message":{"id":"m","content":[]}}\\n\\n'
        >>> stream += b'event: message_stop\\ndata: {"type":"message_stop"}\\n\\n'
        >>> stream += b'event: done\\ndata: [DONE]\\n\\n'
        >>> accumulate(stream)["content"]
        []
    """
    if isinstance(source, str):
        raise TypeError(
            "accumulate() takes the stream's bytes (or an iterable of byte chunks), not str"
        )
    # One bytes-like object is one chunk (a bytearray or memoryview is copied
    # to bytes here, as the line decoder would copy it anyway).
    head = bytearray()  # the body's first bytes, examined if no event comes
    if isinstance(source, (bytes, bytearray, memoryview)):
        whole = bytes(source)
        chunks: Iterable[bytes] = [whole]
        head += whole[:BODY_HEAD_BYTES]
    else:
        chunks = kept_head(source, head)
    acc = MessageAccumulator()
    events: list[Any] = []  # filled only with keep_events=True
    keep = events.append if keep_events else None
    decoder = FastEventDecoder(strict=strict, max_event_bytes=max_event_bytes)
    with keep_partial(acc, events):
        for chunk in chunks:
            if feed_chunk(acc, decoder, chunk, keep):
                break  # message_stop: the message is final; what follows is not read
        else:
            feed_chunk(acc, decoder, None, keep)
        end_of_body(acc, head)
        return acc.final_message()


def end_of_body(acc: MessageAccumulator, head: bytes | bytearray) -> None:
    """The bytes ended: if not a single event came of them and they were no
    event stream (`events.body_error`: a JSON error object, an HTML page),
    raise that error rather than the `IncompleteStreamError` of a stream cut
    short, which a client would retry for ever. `head`: the body's first bytes."""
    if acc.event_number == 0 and (error := body_error(bytes(head))) is not None:
        raise error


def feed_chunk(
    acc: MessageAccumulator,
    decoder: FastEventDecoder,
    chunk: bytes | None,
    keep: Callable[[Any], None] | None,
) -> bool:
    """Feed `acc` the events of one chunk (bytes; None: the stream has ended,
    `decoder.flush()`), each first given to `keep` if there is one; True once
    `message_stop` is fed: the message is final, read no more. The per-chunk
    step of `accumulate` and `aio.aaccumulate`, which differ only in how they
    wait for the next chunk. Unless every event is kept, the decoder appends
    the pieces of text and tool input itself (`MessageAccumulator.feed_read`)."""
    if keep is not None:
        return acc.feed_each(decoder.feed(chunk) if chunk is not None else decoder.flush(), keep)
    pieces = acc.piece_lists()
    events = decoder.feed(chunk, pieces) if chunk is not None else decoder.flush(pieces)
    return acc.feed_read(decoder, events)


@contextmanager
def keep_partial(acc: MessageAccumulator, events: list[Any]) -> Iterator[None]:
    """Around a loop that feeds `acc`: a `StreamError` raised inside it leaves with
    what had arrived: `.events` (the decoded events received), `.partial` (the
    message so far, if it has none), and for an `IncompleteStreamError` raised by
    the byte source itself (a cut connection), the number of the last event fed."""
    try:
        yield
    except StreamError as error:
        error.events = events
        if isinstance(error, IncompleteStreamError) and error.event_number is None:
            error.event_number = acc.event_number  # raised by the source: after the last event fed
        acc.fill_partial(error)
        raise
