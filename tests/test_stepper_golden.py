"""The stepper's HTML stays what it was when it moved into templates.

`tests/data/stepper/` holds the stepper's output as it was rendered before its
markup moved from Python strings into Jinja2 templates: a digest per chunk size
of every frame's panels (the widget's HTML) and of the static page, and two whole
pages to read a difference in. The comparison ignores whitespace between tags
only. To write the files again, after a change meant to alter the output:

    .venv/bin/python tests/test_stepper_golden.py
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from benchmarks.streams import text_stream, tool_stream
from streaming_lib.tools.fixtures import FIXTURES_DIR, MAIN_FIXTURE
from streaming_lib.tools.stepper import CHUNK_CHOICES, EVENT_BY_EVENT, compute_frames
from streaming_lib.tools.stepper.frames import ChunkSize
from streaming_lib.tools.stepper.html import ByteTokens, render_panels, static_fragment, static_page

GOLDEN = Path(__file__).parent / "data" / "stepper"
DIGESTS = GOLDEN / "digests.json"
RAW = MAIN_FIXTURE.read_bytes()

# Every chunk size from 1 byte to MAX_SIZE, then the selector's larger ones.
MAX_SIZE = 16
SIZES: tuple[ChunkSize, ...] = (*range(1, MAX_SIZE + 1), 64, EVENT_BY_EVENT)
ZH_SIZES: tuple[ChunkSize, ...] = (1, 7, EVENT_BY_EVENT)
# Fixtures that reach the panels the course fixture does not (an error, a broken tool
# input, a cut stream, CRLF, unknown types, characters split across chunks).
OTHER_FIXTURES = (
    "error_mid_stream",
    "bad_tool_json",
    "truncated",
    "crlf",
    "unknown_types",
    "cjk_emoji",
    "sse_fields",
    "two_tools",
)
OTHER_SIZES: tuple[ChunkSize, ...] = (1, 7, EVENT_BY_EVENT)


def long_stream(make: Callable[[int], bytes], size: int) -> bytes:
    """A stream long enough for every panel's bound: more than BYTES_SHOWN bytes and
    EVENTS_SHOWN events, a text, a line and an event's data longer than TEXT_SHOWN, more
    than LINES_SHOWN data lines in one event (a ping after the first event)."""
    raw = make(size)
    first = raw.index(b"\n\n") + 2
    ping = (
        b"event: ping\ndata: {\n"
        + b"data: \n" * 60
        + b'data: "type": "ping", "pad": "'
        + b"y" * 1_200
        + b'"}\n\n'
    )
    return raw[:first] + b": " + b"x" * 1_500 + b"\n" + ping + raw[first:]


# Long streams, at a few chunk sizes (each frame of them costs more).
LONG = {"long_text": long_stream(text_stream, 14_000), "long_tool": long_stream(tool_stream, 1_500)}
LONG_SIZES: tuple[ChunkSize, ...] = (64, EVENT_BY_EVENT)


def normalised(html: str) -> str:
    """`html` without the whitespace between two tags (the only difference allowed)."""
    return re.sub(r">\s+<", "><", html)


def digest(parts: Iterator[str]) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(normalised(part).encode("utf-8"))
        hasher.update(b"\0")
    return hasher.hexdigest()


def panels_of(raw: bytes, size: ChunkSize, lang: str) -> Iterator[str]:
    frames = compute_frames(raw, size)
    tokens, items = ByteTokens(raw), {}  # event items kept from step to step, as the widget does
    for frame in frames:
        yield render_panels(tokens, frame, len(frames), len(raw), lang=lang, items=items)


def page_of(raw: bytes, sizes: tuple[ChunkSize, ...], lang: str, **options: object) -> str:
    plans = {size: compute_frames(raw, size) for size in sizes}
    return static_page(raw, plans, lang=lang, **options)  # type: ignore[arg-type]


def cases() -> dict[str, tuple[str, ...]]:
    """Each case's name -> what it renders (a key for `render`)."""
    found: dict[str, tuple[str, ...]] = {}
    for lang, sizes in (("en", SIZES), ("zh", ZH_SIZES)):
        for size in sizes:
            found[f"fixture/{lang}/{size}/panels"] = ("fixture", str(size), lang, "panels")
            found[f"fixture/{lang}/{size}/page"] = ("fixture", str(size), lang, "page")
    for name in OTHER_FIXTURES:
        for size in OTHER_SIZES:
            found[f"{name}/en/{size}/panels"] = (name, str(size), "en", "panels")
            found[f"{name}/en/{size}/page"] = (name, str(size), "en", "page")
    for name in LONG:
        for size in LONG_SIZES:
            found[f"{name}/en/{size}/panels"] = (name, str(size), "en", "panels")
            found[f"{name}/en/{size}/page"] = (name, str(size), "en", "page")
    found["long_text/zh/64/panels"] = ("long_text", "64", "zh", "panels")
    found["fixture/en/choices/page"] = ("fixture", "choices", "en", "page")
    found["fixture/zh/choices/page"] = ("fixture", "choices", "zh", "page")
    found["fixture/en/7/page-some-panels"] = ("fixture", "7", "en", "some")
    found["fixture/en/7/fragment"] = ("fixture", "7", "en", "fragment")
    found["fixture/zh/7/fragment"] = ("fixture", "7", "zh", "fragment")
    return found


def render(name: str, size_text: str, lang: str, what: str) -> Iterator[str]:
    if name in LONG:
        raw = LONG[name]
    else:
        raw = RAW if name == "fixture" else (FIXTURES_DIR / f"{name}.sse").read_bytes()
    if size_text == "choices":
        yield page_of(raw, CHUNK_CHOICES, lang)
        return
    size: ChunkSize = EVENT_BY_EVENT if size_text == EVENT_BY_EVENT else int(size_text)
    if what == "panels":
        yield from panels_of(raw, size, lang)
    elif what == "page":
        yield page_of(raw, (size,), lang)
    elif what == "some":  # a subset of panels, a title of the caller's, an odd interval
        plans = {size: compute_frames(raw, size)}
        yield static_page(raw, plans, title='<b>"A & B"</b>', panels=("tools", "bytes"), lang=lang)
        yield static_fragment(raw, plans, title="t", interval=250, panels=("stop",), lang=lang)
    else:
        yield static_fragment(raw, {size: compute_frames(raw, size)}, title="Stepper", lang=lang)


def write_golden() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    table = {case: digest(render(*how)) for case, how in cases().items()}
    DIGESTS.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for lang in ("en", "zh"):
        page = page_of(RAW, (7,), lang)
        (GOLDEN / f"fixture-7-{lang}.html").write_text(page, encoding="utf-8")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_static_page_at_7_byte_chunks_is_the_saved_page(lang: str) -> None:
    saved = (GOLDEN / f"fixture-7-{lang}.html").read_text(encoding="utf-8")
    assert normalised(page_of(RAW, (7,), lang)) == normalised(saved)


@pytest.mark.parametrize("case", sorted(cases()))
def test_every_frame_and_page_renders_as_it_was_saved(case: str) -> None:
    saved = json.loads(DIGESTS.read_text(encoding="utf-8"))
    assert digest(render(*cases()[case])) == saved[case], case


def test_the_saved_digests_cover_every_case_and_no_other() -> None:
    saved = json.loads(DIGESTS.read_text(encoding="utf-8"))
    assert sorted(saved) == sorted(cases())


if __name__ == "__main__":
    write_golden()
