"""Benchmark 3: the whole pipeline, bytes to final message, on a text-only stream.

`streams.text_stream(size)` is one text block in `text_delta` events of 1 to 8
characters: many small events, so this measures the cost per event of every
stage (lines, SSE fields, `json.loads`, the accumulator), not any parsing of
long values. Both contenders read the same bytes in the same 4 KiB chunks:

- **ours**: `streaming_lib.accumulate(chunks)`;
- **the SDK**: `streaming_lib.tools.sdk.sdk_final_message(raw)`, that is
  `messages.stream()` through a mock transport, iterated to the end, then
  `get_final_message().to_dict()`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from streaming_lib import accumulate
from streaming_lib.tools.fixtures import chunked
from streaming_lib.tools.sdk import compare_messages, sdk_final_message

from .preview import CHUNK
from .streams import text_stream
from .timing import interleaved_best


def run(size: int, *, repeats: int = 5, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Time both contenders on a text stream of about `size` bytes."""
    raw = text_stream(size)
    chunks = chunked(raw, CHUNK)
    log(f"  pipeline: {len(raw) / 1e6:.1f} MB text stream")
    timed = interleaved_best(
        {
            "ours": (lambda: accumulate(chunks), repeats),
            "sdk": (lambda: sdk_final_message(raw, chunk_size=CHUNK), repeats),
        }
    )
    (ours_s, ours), (sdk_s, theirs) = timed["ours"], timed["sdk"]
    differences = compare_messages(ours, theirs)
    assert not differences, f"the SDK's message differs: {differences[:3]}"
    return {
        "stream_bytes": len(raw),
        "events": raw.count(b"\n\n"),
        "chunk_bytes": CHUNK,
        "ours_s": ours_s,
        "sdk_s": sdk_s,
        "runs": repeats,
    }
