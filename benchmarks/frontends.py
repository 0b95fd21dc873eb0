"""Benchmarks 5 and 6: the front ends stay linear, `trace` and the stepper.

Two streams of each size (64 KiB, 256 KiB and 1 MiB in a full run), from
`streams.py`: `text_stream(size)`, one text block in thousands of small
`text_delta` events, and `tool_stream_of(size)`, a `write_file` call whose
input JSON arrives in 16-character fragments (the body is `size` bytes, the
input about a ninth of it). Each contender runs on the same bytes:

- **trace** (5): `trace.trace(raw, out=...)`, the `trace` command's loop,
  with the whole stream as one chunk (as the command reads a file); its rows
  are counted, not kept.
- **stepper** (6): what opening the stepper on a capture does, at 1-byte
  chunks (its most steps): `compute_frames(raw, 1)`, then the last frame, a
  jump back to the middle and 100 steps forward from there, each drawn by
  `render_panels` as the widget draws it.

Time is the best of n runs (`timing.interleaved_best`); peak memory is
measured in one more run under `tracemalloc` (which slows it down, so it is
not timed). A log-log slope of 1 over the sizes is linear; before the front
ends were rewritten, both were quadratic in time, and the stepper in memory.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from functools import partial
from typing import Any

from streaming_lib.tools.stepper import compute_frames
from streaming_lib.tools.stepper.html import ByteTokens, render_panels
from streaming_lib.tools.trace import trace

from .report import size_text
from .streams import text_stream, tool_stream_of
from .timing import interleaved_best, slope

STREAMS: dict[str, Callable[[int], bytes]] = {"text": text_stream, "tool": tool_stream_of}
WALK = 100  # steps played forward from the middle


def run_trace(raw: bytes) -> int:
    """Benchmark 5: the trace of `raw`; returns the bytes it printed."""
    printed = [0]

    def out(row: str) -> None:
        printed[0] += len(row.encode()) + 1

    trace(raw, out=out)
    return printed[0]


def run_stepper(raw: bytes) -> int:
    """Benchmark 6: open the stepper at 1-byte chunks and draw the frames a reader reaches.

    Returns the HTML bytes drawn.
    """
    frames, tokens = compute_frames(raw, 1), ByteTokens(raw)
    middle = len(frames) // 2
    drawn = 0
    for step in [len(frames) - 1, *range(middle, min(middle + WALK, len(frames)))]:
        drawn += len(render_panels(tokens, frames[step], len(frames), len(raw)))
    return drawn


CONTENDERS: dict[str, Callable[[bytes], int]] = {"trace": run_trace, "stepper": run_stepper}


def peak_memory(function: Callable[[], Any]) -> int:
    """The most memory `function()` held at once, in bytes (tracemalloc)."""
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def run(
    sizes: list[int], *, repeats: int = 3, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """Time and peak memory of each contender on each stream kind and size (bytes).

    Returns the rows and slopes.
    """
    rows: list[dict[str, Any]] = []
    for kind, make in STREAMS.items():
        for size in sizes:
            raw = make(size)
            events = raw.count(b"\n\n")  # every event of these streams ends with one blank line
            log(
                f"  front ends: {kind} stream, {size_text(size)} "
                f"({len(raw):,} bytes, {events:,} events)"
            )
            timed = interleaved_best(
                {name: (partial(function, raw), repeats) for name, function in CONTENDERS.items()}
            )
            row: dict[str, Any] = {
                "stream": kind,
                "size": size,
                "stream_bytes": len(raw),
                "events": events,
            }
            for name, function in CONTENDERS.items():
                row[f"{name}_s"] = timed[name][0]
                row[f"{name}_output_bytes"] = timed[name][1]
                row[f"{name}_peak_bytes"] = peak_memory(partial(function, raw))
            rows.append(row)
    return {"rows": rows, "walk_steps": WALK, "slopes": _slopes(rows)}


def _slopes(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """Log-log slope against the stream's bytes.

    One per contender, stream kind and measure (time, peak memory).
    """
    slopes: dict[str, float | None] = {}
    for kind in STREAMS:
        mine = [row for row in rows if row["stream"] == kind]
        for name in CONTENDERS:
            for measure in ("s", "peak_bytes"):
                points = [(row["stream_bytes"], row[f"{name}_{measure}"]) for row in mine]
                key = f"{name}_{kind}_{'time' if measure == 's' else 'memory'}"
                slopes[key] = (
                    slope([x for x, _ in points], [y for _, y in points])
                    if len(points) > 1
                    else None
                )
    return slopes
