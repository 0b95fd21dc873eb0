"""Stage 1: network chunks (bytes) in, lines (str) out.

A network chunk is whatever the socket handed over: it can end anywhere, in the
middle of a line, between a CR and its LF, or inside a multi-byte UTF-8
character. `LineDecoder` turns such chunks back into the lines the server wrote.

Follows WHATWG HTML, "9.2.6 Interpreting an event stream" (the stream grammar):
- a line ends at CRLF, at a lone LF, or at a lone CR;
- one UTF-8 byte order mark at the very start of the stream is dropped;
- bytes are decoded as UTF-8, and invalid bytes become U+FFFD.

One rule is ours, not the spec's: a line longer than `max_line_bytes` (16 MiB
unless told; the API's largest lines are far smaller) is a `SizeLimitError`,
raised before the line is held whole, so a stream that never sends a line
ending cannot fill memory.

Deliberately not handled here: anything about SSE fields (`event:`, `data:`);
that is `sse.py`'s job. This module knows only bytes and line endings. The
speed path for a whole stream is `fast.FastLineDecoder` (the pipeline's
`iter_lines`, `iter_sse` and `iter_events` use it).

    >>> decoder = LineDecoder()
    >>> decoder.feed(b"data: \\xe5\\x8e")      # ends inside the character 原
    []
    >>> decoder.pending
    b'data: \\xe5\\x8e'
    >>> decoder.feed(b"\\x9f\\r")              # a CR ends the line at once...
    ['data: 原']
    >>> decoder.feed(b"\\nnext")               # ...and the LF after it is swallowed
    []
    >>> decoder.flush()
    ['next']
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator

from .errors import SizeLimitError, SSEDecodeError
from .language import _

BOM = b"\xef\xbb\xbf"  # U+FEFF encoded as UTF-8
# Line-ending bytes as ints: `LF in chunk` with an int is a plain byte search,
# several times faster than with b"\n" (measured), and it runs once per chunk.
LF, CR = 0x0A, 0x0D
# A line ending, as the WHATWG stream grammar defines it: CRLF, a lone LF or a
# lone CR (the longest first, so a CRLF is one ending). For bytes and for str.
LINE_END_BYTES = re.compile(rb"\r\n|\r|\n")
LINE_END = re.compile(LINE_END_BYTES.pattern.decode())
# The longest line a decoder takes unless told otherwise, in bytes.
MAX_LINE_BYTES = 16 * 2**20


class LineDecoder:
    """Split a stream of byte chunks into decoded lines.

    `feed(chunk: bytes) -> list[str]` returns the lines completed by `chunk`,
    line terminators removed. `flush() -> list[str]` returns the last line if
    the stream ended without a terminator. With `strict=True`, invalid UTF-8
    raises `SSEDecodeError` naming the byte offset in the stream instead of
    becoming U+FFFD. A line of more than `max_line_bytes` bytes (as sent,
    without its line ending; None: no limit) raises `SizeLimitError` naming the
    offset of its first byte, whatever the chunks: the lines before it come
    out first, and the line is never held whole (at most `max_line_bytes` of
    it, plus the chunk that carried it past the limit).

    The cost is linear in the number of bytes whatever the chunk sizes: each
    byte is copied into the `pending` buffer at most once.

    `offset` (int, 0 unless told) is for a decoder that takes over a stream
    midway: the bytes that came before the first chunk it is fed. Error offsets
    then count from the start of the whole stream, and a byte order mark is
    looked for only at offset 0. Raises ValueError for an offset below 0.
    """

    def __init__(
        self, *, strict: bool = False, max_line_bytes: int | None = MAX_LINE_BYTES, offset: int = 0
    ) -> None:
        if offset < 0:
            raise ValueError(f"an offset is at least 0 bytes, not {offset}")
        self._strict = strict
        # The longest line taken, in bytes; sys.maxsize stands for "no limit"
        # so that the check is one comparison.
        self._max = size_limit(max_line_bytes)
        # The bytes of a line whose end has not arrived yet. A bytearray, so a
        # long line arriving in many small chunks grows in place instead of being
        # re-copied on every chunk (which would be quadratic).
        self._pending = bytearray()
        # The last chunk with a line ending ended with CR. That CR already ended
        # a line (a lone CR is a line ending), but if the next bytes start with
        # LF the pair was one CRLF, and that LF must not end a second, empty line.
        self._ended_with_cr = False
        # Bytes fed so far. `pending` is always the last bytes fed, so it starts
        # at `_fed - len(_pending)`: errors name the offset of a bad byte in the
        # whole stream, not in one chunk.
        self._fed = offset
        # Only the very start of the stream may carry a byte order mark.
        self._at_start = offset == 0
        # Strict mode met a bad byte (or a line was too long) after some good
        # lines in the same chunk: those lines were handed back first, and
        # this is raised next.
        self._failure: SSEDecodeError | SizeLimitError | None = None

    @property
    def strict(self) -> bool:
        """True: invalid UTF-8 raises `SSEDecodeError`; False: it becomes U+FFFD. Fixed at
        construction."""
        return self._strict

    @property
    def max_line_bytes(self) -> int | None:
        """The longest line taken, in bytes (None: no limit). Fixed at construction."""
        return None if self._max == sys.maxsize else self._max

    @property
    def pending(self) -> bytes:
        """The bytes held for the line not yet finished (bytes, maybe a half character)."""
        return bytes(self._pending)

    @property
    def offset(self) -> int:
        """Bytes of the stream so far (int): those fed, after the `offset` it started at."""
        return self._fed

    @property
    def after_cr(self) -> bool:
        """True if the last byte fed was a CR: an LF arriving next is its pair, not a new line."""
        return self._ended_with_cr and not self._pending

    def feed(self, chunk: bytes) -> list[str]:
        """Add one network chunk; return the lines it completes (list of str).

        `chunk` is bytes (a bytearray or memoryview is copied to bytes first).
        Raises TypeError for anything else, such as str, `SSEDecodeError` (strict
        mode) and `SizeLimitError` (a line too long; then at every later call)."""
        if type(chunk) is not bytes:
            chunk = _as_bytes(chunk)
        start = self._fed - len(self._pending)  # where `pending` starts in the stream
        self._fed += len(chunk)
        if LF not in chunk and CR not in chunk:
            # No line ends here: just keep the bytes. This is most chunks when
            # they are small, so it does as little as possible (measured in
            # benchmarks/: 1-byte chunks cost about one method call each).
            return self._hold(chunk, start)
        if self._failure:
            raise self._failure
        if chunk[0] == LF and self.after_cr:
            chunk = chunk[1:]  # the LF of a CRLF split across two chunks
            start += 1
            if not chunk:
                self._ended_with_cr = False
                return []
        self._ended_with_cr = chunk[-1] == CR
        # Everything up to the last CR or LF of the chunk is complete lines.
        end = max(chunk.rfind(LF), chunk.rfind(CR)) + 1
        if end == 0:  # the chunk was only the LF of a split CRLF plus line bytes
            return self._hold(chunk, start)
        self._pending += chunk[:end]
        tail = chunk[end:]
        if (
            len(self._pending) > self._max
            and (cut := self._long_line_at(self._pending)) is not None
        ):
            # A line too long: the lines before it go out first, as smaller
            # chunks would give them, and it is raised at the next call.
            self._failure = self._too_long(start + cut)
            if cut == 0:
                raise self._failure
            del self._pending[cut:]
            tail = b""
        # One decode for all of them (CR and LF are ASCII: no character can
        # straddle a line ending), then one split: both run in C, which makes
        # a chunk of many lines cost about as much as one long line.
        try:
            text = self._decode(self._pending, start)
        except SSEDecodeError as error:
            return self._lines_before(error, start)
        self._pending = bytearray(tail)
        lines = LINE_END.split(text) if "\r" in text else text.split("\n")
        lines.pop()  # the empty string after the last line ending
        return lines

    def feed_each(self, chunks: Iterable[bytes], *, decode: bool = True) -> Iterator[list]:
        """`feed` every chunk of `chunks` (bytes) in turn; yield the lines each one
        completes (a non-empty list of str, or of UTF-8 bytes with `decode=False`).
        (`fast.FastLineDecoder.feed_each` yields the same, faster.)"""
        for chunk in chunks:
            if lines := self.feed(chunk):
                yield lines if decode else [line.encode() for line in lines]

    def feed_all(self, chunks: Iterable[bytes], *, decode: bool = True) -> Iterator[list]:
        """`feed_each(chunks, decode=decode)`, then `flush()`: every batch of lines,
        and at the end the last unterminated line, if any, as a batch of its own."""
        yield from self.feed_each(chunks, decode=decode)
        if last := self.flush():
            yield last if decode else [line.encode() for line in last]

    def flush(self) -> list[str]:
        """End of stream: return the unterminated last line, if any (list of 0 or 1 str)."""
        if self._failure:
            raise self._failure
        if not self._pending or (self._at_start and self._pending == BOM):
            return []  # nothing, or only the byte order mark: no line at all
        if len(self._pending) > self._max:
            self._failure = self._too_long(self._fed - len(self._pending))
            raise self._failure
        line = self._decode(self._pending, self._fed - len(self._pending))
        self._pending = bytearray()
        return [line]

    def _hold(self, chunk: bytes, start: int) -> list[str]:
        """Keep `chunk`, which ends no line, unless the line would pass the limit."""
        if len(self._pending) + len(chunk) > self._max:
            self._failure = self._failure or self._too_long(
                start
            )  # a bad byte before it comes first
            raise self._failure
        self._pending += chunk
        return []

    def _long_line_at(self, raw: bytes | bytearray) -> int | None:
        """Where the first line of `raw` (complete lines) longer than the limit starts, or None."""
        at = 0
        for end in LINE_END_BYTES.finditer(raw):
            if end.start() - at > self._max:
                return at
            at = end.end()
        return None

    def _too_long(self, offset: int) -> SizeLimitError:
        return SizeLimitError(
            _(
                "the line at byte offset {offset} is longer than the size limit, {limit} bytes",
                offset=offset,
                limit=self._max,
            ),
            offset=offset,
            limit=self._max,
        )

    def _lines_before(self, error: SSEDecodeError, start: int) -> list[str]:
        # Strict mode met a bad byte. Hand back the lines that ended before it,
        # as smaller chunks would have, and raise at the next call: what a
        # failure keeps must not depend on where the network cut the bytes.
        assert error.offset is not None  # `_decode` always says where
        head = self._pending[: error.offset - start]
        cut = max(head.rfind(b"\n"), head.rfind(b"\r")) + 1
        if cut == 0:
            raise error
        self._failure = error
        text = head[:cut].decode("utf-8")
        if start == 0:
            text = text.removeprefix("\ufeff")  # the byte order mark
        lines = LINE_END.split(text)
        lines.pop()
        return lines

    def _decode(self, raw: bytes | bytearray, offset: int) -> str:  # complete lines' bytes -> str
        if self._at_start:
            self._at_start = False
            if raw.startswith(BOM):
                raw, offset = raw[len(BOM) :], offset + len(BOM)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            if self.strict:
                bad = offset + error.start
                raise SSEDecodeError(
                    _(
                        "invalid UTF-8 at byte offset {offset}: {bytes!r}",
                        offset=bad,
                        bytes=bytes(raw[error.start : error.end]),
                    ),
                    offset=bad,
                ) from None
            # Python's replacement follows the same "maximal subpart" rule as
            # the WHATWG UTF-8 decoder: one U+FFFD per broken sequence.
            return raw.decode("utf-8", errors="replace")


def _as_bytes(chunk: object) -> bytes:
    """A chunk that is not bytes: a copy of a bytes-like one, or TypeError."""
    if isinstance(chunk, str):
        raise TypeError("a chunk must be bytes, not str: the stream is read as bytes, then decoded")
    if type(chunk) is int:  # what iterating over one bytes object gives
        raise TypeError(
            "a chunk must be bytes, not int: pass a list of chunks, [raw], not raw itself"
        )
    try:
        return bytes(memoryview(chunk))  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"a chunk must be bytes, not {type(chunk).__name__}") from None


def size_limit(limit: int | None) -> int:
    """A size limit (`max_line_bytes`, `max_event_bytes`) as the decoders hold it:
    its bytes, or sys.maxsize for None (no limit), so that a check is one comparison.
    Raises TypeError for anything but a whole number (a bool is not one) or None,
    and ValueError for one below 1.

        >>> size_limit(1024), size_limit(None) == sys.maxsize
        (1024, True)
    """
    if limit is None:
        return sys.maxsize
    if type(limit) is not int:
        raise TypeError(
            f"a size limit is a whole number of bytes, or None for none, not {type(limit).__name__}"
        )
    if limit < 1:
        raise ValueError(f"a size limit is at least 1 byte, not {limit}")
    return limit


def iter_lines(
    chunks: Iterable[bytes], *, strict: bool = False, max_line_bytes: int | None = MAX_LINE_BYTES
) -> Iterator[str]:
    """Yield every line (str) of a stream given as byte chunks, the last unterminated one included.

    Raises `SSEDecodeError` (strict mode) and `SizeLimitError` as `LineDecoder` does.
    (`streaming_lib.iter_lines` is the same, faster: `fast.iter_lines`.)

        >>> list(iter_lines([b"data: a\\r", b"\\ndata: b"]))
        ['data: a', 'data: b']
    """
    decoder = LineDecoder(strict=strict, max_line_bytes=max_line_bytes)
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.flush()
