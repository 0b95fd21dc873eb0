"""UTF-8 as the front ends show it: the character a chunk cut in half, and which bytes make which
character.

A network chunk can end inside a multi-byte character. The line decoder
simply keeps those bytes in `pending` until the rest arrives; the stepper
wants to *say* so: "2 of its 3 bytes have arrived". Which bytes are the start
of a character still arriving, and which are plain invalid bytes, is decided
here by Python's own incremental UTF-8 decoder (`codecs`), so this module
agrees with `bytes.decode` on every byte, overlong forms and surrogates
included (RFC 3629, section 3; the WHATWG Encoding Standard's UTF-8 decoder).

    >>> unfinished_character("data: 原".encode()[:-1])   # 原 is e5 8e 9f
    (b'\\xe5\\x8e', 1)
    >>> unfinished_character(b"data: \\xc0")               # c0 never starts a character
    (b'', 0)

Deliberately not handled here: splitting lines (`lines.py`) and replacing
invalid bytes with U+FFFD (`bytes.decode(errors="replace")` does it there).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator

# A character is at most 4 bytes, so at most its first 3 can be waiting.
LONGEST = 4


def unfinished_character(data: bytes) -> tuple[bytes, int]:
    """(the bytes at the end of `data` that begin a character not finished yet, how many bytes it
    still needs).

    `(b"", 0)` when `data` ends on a character boundary or with bytes that can
    never become a character (an invalid lead byte, an overlong or surrogate
    start): the decoder would already replace those, nothing is waiting.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    # The decoder resynchronises at every byte that can start a character, so
    # the last few bytes decide what is waiting at the end as well as all of them.
    decoder.decode(data[-(LONGEST - 1) :], final=False)
    waiting, _ = decoder.getstate()
    if not waiting:
        return b"", 0
    # The first byte of a character says its length: as many bytes as it has
    # leading 1 bits (110xxxxx: 2, 1110xxxx: 3, 11110xxx: 4).
    missing = 8 - (waiting[0] ^ 0xFF).bit_length() - len(waiting)
    # The decoder also holds the start of an encoded surrogate (ed a0..bf),
    # which no byte can complete (it keeps it for the "surrogatepass" error
    # handler). Past the second byte any continuation byte would do, so one
    # try with 80s tells a real start from that.
    if len(waiting) > 1:
        try:
            (waiting + b"\x80" * missing).decode("utf-8")
        except UnicodeDecodeError:
            return b"", 0
    return waiting, missing


def characters(raw: bytes) -> Iterator[tuple[int, int, str | None]]:
    """(offset, length in bytes, the character or None) for each character of `raw`, in order.

    A byte that is not part of a valid character comes out alone, as None
    (where `raw.decode("utf-8", "replace")` puts a U+FFFD for one or more).

    >>> list(characters("a原".encode() + b"\\xff"))
    [(0, 1, 'a'), (1, 3, '原'), (4, 1, None)]
    """
    offset = 0
    # surrogateescape turns each byte the decoder rejects into one code point
    # U+DC80..U+DCFF, which no valid UTF-8 text can contain: one per bad byte.
    for char in raw.decode("utf-8", "surrogateescape"):
        if char < "\x80":
            yield offset, 1, char
            offset += 1
        elif "\udc80" <= char <= "\udcff":
            yield offset, 1, None
            offset += 1
        else:
            length = len(char.encode("utf-8"))
            yield offset, length, char
            offset += length
