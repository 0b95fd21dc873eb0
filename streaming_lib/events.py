"""Stage 2 to 3: Server-Sent Events in, Messages API events (dicts) out.

Each SSE event of a Messages API stream carries one event as JSON in its data
(source: the API reference, "Streaming Messages"; `event:` repeats its type):

    event: content_block_delta
    data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}

`decode_event` turns one `ServerSentEvent` into that dict, by the rules the
SDK follows for the event name; `iter_events` does the whole way from bytes,
for speed. Deliberately not handled here: what the events mean, in which
order they may come (`accumulator.py`).

    >>> list(iter_events([b'event: message_stop\\ndata: {"type": "message_stop"}\\n\\n']))
    [{'type': 'message_stop'}]
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import jiter

from .errors import EventDataError
from .lines import LineDecoder
from .partial_json import JITER_MAX_DEPTH
from .sse import ServerSentEvent, SSEDecoder

# Event names, as the bytes of an `event:` line, that `iter_events` leaves to
# `decode_event`: the three that decide the event whatever its data, and ""
# (no `event:` line: the name is "message").
_NAMES_FOR_DECODE_EVENT = frozenset({b"message", b"ping", b"error", b""})


def decode_event(sse: Any, number: int) -> dict[str, Any] | None:
    """The JSON object (dict) of one Messages API event, or None for what the API's
    clients skip: unnamed events, and events with empty data.

    `sse`: anything with `event` and `data` (str), such as a `ServerSentEvent`.
    Two SSE event names win over the data, as in the SDK:
    - `error`: whatever its data (even empty), it becomes an error event: its
      `error` object if it has one, else its raw text. (A block with no `data:`
      line at all is no event, by the SSE rules: it never gets here, where
      the SDK, which dispatches it anyway, raises.)
    - `ping`: whatever its data, it is `{"type": "ping"}`, which changes nothing.
      (The SDK drops pings; here they are still fed to the accumulator, so they
      count in the event numbers that errors give.)

    Raises `EventDataError`, naming event `number`, when any other event's data
    is not JSON, is `null`, is nested inside more than 200 lists or objects, or
    holds an integer of over 4300 digits (Python's limit for `int`).
    Other values that are not objects are returned as they are: the accumulator
    rejects them."""
    name, data = sse.event, sse.data
    if name == "message":
        return None
    if name == "ping":
        return {"type": "ping"}
    if name == "error":
        try:
            event = load_json(data)
        except ValueError:
            event = None
        if isinstance(event, dict) and isinstance(event.get("error"), dict):
            return {**event, "type": "error"}
        return {"type": "error", "error": {"type": None, "message": data}}
    if not data:
        return None
    where = f"event {number} ({name})"
    try:
        event = load_json(data)
    except ValueError as error:
        if isinstance(error, json.JSONDecodeError):
            why = f"data is not JSON: {error.msg} (character {error.pos})"
        else:  # too deep, or an integer of over 4300 digits
            why = f"data cannot be used: {error}"
        raise EventDataError(f"{where}: {why}", data=data, event_number=number) from None
    if event is None:  # `null` must not read as "nothing to feed"
        raise EventDataError(f"{where}: the event is not an object with a 'type'", data=data, event_number=number)
    return event


def iter_events(chunks: Iterable[bytes], *, strict: bool = False) -> Iterator[Any]:
    """Yield the Messages API events (dicts) of a stream given as byte chunks.

    The same events, and the same errors, as `decode_event(sse, n)` for every
    `sse` of `iter_sse(chunks, strict=strict)`, leaving out the Nones, where
    `n` counts the events yielded so far plus one (1-based, as
    `MessageAccumulator.event_number` will count them once fed).

    Faster, as it runs for every event of a stream: the loop of `iter_sse` is
    repeated here on lines that are still bytes (`LineDecoder.feed_each(...,
    decode=False)`), so a plain event (named, but not `message`, `ping` or
    `error`, with data that jiter reads) goes from its lines to its value
    without being decoded to str, encoded back for jiter, or made a
    `ServerSentEvent`. Every other event is decoded and handed to
    `decode_event`; other lines go to `SSEDecoder.feed_line`.
    `tests/test_fast_paths.py` checks that both ways agree.

    Raises `SSEDecodeError` (strict mode, invalid UTF-8) and `EventDataError`.
    """
    lines, decoder = LineDecoder(strict=strict), SSEDecoder()
    event_type, data, number = b"", [], 0
    for batch in lines.feed_each(chunks, decode=False):
        for line in batch:
            if not line:  # dispatch, as in `iter_sse`
                if data:
                    text, event = b"\n".join(data), None
                    if event_type not in _NAMES_FOR_DECODE_EVENT:
                        try:
                            event = jiter.from_json(text)  # what `load_json` tries first
                        except ValueError:  # also bytes that are not UTF-8
                            pass
                    if event is None:  # not read above, or `null`: `decode_event` decides
                        name = event_type.decode("utf-8", "replace") or "message"
                        event = decode_event(ServerSentEvent(name, text.decode("utf-8", "replace")), number + 1)
                    if event is not None:
                        number += 1
                        yield event
                    data = []
                event_type = b""
                continue
            name, _, value = line.partition(b" ")  # as in `iter_sse`
            if name == b"data:":
                data.append(value)
            elif name == b"event:":
                event_type = value
            else:  # a comment, `id`, `retry`, a field without its space...: the decoder's own rules
                decoder.event_type, decoder.data_lines = None, []  # type: ignore[assignment]
                decoder.feed_line(line.decode("utf-8", "replace"))  # never dispatches: not blank
                if decoder.event_type is not None:  # it was an `event` field
                    event_type = decoder.event_type.encode()
                data += [value.encode() for value in decoder.data_lines]  # a `data` field
    lines.flush()  # as in `iter_sse`: strict mode raises for a bad last line


def load_json(text: str) -> Any:
    """`json.loads(text)`: the same value, or the same error, faster; except that
    a value nested inside more than 200 lists or objects raises ValueError.
    Used for event data and for a tool's input at its stop.

    jiter (the SDK's own JSON parser, in Rust) reads event data about 3 times
    faster than `json.loads` (benchmarks/README.md), and that was a third of
    benchmark 1. For the text it accepts, its values are `json.loads`'s
    (tests/test_accumulator.py checks it on random documents); everything it
    refuses goes to `json.loads`, which raises its usual error, or takes the
    few texts jiter refuses and it does not (a lone surrogate escape such as
    "\\ud800"). The depth limit is jiter's: the accumulator deep-copies what it
    keeps, and data nested hundreds deep would overflow Python's stack there.
    So it raises only ValueError (JSONDecodeError for text that is not JSON)."""
    try:
        return jiter.from_json(text.encode())
    except ValueError as error:  # also UnicodeEncodeError: a str with a lone surrogate
        if str(error).startswith("recursion limit exceeded"):
            raise ValueError(f"nested inside more than {JITER_MAX_DEPTH} lists or objects") from None
    try:
        value = json.loads(text)
        too_deep = _nesting(value) > JITER_MAX_DEPTH
    except RecursionError:  # nested far deeper still
        too_deep = True
    if too_deep:
        raise ValueError(f"nested inside more than {JITER_MAX_DEPTH} lists or objects")
    return value


def _nesting(value: Any) -> int:
    """How many lists or objects enclose the most deeply nested value in `value`
    (0 for a scalar or `[]`, 1 for `[1]` or `[[]]`), counted as jiter counts."""
    depth, level = 0, [value]
    while children := [child for item in level if isinstance(item, (list, dict))
                       for child in (item.values() if isinstance(item, dict) else item)]:
        depth, level = depth + 1, children
    return depth


