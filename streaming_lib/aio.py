"""The pipeline over an async byte stream: `async for` instead of `for`.

A web app (a relay between a browser and the API, say) reads the API's answer
from an async HTTP client, `httpx.AsyncClient` or the SDK's `AsyncAnthropic`.
The stages are the same objects as in the sync pipeline, and as fast:
`fast.FastEventDecoder` (lines, SSE events, their JSON) and
`MessageAccumulator` never touch the network, they are fed whatever arrived,
one chunk at a time. Only the wait for the next chunk is async, so the events,
the message and the errors are exactly the sync ones (the tests hold them
equal on random streams cut at random points).

    >>> import asyncio
    >>> async def chunks():
    ...     yield b'event: message_stop\\ndata: {"type": '
    ...     yield b'"message_stop"}\\n\\n'
    >>> async def main():
    ...     return [event async for event in aiter_events(chunks())]
    >>> asyncio.run(main())
    [{'type': 'message_stop'}]

Deliberately not handled here: opening and closing the connection (the
caller's `async with`; leaving it, or cancelling the task, closes it).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable
from typing import Any

from .accumulator import MessageAccumulator, end_of_body, feed_chunk, keep_partial
from .events import BODY_HEAD_BYTES
from .fast import FastEventDecoder
from .sse import MAX_EVENT_BYTES


async def aiter_events(
    chunks: AsyncIterable[bytes],
    *,
    strict: bool = False,
    max_event_bytes: int | None = MAX_EVENT_BYTES,
) -> AsyncGenerator[Any, None]:
    """Yield the Messages API events (dicts) of a stream given as async byte chunks.

    The same events and errors as `iter_events(chunks, strict=...,
    max_event_bytes=...)` over the same chunks, by the same per-chunk work:
    each chunk fed to a `fast.FastEventDecoder` (lines, then SSE events, then
    `decode_event` where an event is not plain), numbered from 1 as they are
    yielded. Raises `SSEDecodeError` (strict mode), `SizeLimitError`,
    `EventDataError`, and TypeError for a chunk that is not bytes."""
    decoder = FastEventDecoder(strict=strict, max_event_bytes=max_event_bytes)
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    for event in decoder.flush():  # the last line had no end: it completes no event,
        yield event  # but strict mode and the size limit still read it


async def aaccumulate(
    chunks: AsyncIterable[bytes],
    *,
    strict: bool = False,
    max_event_bytes: int | None = MAX_EVENT_BYTES,
    keep_events: bool = False,
) -> dict[str, Any]:
    """The final message (dict) of a stream given as async byte chunks: what
    `accumulate(chunks, ...)` returns for the same bytes, or the same `StreamError`
    (with `.partial`, and `.events` when `keep_events=True`).

    The same work per chunk as `accumulate` (`accumulator.feed_chunk` over a
    `FastEventDecoder`): only the wait for the next chunk is async, so it runs
    at the sync pipeline's speed. As `accumulate`, it stops reading at
    `message_stop` and asks for no chunk after it: a connection held open after
    the last event does not hold it up. Closing the connection stays the
    caller's (`async with client.stream(...)`)."""
    acc = MessageAccumulator()
    events: list[Any] = []  # filled only with keep_events=True
    keep = events.append if keep_events else None
    head = bytearray()  # the body's first bytes, examined if no event comes
    decoder = FastEventDecoder(strict=strict, max_event_bytes=max_event_bytes)
    with keep_partial(acc, events):
        async for chunk in chunks:
            # First the decoder: a chunk that is not bytes is its to refuse.
            if feed_chunk(acc, decoder, chunk, keep):
                break  # message_stop: the message is final; what follows is not read
            if len(head) < BODY_HEAD_BYTES:
                head += chunk[: BODY_HEAD_BYTES - len(head)]
        else:
            feed_chunk(acc, decoder, None, keep)
        end_of_body(acc, head)
        return acc.final_message()

