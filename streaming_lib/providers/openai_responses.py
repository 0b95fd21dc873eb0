"""OpenAI Responses: same lines and SSE, named and numbered events, another state machine.

The wire (OpenAI API reference, "Streaming events"): every event is named (its
`event:` line repeats its data's `type`) and numbered (`sequence_number`, one more
each event). The response is a list of output items, each added whole
(`response.output_item.added`, by `output_index`), then filled by deltas that
name it (`item_id`, `output_index`, `content_index`):

- `response.output_text.delta`: text to append to a message's content part;
- `response.refusal.delta`: the same, for a refusal part;
- `response.function_call_arguments.delta`: a function call's `arguments` text;
- `response.output_item.done`: the item, whole and final;
- one terminal event holding the whole `response`: `response.completed`,
  `response.failed` (its `error`) or `response.incomplete` (its
  `incomplete_details`, for example `max_output_tokens`); or an `error` event.

Stages 1 and 2 are the course's own (`LineDecoder`, `SSEDecoder`: `_sse.py`);
`ResponseAccumulator` is stage 3.
Two rules are ours, not the SDK's: a `sequence_number` that is not the next one is
a `SequenceNumberError` naming both numbers (the SDK does not look), and
`response.failed` / `response.incomplete` raise `ResponseStatusError` with the
response so far (the SDK's `get_final_response()` raises a bare RuntimeError).

What proxies send besides: a `response.completed` whose `response` has `output`
null, or none at all: its output is rebuilt from the items the stream built and
finished (`response.output_item.done`), as the SDK does. An `error` event, or a
`response.failed` / `response.incomplete`, without its `sequence_number` (or
with one out of turn): the server's verdict says more than its place, so it is
raised as it is (`ProviderStreamError` with the code, message and `retryable`;
`ResponseStatusError`), never hidden behind a `SequenceNumberError`.

Deliberately not handled: reasoning summaries, built-in tools' progress events
(`response.web_search_call.*`, ...: their items still arrive whole), annotations
added one by one (`response.output_text.annotation.added`).

    >>> events = [
    ...     b'event: response.created\\ndata: {"type":"response.created","sequence_number":0,'
    ...     b'"response":{"id":"r","status":"in_progress","output":[]}}\\n\\n',
    ...     b'event: response.completed\\ndata: {"type":"response.completed",'
    ...     b'"sequence_number":1,"response":{"id":"r","status":"completed","output":[]}}\\n\\n',
    ... ]
    >>> accumulate(events)["status"]
    'completed'
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterable, Iterable
from typing import Any

from ..errors import (
    EventDataError,
    EventOrderError,
    IncompleteStreamError,
    ProviderStreamError,
    ResponseStatusError,
    SequenceNumberError,
    StreamError,
)
from ..language import _
from ._sse import arun, iter_json, run

__all__ = ["ResponseAccumulator", "accumulate", "aaccumulate", "iter_json"]

TERMINAL = {"response.completed", "response.failed", "response.incomplete"}
# The server's own verdicts: raised whatever their sequence number says.
VERDICTS = {"error", "response.failed", "response.incomplete"}
RETRYABLE = frozenset({"rate_limit_exceeded", "server_error"})


class ResponseAccumulator:
    """Rebuild a Response (dict) from its stream events (dicts).

    Read it while it fills: `response()` is the snapshot (a new dict, None before
    `response.created`), `event_number` the events fed so far, `final` the
    terminal event's response once it has come (None before).
    """

    def __init__(self) -> None:
        self.event_number = 0
        # The last sequence number seen: the next event must carry one more.
        self.sequence_number: int | None = None
        self._response: dict[str, Any] | None = None
        # Output items by `output_index`; their text (a content part's `text`, a
        # call's `arguments`) kept as pieces joined on demand, keyed by
        # (output_index, content_index or None).
        self.items: dict[int, dict[str, Any]] = {}
        self.pieces: dict[tuple[int, int | None], list[str]] = {}
        self.final: dict[str, Any] | None = None

    @property
    def number(self) -> int:
        return self.event_number

    @property
    def done(self) -> bool:
        return self.final is not None

    def feed(self, event: dict[str, Any], sse_event: str = "message") -> None:
        """Apply one event (dict, an event's data parsed as JSON); `sse_event` is its SSE
        event type (`error` says the data is an error, whatever its `type`)."""
        self.event_number += 1
        kind = "error" if sse_event == "error" else event.get("type")
        if kind not in VERDICTS:  # the server's verdict is raised whatever its number
            self._check_sequence(event)
        if kind == "error":
            self._raise_error(event)
        if self.final is not None:
            raise self._error(EventOrderError, _("{kind} after the response ended", kind=kind))
        if self._response is None and kind != "response.created":
            raise self._error(EventOrderError, _("{kind} before response.created", kind=kind))
        try:
            self._apply(kind, event)
        except (KeyError, TypeError, AttributeError, IndexError) as error:
            message = _("malformed {kind} ({error!r})", kind=kind, error=error)
            raise self._error(EventDataError, message, data=repr(event)) from None

    def _check_sequence(self, event: dict[str, Any]) -> None:
        number = event.get("sequence_number")
        expected = 0 if self.sequence_number is None else self.sequence_number + 1
        if self.sequence_number is not None and number != expected or type(number) is not int:
            what = _("missing") if number is None else f"{number}"
            raise self._error(
                SequenceNumberError,
                _(
                    "sequence_number {what}, expected {expected}: events out of order or lost",
                    what=what,
                    expected=expected,
                ),
                expected=expected,
                got=number,
            )
        self.sequence_number = number

    def _apply(self, kind: Any, event: dict[str, Any]) -> None:
        # Every index and value is checked before it is kept (TypeError, KeyError:
        # an EventDataError), so the response so far can always be built.
        if kind in ("response.created", "response.in_progress"):
            self._response = _object(event["response"], "response")
        elif kind == "response.output_item.added":
            self.items[_index(event["output_index"])] = _object(event["item"], "item")
        elif kind == "response.content_part.added":
            parts = self._item(event["output_index"]).setdefault("content", [])
            at = _index(event["content_index"])
            if type(parts) is not list or at > len(parts):
                raise KeyError(f"content part {at} of an item holding {len(parts)}")
            parts.insert(at, _object(event["part"], "part"))
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            index, at = _index(event["output_index"]), _index(event["content_index"])
            parts = self._item(index).get("content")
            if type(parts) is not list or at >= len(parts) or type(parts[at]) is not dict:
                raise KeyError(f"content part {at} of item {index}, never added")
            self.pieces.setdefault((index, at), []).append(_text(event["delta"]))
        elif kind == "response.function_call_arguments.delta":
            index = _index(event["output_index"])
            self._item(index)  # one that was added
            self.pieces.setdefault((index, None), []).append(_text(event["delta"]))
        elif kind == "response.output_item.done":  # the item, whole: it replaces ours
            index = _index(event["output_index"])
            self.items[index] = _object(event["item"], "item")
            for key in [key for key in self.pieces if key[0] == index]:
                del self.pieces[key]
        elif kind in TERMINAL:
            self.final = _object(event["response"], "response")
            if kind != "response.completed":
                self._raise_status(kind.removeprefix("response."))
        # Any other event (`*.done` repeating what the deltas built, progress
        # events of built-in tools) changes nothing here.

    def _item(self, index: Any) -> dict[str, Any]:
        """The output item at `index` (dict); KeyError if it was never added."""
        item = self.items.get(_index(index))
        if item is None:
            raise KeyError(f"item {index}, never added")
        return item

    def response(self) -> dict[str, Any] | None:
        """The response so far (a new dict): its fields as last sent, and `output`
        built from the items and deltas received."""
        if self._response is None:
            return None
        output = []
        for index, item in sorted(self.items.items()):
            item = copy.deepcopy(item)
            for (where, part), pieces in self.pieces.items():
                if where != index:
                    continue
                text = "".join(pieces)
                if part is None:
                    item["arguments"] = item.get("arguments", "") + text
                else:
                    target = item["content"][part]
                    field = "refusal" if target.get("type") == "refusal" else "text"
                    target[field] = target.get(field, "") + text
            output.append(item)
        return {**self._response, **(self.final or {}), "output": output}

    def final_response(self) -> dict[str, Any]:
        """The finished response (the `response.completed` event's, a new dict); if its
        `output` is null or missing, the output the stream built (`response()`'s).

        Raises `IncompleteStreamError` when the stream has not ended."""
        if self.final is None:
            raise self._error(
                IncompleteStreamError, _("the stream ended before response.completed")
            )
        final = copy.deepcopy(self.final)
        if final.get("output") is None:
            final["output"] = (self.response() or {}).get("output", [])
        return final

    def snapshot(self) -> dict[str, Any] | None:
        return self.response()

    def result(self) -> dict[str, Any]:
        return self.final_response()

    def _raise_status(self, said: str) -> None:
        final = self.final or {}
        status = final.get("status") or said  # a proxy's response may leave it out
        reason = final.get("error") if status == "failed" else final.get("incomplete_details")
        code = reason.get("code") if type(reason) is dict else None
        raise self._error(
            ResponseStatusError,
            _("the response is {status}: {reason}", status=status, reason=reason),
            status=status,
            reason=reason,
            retryable=isinstance(code, str) and code in RETRYABLE,
        )

    def _raise_error(self, event: dict[str, Any]) -> None:
        # `{"type": "error", "code", "message"}`, or the same inside an `error` member.
        details = event["error"] if type(event.get("error")) is dict else event
        code, kind = details.get("code"), details.get("type")
        name = code if isinstance(code, str) else kind if isinstance(kind, str) else None
        name = None if name == "error" else name
        text = str(details.get("message") or "")
        raise self._error(
            ProviderStreamError,
            f"{name or code}: {text}",
            provider="openai_responses",
            error_type=name,
            error_message=text,
            code=code,
            retryable=isinstance(name, str) and name in RETRYABLE,
        )

    def _error(self, cls: type[StreamError], text: str, **details: Any) -> StreamError:
        partial = self.response()
        return cls(
            _("event {number}: {text}", number=self.event_number, text=text),
            partial=partial,
            event_number=self.event_number,
            **details,
        )


def _index(value: Any) -> int:
    """An output or content index: an int, 0 or more (not a bool, a float, a string)."""
    if type(value) is not int or value < 0:
        raise TypeError(f"the index {value!r} is not a whole number, 0 or more")
    return value


def _object(value: Any, what: str) -> dict[str, Any]:
    """A deep copy of `value`, which must be a JSON object (dict)."""
    if type(value) is not dict:
        raise TypeError(f"the {what} is {value!r}, not an object")
    return copy.deepcopy(value)


def _text(value: Any) -> str:
    if type(value) is not str:
        raise TypeError(f"the delta is {value!r}, not a string")
    return value


def accumulate(chunks: Iterable[bytes]) -> dict[str, Any]:
    """The final Response (dict) of a Responses API stream given as byte chunks cut
    anywhere (or one bytes object): the `response.completed` event's response, whose
    `output` the deltas before it built (tests/test_providers_parity.py holds the two
    equal, and equal to the `openai` SDK's `get_final_response()`).

    Raises `SequenceNumberError`, `ResponseStatusError` (`response.failed`,
    `response.incomplete`), `ProviderStreamError` (an `error` event),
    `EventOrderError`, `EventDataError` and `IncompleteStreamError`, each with
    `.partial`: the response so far, and `.event_number` (1-based).
    """
    return run(ResponseAccumulator(), chunks)


async def aaccumulate(chunks: AsyncIterable[bytes]) -> dict[str, Any]:
    """`accumulate` over async byte chunks: the same response, or the same error.

    >>> import asyncio
    >>> async def body():
    ...     yield b'event: error\\ndata: {"type":"error","code":"server_error","message":"Oops"}'
    ...     yield b"\\n\\n"
    >>> try:
    ...     asyncio.run(aaccumulate(body()))
    ... except ProviderStreamError as error:
    ...     print(error.code, error.retryable)
    server_error True
    """
    return await arun(ResponseAccumulator(), chunks)
