"""How much work a line decoder's `feed` does, counted in bytes, never timed.

A `feed` is linear when each byte of the stream is copied or read a fixed number of
times, whatever the chunks (lesson 02, section 6; counted by hand in the bonus notebook
"Linear time"). This module counts it on the decoder's own `pending` buffer:

- `pending` is a `bytearray` that adds to `work` the bytes each of its reads covers
  (`decode`, `find`, `split`, a slice, `+`, `bytes()`, ...), appending to it costs nothing
  (a `bytearray` grows in place);
- a new buffer put in `pending` (`self.pending = ...`) adds its length: it was copied.

So a `feed` that decodes, searches or rebuilds all its pending bytes at every chunk counts
the square of a line's length, and one that looks only at the new chunk counts each byte
about twice. `work_ratio` compares two sizes of the same input: about 4 for 4 times the
bytes when linear, about 16 when quadratic. (What the counter cannot see: a regular
expression run over `pending` without building anything from it.)

    >>> from streaming_lib.tools.my_client import REFERENCE, load
    >>> feed = load("lines", REFERENCE).feed
    >>> round(work_ratio(feed, long_line), 1)
    4.0
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ..fixtures import chunked
from . import given

Feed = Callable[[Any, bytes], list[str]]
_LINE_END = re.compile(rb"(\r\n|\r|\n)")  # a group: the split keeps the endings


class _Counted(bytearray):
    """A `pending` buffer that adds the bytes each read covers to `owner.work`."""

    owner: WorkCounter

    def _read(self, size: int | None = None) -> None:
        self.owner.work += len(self) if size is None else size

    def decode(self, *args: Any, **kwargs: Any) -> str:
        self._read()
        return super().decode(*args, **kwargs)

    def __add__(self, other: Any) -> bytearray:
        result = bytearray(self) + other
        self._read(len(result))
        return result

    def __bytes__(self) -> bytes:
        self._read()
        return bytes(bytearray(self))

    def __getitem__(self, key: Any) -> Any:
        got = super().__getitem__(key)
        if isinstance(key, slice):
            self._read(len(got))
        return got

    def __contains__(self, item: Any) -> bool:
        self._read()
        return super().__contains__(item)


def _reading(name: str) -> Callable[..., Any]:
    method = getattr(bytearray, name)

    def counted(self: _Counted, *args: Any, **kwargs: Any) -> Any:
        self._read()
        return method(self, *args, **kwargs)

    counted.__name__ = name
    return counted


for _name in ("find", "rfind", "index", "rindex", "count", "split", "rsplit", "splitlines",
              "partition", "rpartition", "replace", "strip", "lstrip", "rstrip", "hex", "copy"):
    setattr(_Counted, _name, _reading(_name))


class WorkCounter(given.LineDecoder):
    """Lesson 02's decoder (give it a `feed`), counting in `work` the bytes its feed reads
    out of `pending` or copies into a new one."""

    work: int = 0

    @property
    def pending(self) -> bytearray:
        return self._pending

    @pending.setter
    def pending(self, value: Any) -> None:
        if value is getattr(self, "_pending", None):
            return  # grown in place (+=): appending is not work
        if not isinstance(value, bytes | bytearray | memoryview):
            self._pending = value  # not bytes (a str?): kept as it is, for `flush` to judge
            return
        self.work += len(value)  # a new buffer: its bytes were copied into it
        counted = _Counted(value)
        counted.owner = self
        self._pending = counted


def work_of(feed: Feed, chunks: Iterable[bytes]) -> int:
    """The bytes `feed` reads from or copies into `pending` over `chunks`, flush included."""
    return lines_and_work(feed, chunks)[1]


def long_line(size: int) -> list[bytes]:
    """One `data:` line of `size` bytes, and its blank line, in 16-byte chunks."""
    return chunked(b"data: " + b"x" * size + b"\n\n", 16)


def many_lines(size: int) -> list[bytes]:
    """About `size` bytes of short events, all in one chunk (a proxy that buffers)."""
    return [b"data: {}\n\n" * (size // 10)]


def work_ratio(feed: Feed, case: Callable[[int], list[bytes]], size: int = 4000) -> float:
    """The work `feed` does on `case(4 * size)` over its work on `case(size)`: about 4 for
    a linear feed, about 16 for a quadratic one."""
    return work_of(feed, case(4 * size)) / max(1, work_of(feed, case(size)))


def stretched(raw: bytes) -> bytes:
    """`raw` with every line twice as long, twice over: 4 times the bytes, twice as many
    lines, each twice as long, the same line endings (for `my-client`'s work check)."""
    pieces = _LINE_END.split(raw)  # text, ending, text, ending, ..., text
    longer = b"".join(p if i % 2 else p + p for i, p in enumerate(pieces))
    return longer + longer


LINEAR = 6.0  # a ratio above this, for 4 times the bytes, is more than linear


def lines_and_work(feed: Feed, chunks: Iterable[bytes]) -> tuple[list[str], int]:
    """The lines `feed` makes of `chunks` (flush included), and the work it did (`work_of`)."""
    decoder = type("LineDecoder", (WorkCounter,), {"feed": feed})()
    decoder.work = 0
    lines = [line for chunk in chunks for line in decoder.feed(chunk)]
    lines += decoder.flush()
    return lines, decoder.work
