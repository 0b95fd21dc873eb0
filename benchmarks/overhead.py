"""Benchmark 7: `accumulate` costs no more than the least work the stream needs.

Two lower bounds read the same bytes in the same 4 KiB chunks and do only
what any client must: split them into lines, read each `data:` line's JSON,
and join the text, thinking and tool input pieces. They check nothing, number
nothing, keep no message. `lower_bound` reads the JSON with `json.loads` (the
plain bound), `jiter_bound` with `jiter.from_json`, the fastest JSON reader
Python has (the SDK's own): the least any Python client can do. Every
contender does all of that and builds the final message, checked at every
step, so the question is how close each stays to the bounds, measured in
turns in the same run:

- `accumulate(chunks)`: its time over the jiter bound's, on every stream and
  size (goal: at most 1.3x); the log-log slope of its time against the
  stream's bytes (goal: at most 1.05, linear); its peak memory
  (`tracemalloc`, one more run, not timed) over the stream's size (goal: at
  most 1.5x).
- `aaccumulate` over an async iterator of the same chunks, in an event loop
  made once (goal: at most 1.3x the jiter bound).
- the append-only preview, as a display that draws once per network chunk
  keeps it (`preview.ours_unread_changes`: each tool block's
  `unread_input_changes` read after every chunk, the chunk's fragments parsed
  in one call; goal: at most 1.2x `accumulate`), and read after every event
  (`preview.ours_changes`: `input_changes`, a parser call per fragment; reported,
  no goal: a Python call per 16-character fragment costs more than the 20%).
- the snapshot preview: `iter_events` into a `MessageAccumulator`, and
  `input_snapshot(index)` read after every `input_json_delta`
  (`preview.ours_snapshots`; goal: at most 1.3x the plain bound; with
  `trailing_strings=True`, the unfinished string shown too, at most 1.6x).
  Its cost depends on the input's shape, so `run_shapes` measures it on each
  of `streams.SHAPES` (code in 16- and 64-character fragments, ASCII prose,
  CJK text, nested small values).

Three streams of each size, from `streams.py`: a text stream of small
`text_delta` events (`text_stream`, `size` bytes), a tool stream whose input
is `size` bytes in 16-character `input_json_delta` fragments (`tool_stream`,
about 9 times `size` in all), and a mixed one (`mixed_stream`: thinking, text
and a tool call, `size` bytes).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator, Callable, Iterable
from contextlib import aclosing
from functools import partial
from typing import Any

import jiter

from streaming_lib import aaccumulate, accumulate
from streaming_lib.tools.fixtures import chunked

from .frontends import peak_memory
from .preview import CHUNK, ours_changes, ours_snapshots, ours_unread_changes
from .report import size_text
from .streams import SHAPES, mixed_stream, shaped_tool_stream, text_stream, tool_stream
from .timing import interleaved_runs, paired_ratio, slope

STREAMS: dict[str, Callable[[int], bytes]] = {
    "text": text_stream,
    "tool": tool_stream,
    "mixed": mixed_stream,
}


def lower_bound(chunks: Iterable[bytes]) -> str:
    """The least a client does with a stream: lines split, each `data:` line's JSON
    read by `json.loads`, the text, thinking and tool input pieces joined (str).

        >>> lower_bound([
        ...     b'data: {"delta": {"text": "Hi"}}\\n\\ndata: {"delta": ',
        ...     b'{"partial_json": "{}"}}\\n\\n',
        ... ])
        'Hi{}'
    """
    return _pieces_joined(chunks, json.loads)


def jiter_bound(chunks: Iterable[bytes]) -> str:
    """`lower_bound` with `jiter.from_json` for `json.loads`: the least any Python
    client does with a stream (str: the pieces joined).

        >>> jiter_bound([b'data: {"delta": {"thinking": "Hm"}}\\n\\n'])
        'Hm'
    """
    return _pieces_joined(chunks, jiter.from_json)


def _pieces_joined(chunks: Iterable[bytes], loads: Callable[[bytes], Any]) -> str:
    """The loop of both bounds: for each 4 KiB chunk, the unfinished line of the chunk
    before prepended, split at every LF, the last piece kept for the next chunk; each
    `data: ` line's JSON read by `loads`; its delta's text, thinking or partial_json kept."""
    tail, pieces = b"", []
    for chunk in chunks:
        *lines, tail = (tail + chunk).split(b"\n")
        for line in lines:
            if line.startswith(b"data: "):
                delta = loads(line[6:]).get("delta")
                if delta and (
                    piece := delta.get("text") or delta.get("thinking") or delta.get("partial_json")
                ):
                    pieces.append(piece)
    return "".join(pieces)


async def _trickle(chunks: list[bytes]) -> AsyncGenerator[bytes, None]:
    """The chunks as an async byte stream, as an async HTTP client hands them over."""
    for chunk in chunks:
        yield chunk


def _run_async(loop: asyncio.AbstractEventLoop, chunks: list[bytes]) -> dict[str, Any]:
    """`aaccumulate` over the chunks, in an event loop made once for every run; the
    byte stream is closed after, as a caller's `async with` closes the response."""

    async def main() -> dict[str, Any]:
        async with aclosing(_trickle(chunks)) as stream:
            return await aaccumulate(stream)

    return loop.run_until_complete(main())


def turns_for(stream_bytes: int, repeats: int) -> int:
    """Turns for a stream of `stream_bytes`: `repeats` for 4 MB or more, and up to 8
    times as many for smaller ones (their runs are short, and the shorter a run,
    the more the load moves it)."""
    return max(repeats, min(8 * repeats, repeats * 4_000_000 // max(stream_bytes, 1)))


def run(
    sizes: list[int], *, repeats: int = 5, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """Time the lower bound, `accumulate`, `aaccumulate` and the preview loop on each
    stream kind and size (bytes), in CPU time (`time.process_time`: nothing here
    waits); measure the peak memory of `accumulate`."""
    rows: list[dict[str, Any]] = []
    loop = asyncio.new_event_loop()
    try:
        for kind, make in STREAMS.items():
            for size in sizes:
                raw = make(size)
                chunks = chunked(raw, CHUNK)
                turns = turns_for(len(raw), repeats)
                log(
                    f"  overhead: {kind} stream, {size_text(size)} "
                    f"({len(raw):,} bytes), {turns} turns"
                )
                timed = interleaved_runs(
                    {
                        "lower_bound": (partial(lower_bound, chunks), turns),
                        "jiter_bound": (partial(jiter_bound, chunks), turns),
                        "accumulate": (partial(accumulate, chunks), turns),
                        "aaccumulate": (partial(_run_async, loop, chunks), turns),
                        "changes": (partial(ours_changes, chunks), turns),
                        "unread_changes": (partial(ours_unread_changes, chunks), turns),
                        "snapshots": (
                            partial(ours_snapshots, chunks, trailing_strings=False),
                            turns,
                        ),
                    },
                    clock=time.process_time,
                )
                message = timed["accumulate"][1]
                assert timed["aaccumulate"][1] == message, "aaccumulate gave another message"
                assert timed["changes"][1][0] == message, "the preview loop gave another message"
                unread = timed["unread_changes"][1]
                assert unread[0] == message, "the preview loop gave another message"
                assert "".join(unread[1]) == "".join(timed["changes"][1][1]), "another preview"
                assert timed["snapshots"][1][0] == message, "the preview loop gave another message"
                joined = "".join(
                    block.get("text") or block.get("thinking") or "" for block in message["content"]
                )
                assert joined in timed["lower_bound"][1], "the lower bound read other text"
                assert timed["jiter_bound"][1] == timed["lower_bound"][1], "the bounds differ"
                times = {name: runs for name, (runs, _) in timed.items()}
                rows.append(
                    {
                        "stream": kind,
                        "size": size,
                        "stream_bytes": len(raw),
                        "chunk_bytes": CHUNK,
                        "turns": turns,
                        **{f"{name}_s": min(runs) for name, runs in times.items()},
                        "accumulate_ratio": paired_ratio(times["accumulate"], times["lower_bound"]),
                        "accumulate_jiter_ratio": paired_ratio(
                            times["accumulate"], times["jiter_bound"]
                        ),
                        "aaccumulate_jiter_ratio": paired_ratio(
                            times["aaccumulate"], times["jiter_bound"]
                        ),
                        "aaccumulate_ratio": paired_ratio(
                            times["aaccumulate"], times["accumulate"]
                        ),
                        "changes_ratio": paired_ratio(
                            times["unread_changes"], times["accumulate"]
                        ),
                        "changes_every_event_ratio": paired_ratio(
                            times["changes"], times["accumulate"]
                        ),
                        "snapshots_ratio": paired_ratio(times["snapshots"], times["lower_bound"]),
                        "accumulate_peak_bytes": peak_memory(partial(accumulate, chunks)),
                    }
                )
    finally:
        loop.close()
    slopes, bound_slopes = {}, {}
    for kind in STREAMS:
        mine = [row for row in rows if row["stream"] == kind]
        sizes = [row["stream_bytes"] for row in mine]
        slopes[kind] = (
            slope(sizes, [row["accumulate_s"] for row in mine]) if len(mine) > 1 else None
        )
        # The bound's own slope, beside it: where both rise above 1, the load grew
        # with the size of the runs (a long run escapes it less often than a short one).
        bound_slopes[kind] = (
            slope(sizes, [row["lower_bound_s"] for row in mine]) if len(mine) > 1 else None
        )
    return {"rows": rows, "slopes": slopes, "lower_bound_slopes": bound_slopes}


def run_shapes(
    size: int, *, repeats: int = 5, log: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    """The snapshot preview on a tool input of every shape of `streams.SHAPES`, about
    `size` bytes of JSON: `input_snapshot(index)` after every fragment, without and
    with trailing strings, each over the plain bound and the jiter bound (rows)."""
    rows: list[dict[str, Any]] = []
    for shape in SHAPES:
        raw = shaped_tool_stream(size, shape)
        chunks = chunked(raw, CHUNK)
        turns = turns_for(len(raw), repeats)
        log(
            f"  overhead: snapshots, {shape}, {size_text(size)} ({len(raw):,} bytes), {turns} turns"
        )
        timed = interleaved_runs(
            {
                "lower_bound": (partial(lower_bound, chunks), turns),
                "jiter_bound": (partial(jiter_bound, chunks), turns),
                "snapshots": (partial(ours_snapshots, chunks, trailing_strings=False), turns),
                "trailing": (partial(ours_snapshots, chunks, trailing_strings=True), turns),
            },
            clock=time.process_time,
        )
        final = json.loads(timed["jiter_bound"][1])
        for name in ("snapshots", "trailing"):
            message, last = timed[name][1]
            assert message["content"][0]["input"] == final == last, f"{shape}: {name} differs"
        times = {name: runs for name, (runs, _) in timed.items()}
        rows.append(
            {
                "shape": shape,
                "size": size,
                "stream_bytes": len(raw),
                "turns": turns,
                **{f"{name}_s": min(runs) for name, runs in times.items()},
                **{
                    f"{name}_{bound}_ratio": paired_ratio(times[name], times[f"{bound}_bound"])
                    for name in ("snapshots", "trailing")
                    for bound in ("lower", "jiter")
                },
            }
        )
    return rows
