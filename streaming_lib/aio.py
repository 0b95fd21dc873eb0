"""The pipeline over an async byte stream: `async for` instead of `for`.

A web app (a relay between a browser and the API, say) reads the API's answer
from an async HTTP client, `httpx.AsyncClient` or the SDK's `AsyncAnthropic`.
The stages are the same objects as in the sync pipeline: `LineDecoder`,
`SSEDecoder`, `decode_event`, `MessageAccumulator` never touch the network,
they are fed whatever arrived. Only the loop that feeds them is async, so the
events, the message and the errors are exactly the sync ones (the tests hold
them equal on random streams cut at random points).

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
from contextlib import aclosing
from typing import Any

from .accumulator import MessageAccumulator, end_of_body, keep_partial
from .events import BODY_HEAD_BYTES, decode_event
from .lines import LineDecoder
from .sse import MAX_EVENT_BYTES, SSEDecoder


async def aiter_events(
    chunks: AsyncIterable[bytes],
    *,
    strict: bool = False,
    max_event_bytes: int | None = MAX_EVENT_BYTES,
) -> AsyncGenerator[Any, None]:
    """Yield the Messages API events (dicts) of a stream given as async byte chunks.

    The same events and errors as `iter_events(chunks, strict=...,
    max_event_bytes=...)` over the same chunks: lines (`LineDecoder`), then SSE
    events (`SSEDecoder`), then `decode_event`, numbered from 1 as they are
    yielded. Raises `SSEDecodeError` (strict mode), `SizeLimitError`,
    `EventDataError`, and TypeError for a chunk that is not bytes."""
    lines = LineDecoder(strict=strict, max_line_bytes=max_event_bytes)
    sse = SSEDecoder(max_event_bytes=max_event_bytes)
    number = 0
    async for chunk in chunks:
        for line in lines.feed(chunk):
            dispatched = sse.feed_line(line)
            event = None if dispatched is None else decode_event(dispatched, number + 1)
            if event is not None:
                number += 1
                yield event
    for line in lines.flush():  # the last line had no end: it completes no event,
        sse.feed_line(line)  # but strict mode and the size limit still read it


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

    As `accumulate`, it stops reading at `message_stop` and asks for no chunk
    after it: a connection held open after the last event does not hold it up.
    Closing the connection stays the caller's (`async with client.stream(...)`)."""
    acc = MessageAccumulator()
    events: list[Any] = []  # filled only with keep_events=True
    head = bytearray()  # the body's first bytes, examined if no event comes
    with keep_partial(acc, events):
        async with (
            aclosing(akept_head(chunks, head)) as body,
            aclosing(aiter_events(body, strict=strict, max_event_bytes=max_event_bytes)) as stream,
        ):
            async for event in stream:
                if keep_events:
                    events.append(event)
                acc.feed(event)
                if acc.complete:
                    break  # message_stop: the message is final; what follows is not read
        end_of_body(acc, head)
        return acc.final_message()


async def akept_head(chunks: AsyncIterable[bytes], head: bytearray) -> AsyncGenerator[bytes, None]:
    """`events.kept_head` for async chunks: yield them unchanged, copying their first
    `BODY_HEAD_BYTES` bytes into `head`, which `end_of_body` reads if no event comes."""
    async for chunk in chunks:
        yield chunk  # first: a chunk that is not bytes is the line decoder's to refuse
        if len(head) < BODY_HEAD_BYTES:
            head += chunk[: BODY_HEAD_BYTES - len(head)]
