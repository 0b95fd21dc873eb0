"""Where the course's hand-made streams live, and how to read them.

Each fixture is `NAME.sse`: the raw bytes of one Messages API stream. Beside it,
`NAME.sdk.json` holds the real SDK's verdict on those bytes (see `sdk.py`).
Shared by tests, notebooks, the stepper, the replay server and the trace command.
"""

from __future__ import annotations

import os
from pathlib import Path


def _find_fixtures() -> Path:
    # Installed from a wheel, the fixtures are packaged inside the package;
    # in a clone (or an editable install) they are the repo's `fixtures/`.
    package = (
        Path(__file__).resolve().parents[1]
    )  # streaming_lib/, this module being in streaming_lib/tools/
    packaged = package / "fixture_data"
    return packaged if packaged.is_dir() else package.parent / "fixtures"


FIXTURES_DIR = _find_fixtures()
MAIN_FIXTURE = FIXTURES_DIR / "fixture.sse"


def fixture_names(directory: Path = FIXTURES_DIR) -> list[str]:
    """Names (str, without `.sse`) of every fixture in `directory`, sorted."""
    return sorted(path.stem for path in directory.glob("*.sse"))


def read_fixture(name: str = "fixture", directory: Path = FIXTURES_DIR) -> bytes:
    """The raw bytes of fixture `name` (for example "fixture" or "text_only")."""
    return (directory / f"{name}.sse").read_bytes()


def stream_path(name_or_path: str | Path, directory: Path = FIXTURES_DIR) -> Path:
    """The .sse file to read for `name_or_path`: the file itself if there is one at
    that path, else the fixture of that name (for example "truncated").

    Raises ValueError, listing the fixtures, when it is neither (saying so for a folder).
    Something at that path that is not a file (a FIFO, a device) is returned as it is:
    `files.read_stream_file` refuses it, saying what it is.

    >>> stream_path("truncated").name
    'truncated.sse'
    """
    path = Path(name_or_path)
    if path.is_file():
        return path
    if str(name_or_path) in fixture_names(directory):
        return directory / f"{name_or_path}.sse"
    if path.is_dir():
        raise ValueError(f"{name_or_path} is a folder, not an .sse file")
    if os.path.lexists(path):  # a FIFO, a device, a dangling link: the reader says which
        return path
    raise ValueError(
        f"no such file or fixture: {name_or_path} (the fixtures are: "
        f"{', '.join(fixture_names(directory))})"
    )


def chunked(raw: bytes, size: int) -> list[bytes]:
    """`raw` cut into chunks of `size` bytes (the last may be shorter).

    >>> chunked(b"abcde", 2)
    [b'ab', b'cd', b'e']
    """
    return [raw[i : i + size] for i in range(0, len(raw), size)]
