"""Parse JSON that is still arriving: the best value for every prefix.

A streamed tool call's input arrives as JSON text in fragments (``input_json_delta``),
e.g. ``'{"path": "calc.py", "con'``.  ``parse_partial_json(text)`` gives the best value
for such a prefix.  ``PartialJSONParser`` does it incrementally: ``feed()`` a fragment,
get back what changed.  It keeps its place (a state machine with an explicit stack) and
never re-reads text, so n characters cost O(n) in total.

Values and errors follow jiter (the ``anthropic`` SDK's parser) called as
``jiter.from_json(text.encode(), partial_mode=True)`` (or ``"trailing-strings"``):

* Unfinished keys, literals (``tru``) and numbers (``1.``, ``-``) are left out, and so are
  unfinished strings unless ``trailing_strings=True`` keeps them (cut before an
  unfinished escape).  A number at the very end counts as it stands: ``[1`` is ``[1]``.
* No value yet at the top level (``''``, ``'tru'``, ``'"ab'`` without trailing strings)
  is an error.  Text after a complete top-level value is ignored.
* After a complete value, a character other than ``,`` or the closing bracket ends the
  container: ``[1 x`` is ``[1]``.
* ``NaN`` and ``Infinity`` are accepted; a repeated key keeps its first place and takes
  the last value; at most 200 levels of nesting and 4300 digits in an integer.
* ``allow_inf_nan=False`` refuses ``NaN`` and ``Infinity`` with jiter's errors ("expected
  value", "invalid number"), and a number too large for a float (``1e400``), which jiter
  reads as ``inf`` even so, with "number out of range": the accumulator's previews
  refuse what its final parse of a tool's input refuses.

One rule is not jiter's: a surrogate escape without its pair (``"\\ud83d"`` then
anything but a ``\\udc00``-``\\udfff`` escape, or a low one first) is U+FFFD, where
jiter refuses it and ``json.loads`` keeps a lone surrogate that UTF-8 cannot encode;
a high one at the very end waits for what follows.  The accumulator's strict parse at
the block's stop (``load_json(..., lone_surrogates="replace")``) reads them the same
way, so the preview and the final input agree.

Strings and their escapes are decoded by ``partial_json_strings.py``.  What is left
here is the grammar: the states, and the stack of open lists and dicts.  (The
accumulator uses ``fast.FastPartialJSONParser``: the same parser, its strings read
by json's own scanner where it can.)

Non-goals: bytes input; jiter's other options (Decimal floats, duplicate-key errors);
byte or line/column positions (offsets count characters); several documents per stream.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .events import JITER_MAX_DEPTH
from .partial_json_strings import (
    SURROGATE,  # noqa: F401 (still importable from here)
    PartialJSONError,
    decode_escape,
    read_string,
)

MAX_INT_DIGITS = 4300  # jiter, like Python's int(), rejects longer integers

_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _skip_whitespace(text: str, pos: int) -> int:
    """The position of the first character at or after ``pos`` that is not JSON whitespace."""
    match = _WHITESPACE.match(text, pos)
    assert match is not None  # `*` matches the empty string too
    return match.end()


_LITERALS = {
    "t": ("true", True),
    "f": ("false", False),
    "n": ("null", None),
    "N": ("NaN", float("nan")),
    "I": ("Infinity", float("inf")),
}
# Numbers, as a table: state -> {character class -> next state}.  A character with no
# entry ends the number, which is an error unless the state is one of _NUMBER_ENDS.
_NUMBER_CLASS = {
    **dict.fromkeys("123456789", "1"),
    "0": "0",
    "-": "-",
    "+": "+",
    ".": ".",
    "e": "e",
    "E": "e",
}
_NUMBER_STEPS = {
    "start": {"-": "sign", "0": "zero", "1": "int"},
    "sign": {"0": "zero", "1": "int"},  # "-" then "I" is -Infinity, handled apart
    "zero": {".": "dot", "e": "exp"},  # a digit after a leading 0 is an error
    "int": {"0": "int", "1": "int", ".": "dot", "e": "exp"},
    "dot": {"0": "frac", "1": "frac"},
    "frac": {"0": "frac", "1": "frac", "e": "exp"},
    "exp": {"0": "exp_digits", "1": "exp_digits", "+": "exp_sign", "-": "exp_sign"},
    "exp_sign": {"0": "exp_digits", "1": "exp_digits"},
    "exp_digits": {"0": "exp_digits", "1": "exp_digits"},
}
_NUMBER_ENDS = frozenset({"zero", "int", "frac", "exp_digits"})
_NOTHING = object()  # "no value yet" (None is a JSON value: null)


# Where a value sits: its keys (str) and list indices (int), outermost first; () is the top level.
KeyPath = tuple[str | int, ...]


@dataclass(slots=True)
class SetValue:
    """``value`` now sits at ``path``, replacing what was there (a repeated key): a
    finished scalar, or a new empty list, dict or str that later changes fill in."""

    path: KeyPath
    value: Any


@dataclass(slots=True)
class AppendString:
    """``text`` was added to the string at ``path``.  At most one per string per ``feed``,
    so a preview that appends these does O(n) work in total."""

    path: KeyPath
    text: str


@dataclass(slots=True)
class EndValue:
    """The string, list or dict at ``path`` is complete (scalars are complete at once)."""

    path: KeyPath


Change = SetValue | AppendString | EndValue


def parse_partial_json(
    text: str, *, trailing_strings: bool = False, max_depth: int | None = JITER_MAX_DEPTH
) -> Any:
    """The best Python value for the JSON prefix ``text``, as jiter gives it.

    >>> parse_partial_json('{"path": "calc.py", "con')
    {'path': 'calc.py'}
    >>> parse_partial_json('["d\\\\u00e9f", "ab\\\\u00', trailing_strings=True)
    ['déf', 'ab']

    Raises ``PartialJSONError`` for invalid JSON and when there is no value yet.
    """
    parser = PartialJSONParser(max_depth=max_depth, track_changes=False)
    parser.feed(text)
    return parser.snapshot(trailing_strings)


class PartialJSONParser:
    """Incremental partial-JSON parser: ``feed`` fragments, read changes, take snapshots.

    >>> p = PartialJSONParser()
    >>> p.feed('{"a": "xy')  # doctest: +NORMALIZE_WHITESPACE
    [SetValue(path=(), value={}), SetValue(path=('a',), value=''),
     AppendString(path=('a',), text='xy')]
    >>> p.feed('z", "b": [1')
    [AppendString(path=('a',), text='z'), EndValue(path=('a',)), SetValue(path=('b',), value=[])]
    >>> p.snapshot()
    {'a': 'xyz', 'b': [1]}

    The changes track ``snapshot(trailing_strings=True)``, except that a number is
    reported only when the character after it arrives ("1" may still become "12").
    ``done``: the top-level value is complete (later text is ignored).  ``position``:
    characters fed so far.  After an error, ``error`` holds it and ``feed``/``snapshot``
    raise it again.  ``max_depth=None`` lifts the nesting limit (nothing here recurses).
    A change carries its whole path, so costs O(depth); ``track_changes=False`` skips
    them (``feed`` then returns []).
    """

    # How the characters of a string are read: `read_string` (a function of the text and
    # a position; `fast.FastPartialJSONParser` puts a faster one with the same results here).
    _read_string = staticmethod(read_string)

    def __init__(
        self,
        *,
        max_depth: int | None = JITER_MAX_DEPTH,
        track_changes: bool = True,
        allow_inf_nan: bool = True,
    ):
        self.max_depth, self._track = max_depth, track_changes
        # False: only values JSON has (RFC 8259, section 6), as a tool's input is
        # parsed at its stop (`events.load_json(..., allow_nan=False)`), so the
        # preview never shows a value the final input cannot hold.
        self.allow_inf_nan = allow_inf_nan
        self.position = 0  # characters fed before the current fragment
        self.done = False
        self.error: PartialJSONError | None = None
        self._changes: list[Change] = []
        self._state = self._value  # the method that reads the next characters
        self._root: Any = _NOTHING  # the top-level value, once it has started
        # Open containers, outermost first; per level also the key whose value comes next
        # (dicts) and the container's path (for change records).
        self._stack: list[list | dict] = []
        self._keys: list[str] = []
        self._paths: list[KeyPath] = []
        self._after_comma = False  # "]" or "}" now would be a trailing comma
        # The token that may be split across fragments: "key", "string", "number", "literal".
        self._reading: str | None = None
        self._pieces: list[str] = []  # its text so far (decoded), joined only on demand
        self._fresh = 0  # _pieces[_fresh:] is not yet reported by AppendString
        self._string_path: KeyPath = ()
        self._escape_text, self._escape_at = "", 0  # an unfinished escape and its offset
        self._number_state, self._int_digits = "start", 0
        self._word, self._word_value = "", None  # the literal being read, e.g. "true"

    def feed(self, fragment: str) -> list[Change]:
        """Read the next fragment (any length); return the changes it made, in order."""
        if self.error:
            raise self.error
        changes: list[Change] = []
        self._changes = changes
        pos, end = 0, len(fragment)
        try:
            while pos < end and not self.done:
                pos = self._state(fragment, pos)
        except PartialJSONError as exc:
            self.error = exc
            raise
        finally:
            self.position += end
        if self._reading == "string" and self._track and self._fresh < len(self._pieces):
            self._report_new_text()
        return changes

    def snapshot(self, trailing_strings: bool = False) -> Any:
        """The value so far, equal to ``parse_partial_json(all_text_fed, ...)``.

        A fresh deep copy each time: O(size of the value), no re-parsing (the fast
        parser, `fast.FastPartialJSONParser`, copies only the containers still open).  Raises
        ``PartialJSONError`` (offset ``position``) while the top level has no value.
        """
        if self.error:
            raise self.error
        pending = _NOTHING  # the unfinished string or number, if it counts
        if self._reading == "string" and trailing_strings:
            pending = "".join(self._pieces)
            if len(self._pieces) > 1:  # keep the join for next time; feed has already
                self._pieces[:], self._fresh = [pending], 1  # reported all of it
        elif self._reading == "number" and self._number_state in _NUMBER_ENDS:
            pending = _number_value("".join(self._pieces))
            if pending in _INFINITIES and not self.allow_inf_nan:  # more digits only add to it
                raise PartialJSONError("number out of range", self.position)
        if self._root is _NOTHING:
            if pending is _NOTHING:
                what = "a string" if self._reading == "string" else "a value"
                raise PartialJSONError(f"EOF while parsing {what}", self.position)
            return pending
        if type(self._root) not in (list, dict):
            return self._root
        copy, top = self._copy_value()
        if pending is not _NOTHING:
            if type(top) is list:
                top.append(pending)
            else:
                top[self._keys[-1]] = pending
        return copy

    def _copy_value(self) -> tuple[Any, Any]:
        """A deep copy of the value so far (a list or dict), and the copy of its
        innermost open container (None once the value is complete)."""
        return _copy_tree(self._root, self._stack[-1] if self._stack else None)

    # Helpers that put a finished value in place and report it.

    def _child_path(self) -> KeyPath:
        """The path of the next value in the innermost open container."""
        if not self._stack:
            return ()
        top = self._stack[-1]
        return self._paths[-1] + (len(top) if type(top) is list else self._keys[-1],)

    def _place(self, value: Any) -> None:
        if not self._stack:
            self._root = value
        elif isinstance(top := self._stack[-1], list):
            top.append(value)
        else:
            top[self._keys[-1]] = value

    def _value_done(self) -> None:
        """A value just ended: its container goes on, or the whole document is complete."""
        self._reading, self._state = None, self._after_value
        self.done = not self._stack

    def _scalar(self, value: Any) -> None:
        if self._track:
            self._changes.append(SetValue(self._child_path(), value))
        self._place(value)
        self._value_done()

    def _close(self) -> None:
        self._stack.pop()
        self._keys.pop()
        path = self._paths.pop()
        if self._track:
            self._changes.append(EndValue(path))
        self._value_done()

    def _report_new_text(self) -> None:
        pieces = self._pieces
        if self._fresh < len(pieces):
            self._changes.append(AppendString(self._string_path, "".join(pieces[self._fresh :])))
            self._fresh = len(pieces)

    # States: each reads from text[pos:] and returns the position after what it used.

    def _value(self, text: str, pos: int) -> int:
        """A value starts here: at the top, after ':', and inside a list."""
        pos = _skip_whitespace(text, pos)
        if pos == len(text):
            return pos
        char, offset = text[pos], self.position + pos
        if self._stack and char == "]" and type(self._stack[-1]) is list:
            if self._after_comma:
                raise PartialJSONError("trailing comma", offset)
            self._close()  # "[]"; jiter checks the depth only for an item
            return pos + 1
        if self.max_depth is not None and len(self._stack) > self.max_depth:
            raise PartialJSONError("recursion limit exceeded", offset)
        if char in "[{":
            path = self._child_path() if self._track else ()  # () unused: not tracking
            if self._track:
                self._changes.append(SetValue(path, [] if char == "[" else {}))
            container: list[Any] | dict[str, Any] = [] if char == "[" else {}
            self._place(container)
            self._stack.append(container)
            self._keys.append("")  # a placeholder: a list has none, a dict's comes next
            self._paths.append(path)
            self._after_comma = False
            self._state = self._value if char == "[" else self._key
            return pos + 1
        if char == '"':
            self._start_string("string")
            return pos + 1
        if char in _LITERALS and (self.allow_inf_nan or char not in "NI"):
            self._start_literal(*_LITERALS[char])
        elif char == "-" or "0" <= char <= "9":
            self._reading, self._pieces = "number", []
            self._number_state, self._int_digits = "start", 0
            self._state = self._number
        else:
            raise PartialJSONError("expected value", offset)
        return pos  # the number or literal reads this character itself

    def _key(self, text: str, pos: int) -> int:
        """After '{' or after ',' in a dict: a key (or '}' right after '{')."""
        pos = _skip_whitespace(text, pos)
        if pos == len(text):
            return pos
        if text[pos] == '"':
            self._start_string("key")
        elif text[pos] != "}":
            raise PartialJSONError("key must be a string", self.position + pos)
        elif self._after_comma:
            raise PartialJSONError("trailing comma", self.position + pos)
        else:
            self._close()
        return pos + 1

    def _colon(self, text: str, pos: int) -> int:
        pos = _skip_whitespace(text, pos)
        if pos < len(text):
            if text[pos] != ":":
                raise PartialJSONError("expected `:`", self.position + pos)
            self._state = self._value
            pos += 1
        return pos

    def _after_value(self, text: str, pos: int) -> int:
        """After a value in a container: ',' or the closing bracket.  In jiter's partial
        mode anything else ends the container too, and its parent sees the same character."""
        pos = _skip_whitespace(text, pos)
        if pos == len(text):
            return pos
        char, is_list = text[pos], type(self._stack[-1]) is list
        if char == ",":
            self._after_comma = True
            self._state = self._value if is_list else self._key
            return pos + 1
        self._close()
        return pos + 1 if char == ("]" if is_list else "}") else pos

    def _start_string(self, reading: str) -> None:
        self._reading, self._pieces, self._fresh = reading, [], 0
        if reading == "string" and self._track:
            self._string_path = self._child_path()
            self._changes.append(SetValue(self._string_path, ""))
        self._state = self._string

    def _string(self, text: str, pos: int) -> int:
        """Inside a string: its characters up to the closing quote, an escape that
        ``_escape`` reads, a character no string may hold, or the end of the fragment."""
        decoded, end = self._read_string(text, pos)
        if decoded:
            self._pieces.append(decoded)
        if end == len(text):
            return end
        char = text[end]
        if char == '"':
            return self._end_string(end + 1)
        if char == "\\":
            self._escape_text, self._escape_at = "", self.position + end
            self._state = self._escape
            return end
        bad = "control character (\\u0000-\\u001F) found while parsing a string"
        raise PartialJSONError(
            bad if char < " " else "invalid unicode code point", self.position + end
        )

    def _end_string(self, pos: int) -> int:
        """The closing quote came just before ``pos``: the key or string value is complete."""
        string = "".join(self._pieces)
        if self._reading == "key":
            self._keys[-1], self._reading, self._state = string, None, self._colon
        else:
            if self._track:
                self._report_new_text()
                self._changes.append(EndValue(self._string_path))
            self._place(string)
            self._value_done()
        return pos

    def _escape(self, text: str, pos: int) -> int:
        """An escape, perhaps split across fragments: its raw text so far is kept."""
        known = len(self._escape_text)
        raw = self._escape_text + text[pos : pos + 12 - known]  # longest: "\\ud83d\\ude00"
        try:
            decoded = decode_escape(raw)
        except PartialJSONError as exc:
            raise PartialJSONError(exc.message, self._escape_at + exc.offset) from None
        if decoded is None:  # the fragment ended inside the escape
            self._escape_text = raw
            return len(text)
        self._pieces.append(decoded[0])
        used = decoded[1]
        if used < known:  # a lone high half, and the escape after it began
            self._escape_text = self._escape_text[used:]  # in an earlier fragment too
            self._escape_at += used
            return self._escape(text, pos)
        self._state = self._string
        return pos + used - known

    def _number(self, text: str, pos: int) -> int:
        start, end = pos, len(text)
        while pos < end:
            state = _NUMBER_STEPS[self._number_state].get(_NUMBER_CLASS.get(text[pos], ""))
            if state is None:
                break
            if state == "int":
                self._int_digits += 1
                if self._int_digits > MAX_INT_DIGITS:  # jiter's offset: after that digit
                    raise PartialJSONError("number out of range", self.position + pos + 1)
            self._number_state = state
            pos += 1
        self._pieces.append(text[start:pos])
        if pos == end:  # the number may go on in the next fragment
            return pos
        if self._number_state == "sign" and text[pos] == "I" and self.allow_inf_nan:
            self._start_literal("Infinity", float("-inf"))
        elif self._number_state not in _NUMBER_ENDS or (
            self._number_state == "zero" and "0" <= text[pos] <= "9"
        ):
            raise PartialJSONError("invalid number", self.position + pos)
        else:
            value = _number_value("".join(self._pieces))
            if value in _INFINITIES and not self.allow_inf_nan:
                raise PartialJSONError("number out of range", self.position + pos)
            self._scalar(value)
        return pos

    def _start_literal(self, word: str, value: Any) -> None:
        self._reading, self._word, self._word_value = "literal", word, value
        self._state = self._literal

    def _literal(self, text: str, pos: int) -> int:
        """Inside true, false, null, NaN or Infinity: self._word is what is still expected."""
        got = text[pos : pos + len(self._word)]
        for i, char in enumerate(got):
            if char != self._word[i]:
                raise PartialJSONError("expected ident", self.position + pos + i)
        self._word = self._word[len(got) :]
        if not self._word:
            self._scalar(self._word_value)
        return pos + len(got)


# What float() makes of a number too large for a float (`1e400`): jiter's value
# for it; with `allow_inf_nan=False`, "number out of range" instead.
_INFINITIES = (float("inf"), float("-inf"))


def _number_value(raw: str) -> int | float:
    return float(raw) if any(c in raw for c in ".eE") else int(raw)


def _copy_tree(root: list | dict, wanted: Any) -> tuple[Any, Any]:
    """Deep-copy nested lists and dicts with a loop, not recursion (any depth works);
    also return the copy of the container ``wanted`` (None if absent)."""
    copy = root.copy()
    found = copy if root is wanted else None
    todo = [copy]
    while todo:
        node = todo.pop()
        for key, child in node.items() if type(node) is dict else enumerate(node):
            if type(child) is list or type(child) is dict:
                node[key] = child_copy = child.copy()
                todo.append(child_copy)
                if child is wanted:
                    found = child_copy
    return copy, found
