"""Benchmark 4: bytes to Server-Sent Events, at every chunk size.

The same stream (`streams.text_stream`) cut into chunks of 1 byte to 1 MiB,
decoded into events by three decoders:

- **ours**: `streaming_lib.iter_sse(chunks)` (LineDecoder, then SSEDecoder);
- **the SDK's**: `anthropic._streaming.SSEDecoder().iter_bytes(chunks)`, what
  `messages.stream()` runs on the response body;
- **httpx-sse's**: fed as its own `EventSource.iter_sse` feeds it: httpx
  decodes the bytes with an incremental UTF-8 decoder (`Response.iter_text`),
  `SSELineDecoder` splits the text into lines, each line is `rstrip("\\n")`-ed
  and given to `SSEDecoder.decode`.

The chunks are cut before the clock starts; each decoder returns the number
of events and the last event's data, which must agree.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from anthropic._streaming import SSEDecoder as SDKDecoder
from httpx_sse._decoders import SSEDecoder as HttpxSSEDecoder
from httpx_sse._decoders import SSELineDecoder

from streaming_lib import iter_sse
from streaming_lib.tools.fixtures import chunked

from .streams import text_stream
from .timing import interleaved_best

CHUNK_SIZES = [1, 64, 4096, 65536, 1024 * 1024]


def ours(chunks: list[bytes]) -> tuple[int, str]:
    count, data = 0, ""
    for event in iter_sse(chunks):
        count, data = count + 1, event.data
    return count, data


def sdk(chunks: list[bytes]) -> tuple[int, str]:
    count, data = 0, ""
    for event in SDKDecoder().iter_bytes(iter(chunks)):
        count, data = count + 1, event.data
    return count, data


def _httpx_text(chunks: list[bytes]) -> Iterator[str]:
    """Bytes to text as httpx's `Response.iter_text` does it (no empty pieces)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for chunk in chunks:
        text = decoder.decode(chunk)
        if text:
            yield text
    text = decoder.decode(b"", True)
    if text:
        yield text


def httpx_sse(chunks: list[bytes]) -> tuple[int, str]:
    lines, decoder = SSELineDecoder(), HttpxSSEDecoder()
    count, data = 0, ""
    for text in _httpx_text(chunks):
        for line in lines.decode(text):
            event = decoder.decode(line.rstrip("\n"))
            if event is not None:
                count, data = count + 1, event.data
    for line in lines.flush():
        event = decoder.decode(line.rstrip("\n"))
        if event is not None:
            count, data = count + 1, event.data
    return count, data


DECODERS = {"ours": ours, "sdk": sdk, "httpx_sse": httpx_sse}


def run(
    size: int,
    chunk_sizes: list[int] = CHUNK_SIZES,
    *,
    repeats: int = 5,
    repeats_1_byte: int = 2,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Time the three decoders on a stream of about `size` bytes at each chunk size."""
    raw = text_stream(size)
    log(
        f"  decode: {len(raw) / 1e6:.1f} MB stream, "
        f"chunks of {', '.join(map(str, chunk_sizes))} bytes"
    )
    rows = []
    for chunk_size in chunk_sizes:
        chunks = chunked(raw, chunk_size)
        runs = repeats_1_byte if chunk_size == 1 else repeats
        timed = interleaved_best({name: (partial(f, chunks), runs) for name, f in DECODERS.items()})
        answers = {result for _, result in timed.values()}
        assert len(answers) == 1, f"the decoders disagree at {chunk_size}-byte chunks"
        row: dict[str, Any] = {"chunk_bytes": chunk_size, "events": answers.pop()[0], "runs": runs}
        for name, (seconds, _) in timed.items():
            row[f"{name}_s"] = seconds
            row[f"{name}_mb_s"] = len(raw) / seconds / 1e6
        rows.append(row)
    return {"stream_bytes": len(raw), "rows": rows}
