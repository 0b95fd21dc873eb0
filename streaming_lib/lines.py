"""Stage 1: network chunks (bytes) in, lines (str) out.

A network chunk is whatever the socket handed over: it can end anywhere, in the
middle of a line, between a CR and its LF, or inside a multi-byte UTF-8
character. `LineDecoder` turns such chunks back into the lines the server wrote.

Follows WHATWG HTML, "9.2.6 Interpreting an event stream" (the stream grammar):
- a line ends at CRLF, at a lone LF, or at a lone CR;
- one UTF-8 byte order mark at the very start of the stream is dropped;
- bytes are decoded as UTF-8, and invalid bytes become U+FFFD.

Deliberately not handled here: anything about SSE fields (`event:`, `data:`);
that is `sse.py`'s job. This module knows only bytes and line endings.

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
from collections.abc import Iterable, Iterator

from .errors import SSEDecodeError

BOM = b"\xef\xbb\xbf"  # U+FEFF encoded as UTF-8
LINE_END = re.compile(rb"\r\n|\r|\n")


class LineDecoder:
    """Split a stream of byte chunks into decoded lines.

    `feed(chunk: bytes) -> list[str]` returns the lines completed by `chunk`,
    line terminators removed. `flush() -> list[str]` returns the last line if
    the stream ended without a terminator. With `strict=True`, invalid UTF-8
    raises `SSEDecodeError` naming the byte offset in the stream instead of
    becoming U+FFFD.

    The cost is linear in the number of bytes whatever the chunk sizes: each
    byte is copied into the `pending` buffer at most once.
    """

    def __init__(self, *, strict: bool = False) -> None:
        self.strict = strict
        # The bytes of a line whose end has not arrived yet. A bytearray, so a
        # long line arriving in many small chunks grows in place instead of being
        # re-copied on every chunk (which would be quadratic).
        self._pending = bytearray()
        # The previous chunk ended with CR. That CR already ended a line (a lone
        # CR is a line ending), but if the next chunk starts with LF the pair
        # was one CRLF, and that LF must not end a second, empty line.
        self.after_cr = False
        # Bytes fed so far, and where the pending line started: error messages
        # name the offset of a bad byte in the whole stream, not in one chunk.
        self.offset = 0
        self._line_offset = 0
        # Only the first line of the stream may carry a byte order mark.
        self._first_line = True

    @property
    def pending(self) -> bytes:
        """The bytes held for the line not yet finished (bytes, maybe a half character)."""
        return bytes(self._pending)

    def feed(self, chunk: bytes) -> list[str]:
        """Add one network chunk; return the lines it completes (list of str)."""
        start = 0
        if self.after_cr and chunk[:1] == b"\n":
            start = 1  # the LF of a CRLF split across two chunks
            self._line_offset += 1
        if chunk:
            self.after_cr = chunk.endswith(b"\r")
        lines = []
        for match in LINE_END.finditer(chunk, start):
            if self._pending:
                self._pending += chunk[start : match.start()]
                raw = bytes(self._pending)
                self._pending.clear()
            else:
                raw = chunk[start : match.start()]
            lines.append(self._decode(raw))
            self._line_offset = self.offset + match.end()
            start = match.end()
        self._pending += chunk[start:]
        self.offset += len(chunk)
        return lines

    def flush(self) -> list[str]:
        """End of stream: return the unterminated last line, if any (list of 0 or 1 str)."""
        if not self._pending:
            return []
        raw = bytes(self._pending)
        self._pending.clear()
        return [self._decode(raw)]

    def _decode(self, raw: bytes) -> str:  # one complete line's bytes -> str
        offset = self._line_offset
        if self._first_line:
            self._first_line = False
            if raw.startswith(BOM):
                raw, offset = raw[len(BOM) :], offset + len(BOM)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            if self.strict:
                bad = offset + error.start
                raise SSEDecodeError(
                    f"invalid UTF-8 at byte offset {bad}: {raw[error.start:error.end]!r}",
                    offset=bad,
                ) from None
            # Python's replacement follows the same "maximal subpart" rule as
            # the WHATWG UTF-8 decoder: one U+FFFD per broken sequence.
            return raw.decode("utf-8", errors="replace")


def iter_lines(chunks: Iterable[bytes], *, strict: bool = False) -> Iterator[str]:
    """Yield every line (str) of a stream given as byte chunks, the last unterminated one included."""
    decoder = LineDecoder(strict=strict)
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.flush()
