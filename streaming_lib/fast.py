"""The speed paths: the same stages as `lines.py`, `sse.py`, `events.py` and
`partial_json.py`, rewritten for the lines and events that make up almost every
real stream, and nothing else.

Every function here gives exactly what the plain stages give (the same lines,
events, values and errors, at every chunking): `tests/test_fast_paths.py`
holds each one equal to its plain version on random streams, random cuts,
strict and not, with and without size limits. Whatever is rare (a CR, a byte
order mark, strict decoding, an `id:` or `retry:` line, a field without its
space, an event that is not plain) is handed to the plain code, or read with
the plain stages' own pure functions (`sse.parse_field`, `sse.retry_value`,
`events.decode_event`), so every rule still has one home.

What each one pays for (benchmarks/README.md, "Results of the committed run",
2 CPUs, CPython 3.11):

- `feed_each`: a plain chunk (LF endings only, no strict decoding, past the
  start) is split with the state in local variables, no method call per
  chunk: about 0.5 µs a 64-byte chunk where `LineDecoder.feed` takes 0.9 µs.
- `iter_sse`: the `data: ...` and `event: ...` lines and the blank line are
  read in the loop itself, split once at their first space, and an event's
  size is counted per batch of lines, not per line: bytes to events at 175
  MB/s at 4 KiB chunks, 3.6 times the SDK's decoder (benchmark 4). An open
  event's data lines are joined `LINES_PER_GROUP` at a time: a str per line
  costs Python about 50 bytes beyond its text (an event of `data: xy` lines
  took 20 times its data buffer; 34 MB peak for 16 MiB, was 337 MB).
- `iter_events`: the same loop on lines still in bytes (`feed_each(...,
  decode=False)`): a plain event goes from its lines to jiter without being
  decoded to str, encoded back, or made a `ServerSentEvent`, and an event of
  an unknown name is skipped unread. It is most of `accumulate`'s time
  (benchmark 3: 17.8 times the SDK on a 1 MB text stream).
- `scan_string`: a string fragment with no `\\u` escape and no surrogate is
  decoded by `json`'s own scanner, in C, in one call: most of the live
  preview's time is in strings (benchmark 1: 115 times the SDK at 1 MiB).

    >>> list(iter_sse([b"data: a\\n", b"\\n"]))
    [ServerSentEvent(event='message', data='a', id=None, retry=None)]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from json.decoder import scanstring  # type: ignore[attr-defined]  # missing from the stubs
from typing import Any

import jiter

from .events import API_EVENT_NAMES, UNNAMED, decode_event
from .lines import CR, LF, MAX_LINE_BYTES, LineDecoder, _as_bytes, size_limit
from .partial_json_strings import SURROGATE
from .sse import MAX_EVENT_BYTES, ServerSentEvent, parse_field, retry_value, too_large, utf8_length

# An open event's data lines are kept joined this many at a time (see `iter_sse`).
LINES_PER_GROUP = 64


def feed_each(
    decoder: LineDecoder, chunks: Iterable[bytes], *, decode: bool = True
) -> Iterator[list]:
    """Feed every chunk of `chunks` (bytes) to `decoder` in turn; yield the lines
    each one completes (a non-empty list of str, or of bytes with `decode=False`),
    exactly as calling `decoder.feed` would. `LineDecoder.feed_each` calls this.

    A plain chunk (the decoder past the start of the stream, not strict, its
    last chunk not ending in CR, no failure waiting; the chunk without CR) is
    split here; any other is handed to the decoder's own `feed` code (and a
    chunk that is not bytes is taken as `feed` takes it).

    `decode=False` yields each line as UTF-8 bytes instead (used by
    `iter_events`): a plain chunk is split and not decoded at all, which is
    safe because no UTF-8 character contains the byte of LF (or of CR).
    `line.decode("utf-8", "replace")` then gives the line `decode=True` gives:
    invalid bytes in a plain chunk stay as sent; the other chunks are decoded
    as `feed` decodes them and encoded back.

    Until the generator ends (or is closed), `feed`, `flush` and another
    `feed_each` on this decoder raise RuntimeError; `pending` and `offset`
    are up to date whenever it yields.

    This runs as the decoder's own code (it shares the decoder's `pending`
    buffer and byte count, and keeps them up to date): it is `feed`, unrolled.
    """
    if decoder._feeding_each:
        raise RuntimeError("feed_each() while another feed_each() over this decoder is under way")
    decoder._feeding_each = True
    # `pending` is the decoder's own buffer, changed in place here (only `feed`
    # replaces it); `fed` is a local copy, written back before each yield.
    pending, fed, max_line = decoder._pending, decoder._fed, decoder._max
    careful = _careful(decoder)
    # The offset past which the pending line would be longer than the limit:
    # a plain chunk then costs one comparison of two ints, not a len().
    full_at = fed - len(pending) + max_line
    try:
        for chunk in chunks:
            if type(chunk) is not bytes:
                chunk = _as_bytes(chunk)
            if not careful and CR not in chunk:
                fed += len(chunk)
                pending += chunk
                if LF in chunk:
                    # Split and drop everything up to the last LF. Dropping the head
                    # of a bytearray only moves its start: no copy of the tail.
                    end = pending.rfind(LF) + 1
                    if end <= max_line:  # else a line may be too long: `feed` looks
                        lines: list[str] | list[bytes]
                        if decode:
                            lines = pending[:end].decode("utf-8", "replace").split("\n")
                        else:
                            lines = bytes(pending[:end]).split(b"\n")
                        del pending[:end]
                        lines.pop()
                        full_at = fed - len(pending) + max_line
                        decoder._fed = fed
                        yield lines
                        continue
                elif fed <= full_at:
                    continue
                # Past the limit: the chunk is taken back, for `feed` to handle.
                del pending[len(pending) - len(chunk) :]
                fed -= len(chunk)
            decoder._fed = fed
            try:
                lines = decoder._feed(chunk)
            finally:  # `feed` may have replaced the buffer, or raised half-way
                pending, fed, careful = decoder._pending, decoder._fed, _careful(decoder)
                full_at = fed - len(pending) + max_line
            if lines:
                yield lines if decode else [line.encode() for line in lines]
    finally:  # also when the caller stops early or an error is raised: the decoder stays usable
        decoder._fed, decoder._feeding_each = fed, False


def _careful(decoder: LineDecoder) -> bool:
    """True if the next chunk's lines depend on more than its own bytes: a byte
    order mark still possible, a CR that an LF may complete, strict decoding,
    or a failure waiting to be raised. Then `feed` itself must take it."""
    return (
        decoder.strict
        or decoder._at_start
        or decoder._ended_with_cr
        or decoder._failure is not None
    )


def iter_lines(
    chunks: Iterable[bytes], *, strict: bool = False, max_line_bytes: int | None = MAX_LINE_BYTES
) -> Iterator[str]:
    """`lines.iter_lines`, through `feed_each`: the same lines and errors.

    >>> list(iter_lines([b"a\\nb"]))
    ['a', 'b']
    """
    for lines in LineDecoder(strict=strict, max_line_bytes=max_line_bytes).feed_all(chunks):
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
    lines = LineDecoder(strict=strict, max_line_bytes=max_event_bytes)
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


def iter_events(
    chunks: Iterable[bytes], *, strict: bool = False, max_event_bytes: int | None = MAX_EVENT_BYTES
) -> Iterator[Any]:
    """`events.iter_events`: the same Messages API events (dicts), numbered the
    same way in errors, and the same errors (`SSEDecodeError`, `SizeLimitError`,
    `EventDataError`), faster.

    The loop of `iter_sse` on lines that are still bytes: a plain event (named
    by one of the API's names but `ping` and `error`, or unnamed, with data that
    jiter reads as an object whose `type` is that name) goes from its lines to
    its value directly. An unknown name is skipped without reading its data.
    Every other event is decoded and handed to `decode_event`.
    """
    lines = LineDecoder(strict=strict, max_line_bytes=max_event_bytes)
    limit = size_limit(max_event_bytes)
    # Decoded, data may grow up to 3 times (an invalid byte becomes U+FFFD, 3 bytes):
    # data shorter than this fits whatever it holds, and needs no counting.
    may_not_fit = -(-limit // 3)
    data: list[bytes]
    event_type, data, number = b"", [], 0
    counted, counted_lines, counted_bytes, grouped = None, 0, 0, 0  # as in `iter_sse`
    for batch in lines.feed_all(chunks, decode=False):
        for line in batch:
            if not line:  # dispatch, as in `iter_sse`
                if data:
                    text, event = b"\n".join(data), None
                    # Sizes are those of the lines decoded, as `iter_sse` sees them.
                    if len(text) >= may_not_fit and _decoded_length(text) + 1 > limit:
                        raise too_large(limit)
                    if event_type in PLAIN_NAMES:
                        expected = PLAIN_NAMES[event_type]
                        # A try, not contextlib.suppress: this is the speed path.
                        try:  # noqa: SIM105
                            event = jiter.from_json(text)  # what `load_json` tries first
                        except ValueError:  # also bytes that are not UTF-8
                            pass
                        if type(event) is not dict or event.get("type") != expected:
                            kind = event.get("type") if type(event) is dict else None
                            if (
                                expected is not ANY_NAME
                                or type(kind) is not str
                                or kind not in PLAIN_TYPES
                            ):
                                event = None  # not read above, or not plain: `decode_event` decides
                        if event is None:
                            name = event_type.decode("utf-8", "replace") or UNNAMED
                            event = decode_event(
                                ServerSentEvent(name, text.decode("utf-8", "replace")), number + 1
                            )
                    elif event_type in DECODED_NAMES:  # `ping`, `error`: whatever the data
                        name = event_type.decode()
                        event = decode_event(
                            ServerSentEvent(name, text.decode("utf-8", "replace")), number + 1
                        )
                    # Any other name is not an API event: skipped, its data unread.
                    if event is not None:
                        number += 1
                        yield event
                    data = []
                event_type = b""
                continue
            name, _, value = line.partition(b" ")  # as in `iter_sse`
            if name == b"data:":
                data.append(value)
            elif name == b"event:":
                event_type = value
            else:  # `id`, `retry`, comments change no API event; a field without its space might
                field, text_value = parse_field(line.decode("utf-8", "replace"))
                if field == "data":
                    data.append(text_value.encode())
                elif field == "event":
                    event_type = text_value.encode()
        if data:  # an event goes on after this batch: its data so far must fit, as in `iter_sse`
            if data is not counted:
                counted, counted_lines, counted_bytes, grouped = data, 0, 0, 0
            if counted_lines < len(data):
                text = b"\n".join(data[counted_lines:])
                counted_bytes += (len(text) if text.isascii() else _decoded_length(text)) + 1
                counted_lines = len(data)
                if counted_bytes > limit:
                    raise too_large(limit)
                if counted_lines - grouped >= LINES_PER_GROUP:
                    data[grouped:] = [b"\n".join(data[grouped:])]
                    grouped = counted_lines = len(data)


def _decoded_length(raw: bytes) -> int:
    """The UTF-8 bytes of `raw` once decoded, invalid bytes as U+FFFD (int)."""
    return len(raw) if raw.isascii() else utf8_length(raw.decode("utf-8", "replace"))


def scan_string(rest: str) -> tuple[str, int, int] | None:
    """Read a JSON string fragment (str, the text after the opening quote or
    after what an earlier fragment used) in one call, or None when the plain
    scanner (`PartialJSONParser._string`) must read it: a `\\u` escape, a
    surrogate, a bad escape or control character.

    Returns (decoded text, characters used, cut): `used` counts the closing
    quote if the string ends in `rest` (`used <= len(rest) - cut`), else it is
    past the end; `cut` is 1 when `rest` ends with an escape's lone backslash,
    held back for the next fragment.

        >>> scan_string('ab\\\\n" , 1'), scan_string("ab"), scan_string("\\\\u00e9") is None
        (('ab\\n', 5, 0), ('ab', 3, 0), True)
    """
    if "\\" not in rest and '"' not in rest and rest.isprintable():
        return rest, len(rest) + 1, 0  # as if closed by a quote after it
    if "\\u" in rest or not (rest.isascii() or not SURROGATE.search(rest)):
        return None
    # An odd number of backslashes at the end: the last one starts an escape
    # that the next fragment finishes.
    cut = (len(rest) - len(rest.rstrip("\\"))) & 1 if rest[-1] == "\\" else 0
    try:
        decoded, used = scanstring(rest[:-1] + '"' if cut else rest + '"', 0)
    except ValueError:  # a bad escape or control character
        return None
    return decoded, used, cut
