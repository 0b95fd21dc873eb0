"""The files a command is given, checked before any work: a stream to read, a file to write.

    read_stream_file(path)    the bytes of an .sse file: a regular file of at most
                              MAX_STREAM_BYTES, read without ever blocking
    checked_output(path)      `path` if a command may write it: its folder exists, and it
                              is a regular file or nothing yet

Each raises `FileRefused` (a ValueError) with one sentence naming the file and
what is wrong with it, in the language in use. A FIFO, a device (a link to
`/dev/zero` included), a socket or a folder is refused before a byte is read
or written: reading a FIFO would wait for a writer forever, and `/dev/zero`
never ends. A file that says it is regular but cannot be read (`/proc/self/mem`)
is refused when the read fails.

    >>> try:
    ...     read_stream_file("/dev/null")
    ... except FileRefused as refused:
    ...     print(refused)
    /dev/null is not a regular file (a device, a FIFO or a socket)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..language import _

MAX_STREAM_BYTES = 32 * 1024 * 1024  # a recorded stream is kilobytes; a replay holds it whole


class FileRefused(ValueError):
    """A file a command cannot use, and why (one sentence)."""


def read_stream_file(path: str | Path, limit: int = MAX_STREAM_BYTES) -> bytes:
    """The bytes of the regular file `path` (at most `limit` of them); FileRefused otherwise.

    The file is opened without blocking (a FIFO would wait for a writer), then
    checked on the open file (so it cannot be swapped in between), then read
    to at most `limit` + 1 bytes (a file growing, or one whose size is not told).
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise FileRefused(why_not(path, error)) from None
    with os.fdopen(descriptor, "rb") as file:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise FileRefused(_("{path} is a folder, not a file", path=str(path)))
        if not stat.S_ISREG(mode):
            raise FileRefused(not_regular(path))
        if os.fstat(descriptor).st_size > limit:
            raise FileRefused(too_large(path, limit))
        try:
            raw = file.read(limit + 1)
        except OSError as error:
            raise FileRefused(why_not(path, error)) from None
    if len(raw) > limit:
        raise FileRefused(too_large(path, limit))
    return raw


def checked_output(path: str | Path) -> Path:
    """`path` (a Path) if a command may write it: its folder exists, and `path` is a regular
    file (not a link) or does not exist yet; FileRefused otherwise."""
    path = Path(path)
    folder = path.parent
    if not folder.is_dir():
        raise FileRefused(_("no such folder: {folder}", folder=str(folder)))
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as error:
        raise FileRefused(why_not(path, error)) from None
    if stat.S_ISDIR(mode):
        raise FileRefused(_("{path} is a folder: give a file name", path=str(path)))
    if stat.S_ISLNK(mode):
        raise FileRefused(
            _("{path} is a symbolic link: only a regular file is replaced", path=str(path))
        )
    if not stat.S_ISREG(mode):
        raise FileRefused(not_regular(path))
    return path


def not_regular(path: str | Path) -> str:
    return _("{path} is not a regular file (a device, a FIFO or a socket)", path=str(path))


def too_large(path: str | Path, limit: int) -> str:
    return _("{path} is over {limit} bytes: too large for a stream", path=str(path), limit=limit)


def why_not(path: str | Path, error: OSError) -> str:
    """One sentence for an OSError on `path`: its cause as the system words it."""
    if isinstance(error, FileNotFoundError):
        return _("no such file: {path}", path=str(path))
    return _("cannot read {path}: {why}", path=str(path), why=error.strerror or str(error))
