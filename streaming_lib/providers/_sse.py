"""Stage 2 for the data-only SSE wires (OpenAI, Gemini): each event's data is one JSON object.

The course's own `iter_sse` (LineDecoder, then SSEDecoder) does stages 1 and 2
unchanged; what is left is reading each event's data as a JSON object, with an
`EventDataError` that names the event's number when it is not one.

    >>> list(iter_json([b'data: {"a": 1}\\n\\ndata: [DONE]\\n\\n'], end="[DONE]"))
    [{'a': 1}]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import EventDataError, IncompleteStreamError
from ..events import body_error, kept_head, load_json
from ..sse import ServerSentEvent, iter_sse


def iter_json(chunks: Iterable[bytes], *, end: str | None = None) -> Iterator[Any]:
    """Yield each event's data parsed as JSON (a dict), in order.

    `end`: the data that closes the stream (OpenAI's `[DONE]`, which is not JSON);
    reading stops there, and bytes ending before it raise `IncompleteStreamError`.
    Events whose data is not a JSON object raise `EventDataError` (`.event_number`
    1-based, `.data` the raw text). A body that gives no event at all and is no event
    stream (a JSON error object sent with HTTP 200, an HTML page) raises what
    `events.body_error` makes of it, as the Messages API pipeline does:
    `APIStreamError` or `NotAnEventStreamError`, never a cut stream's error."""
    head = bytearray()  # the body's first bytes, examined if no event comes
    number = 0
    for number, sse in enumerate(iter_sse(kept_head(chunks, head)), 1):
        if end is not None and sse.data == end:
            return
        yield decode_data(sse, number)
    if number == 0 and (error := body_error(bytes(head))) is not None:
        raise error
    if end is not None:
        raise IncompleteStreamError(f"the stream ended without its closing data: {end}")


def decode_data(sse: ServerSentEvent, number: int) -> dict[str, Any]:
    """One event's data as a JSON object (dict); `EventDataError` if it is not one."""
    try:
        value = load_json(sse.data)
    except ValueError as error:
        raise EventDataError(
            f"event {number}: data is not JSON ({error})", data=sse.data, event_number=number
        ) from None
    if not isinstance(value, dict):
        raise EventDataError(
            f"event {number}: data is not a JSON object", data=sse.data, event_number=number
        )
    return value
