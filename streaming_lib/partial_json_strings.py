"""Strings inside JSON: escapes and UTF-16 halves, for `partial_json.py`.

A JSON string may hold `\\n`-style escapes and `\\uXXXX` escapes; a character
outside the Basic Multilingual Plane is written as two of those, a high and a
low surrogate (RFC 8259, section 7). A streamed fragment may end anywhere in
one, so `decode_escape` says "not yet" (None) until the escape is whole.

Follows jiter's errors (offsets count characters); one rule is ours: a
surrogate escape without its pair is U+FFFD (see `partial_json.py`).

Deliberately not handled here: the grammar around strings (`partial_json.py`).

    >>> decode_escape("\\\\n..."), decode_escape("\\\\u00e9"), decode_escape("\\\\u00")
    (('\\n', 2), ('é', 6), None)
    >>> read_string('ab\\\\n" , 1', 0), read_string('x\\\\u00e9"', 0)
    (('ab\\n', 4), ('x', 1))
"""

from __future__ import annotations

import re

# Inside a string, everything up to one of these characters is copied as one slice.
STRING_STOP = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')
# A UTF-16 half (a surrogate code point): in a str, never a character of its own.
SURROGATE = re.compile("[\ud800-\udfff]")
# The one-character escapes and what they stand for (RFC 8259, section 7).
ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX4 = re.compile("[0-9a-fA-F]{4}")
_HEX_SO_FAR = re.compile("[0-9a-fA-F]{0,4}")


class PartialJSONError(ValueError):
    """The text is not the start of a JSON value, or (for a snapshot) has no value yet.

    ``offset``: 0-based character index of the problem (``len(text)`` when the text just
    ends too early).  ``message``: jiter's wording, e.g. ``"expected value"``.
    """

    def __init__(self, message: str, offset: int):
        super().__init__(f"{message} at offset {offset}")
        self.message, self.offset = message, offset


def read_string(text: str, pos: int) -> tuple[str, int]:
    """Read the characters of a JSON string from ``text[pos:]``: (the text they decode
    to, the index where reading stopped).

    Reading stops at the closing quote, at an escape other than a one-character one
    (``\\u``, a bad escape, or a backslash at the very end: ``decode_escape`` reads
    those), at a character no JSON string holds (a control character, or a surrogate),
    or at the end of ``text`` (the index is then ``len(text)``).  Between them, each run
    of plain characters is copied as one slice.
    """
    pieces, search = [], STRING_STOP.search
    while True:
        stop = search(text, pos)
        end = stop.start() if stop else len(text)
        if end > pos:
            pieces.append(text[pos:end])
        if stop is None or text[end] != "\\":
            return "".join(pieces), end
        simple = ESCAPES.get(text[end + 1 : end + 2])
        if simple is None:
            return "".join(pieces), end
        pieces.append(simple)
        pos = end + 2


def hex4(raw: str, at: int) -> int | None:
    digits = raw[at : at + 4]
    if _HEX4.fullmatch(digits):
        return int(digits, 16)
    if len(digits.encode("utf-8", "surrogatepass")) < 4:  # jiter waits for four bytes
        return None
    raise PartialJSONError(
        "invalid escape",
        at + next(i for i, char in enumerate(digits) if char not in "0123456789abcdefABCDEF"),
    )


def decode_escape(raw: str) -> tuple[str, int] | None:
    """Decode the escape at the start of ``raw``: (text, characters used), or None if
    ``raw`` ends too early.  Error offsets are relative to ``raw``."""
    if len(raw) < 2:
        return None
    if raw[1] != "u":
        if raw[1] in ESCAPES:
            return ESCAPES[raw[1]], 2
        raise PartialJSONError("invalid escape", 1)
    code = hex4(raw, 2)
    if code is None:
        return None
    if not 0xD800 <= code <= 0xDFFF:
        return chr(code), 6
    if code >= 0xDC00:  # a low surrogate cannot come first: a lone half
        return "\ufffd", 6
    # A high surrogate: a "\\u" low surrogate may follow, together one character;
    # anything else leaves it a lone half, U+FFFD, and is read on its own.
    for at, expected in ((6, "\\"), (7, "u")):
        if len(raw) <= at:
            return None
        if raw[at] != expected:
            return "\ufffd", 6
    digits = raw[8:12]
    if not _HEX_SO_FAR.fullmatch(digits):  # not an escape of four hex digits: no pair
        return "\ufffd", 6
    if len(digits) < 4:
        return None
    if not 0xDC00 <= int(digits, 16) <= 0xDFFF:
        return "\ufffd", 6
    low = int(digits, 16)
    return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), 12
