"""Benchmark 7: `accumulate` costs no more than the least work the stream needs.

The lower bound reads the same bytes in the same 4 KiB chunks and does only
what any client must: split them into lines, `json.loads` each `data:` line,
and join the text (and tool input) pieces. It checks nothing, numbers
nothing, keeps no message. `accumulate(chunks)` does all of that and builds
the final message, checked at every step, so the question is how close it
stays to the bound:

- its time over the bound's, at every size (goal: at most 1.2x);
- the log-log slope of its time against the stream's bytes (goal: at most
  1.05: linear);
- its peak memory (`tracemalloc`, one more run, not timed) over the stream's
  size (goal: at most 2.5x; it keeps no decoded events unless asked).

Two streams of each size, from `streams.py`: a text stream of small
`text_delta` events and a tool stream of 16-character `input_json_delta`
fragments (`tool_stream_of`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from streaming_lib import accumulate
from streaming_lib.tools.fixtures import chunked

from .frontends import peak_memory
from .preview import CHUNK
from .report import size_text
from .streams import text_stream, tool_stream_of
from .timing import interleaved_best, slope

STREAMS: dict[str, Callable[[int], bytes]] = {"text": text_stream, "tool": tool_stream_of}


def lower_bound(chunks: Iterable[bytes]) -> str:
    """The least a client does with a stream: lines split, each `data:` line's JSON
    read, the text and tool input pieces joined (str).

        >>> lower_bound([
        ...     b'data: {"delta": {"text": "Hi"}}\\n\\ndata: {"delta": ',
        ...     b'{"partial_json": "{}"}}\\n\\n',
        ... ])
        'Hi{}'
    """
    tail, pieces = b"", []
    for chunk in chunks:
        *lines, tail = (tail + chunk).split(b"\n")
        for line in lines:
            if line.startswith(b"data: "):
                delta = json.loads(line[6:]).get("delta")
                if delta and (piece := delta.get("text") or delta.get("partial_json")):
                    pieces.append(piece)
    return "".join(pieces)


def run(
    sizes: list[int], *, repeats: int = 5, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """Time `accumulate` and the lower bound on each stream kind and size (bytes).

    Also measures the peak memory of `accumulate`.
    """
    rows: list[dict[str, Any]] = []
    for kind, make in STREAMS.items():
        for size in sizes:
            raw = make(size)
            chunks = chunked(raw, CHUNK)
            log(f"  overhead: {kind} stream, {size_text(size)} ({len(raw):,} bytes)")
            timed = interleaved_best(
                {
                    "accumulate": (partial(accumulate, chunks), repeats),
                    "lower_bound": (partial(lower_bound, chunks), repeats),
                }
            )
            message = timed["accumulate"][1]
            joined = "".join(block.get("text") or "" for block in message["content"])
            assert joined in timed["lower_bound"][1], "the lower bound did not read the same text"
            rows.append(
                {
                    "stream": kind,
                    "size": size,
                    "stream_bytes": len(raw),
                    "chunk_bytes": CHUNK,
                    "accumulate_s": timed["accumulate"][0],
                    "lower_bound_s": timed["lower_bound"][0],
                    "accumulate_peak_bytes": peak_memory(partial(accumulate, chunks)),
                }
            )
    slopes = {}
    for kind in STREAMS:
        mine = [row for row in rows if row["stream"] == kind]
        slopes[kind] = (
            slope([row["stream_bytes"] for row in mine], [row["accumulate_s"] for row in mine])
            if len(mine) > 1
            else None
        )
    return {"rows": rows, "slopes": slopes}
