"""OpenAI Chat Completions: same lines and SSE, data-only events, another state machine.

The wire (OpenAI API reference, "The chat completion chunk object" and the
streaming guide): every event is unnamed, its data one `chat.completion.chunk`;
the stream ends with `data: [DONE]`, which is not JSON. What each chunk carries:

- `choices[i].delta`: the pieces of choice `i`'s message: `role` once, then
  `content` (or `refusal`) text to append, and `tool_calls` fragments;
- a tool call's fragments are matched by their `index` (not their `id`): its
  `id`, `type` and `function.name` come once, in its first fragment, its
  `function.arguments` in pieces, and several calls may interleave;
- `choices[i].finish_reason` at the end of choice `i` (`stop`, `length`,
  `tool_calls`, `content_filter`);
- with `stream_options: {"include_usage": true}`, one last chunk whose
  `choices` is empty and whose `usage` counts the tokens;
- a failure after HTTP 200 is a data line holding an `error` object.

Stages 1 and 2 are the course's own (`iter_sse`); `ChatCompletionAccumulator` is
stage 3, and `accumulate` gives the final `chat.completion` the `openai` SDK's
`client.chat.completions.stream(...).get_final_completion()` gives for the same
bytes (checked in tests/test_providers_parity.py).

Deliberately not handled: the deprecated `function_call` delta, `logprobs`
(kept as the last chunk sent them, not merged), the Assistants API.

    >>> chunk = b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}]}\\n\\n'
    >>> accumulate([chunk, b"data: [DONE]\\n\\n"])["choices"][0]["message"]
    {'content': 'Hi'}
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import EventDataError, ProviderStreamError, StreamError
from ._sse import iter_json

DONE = "[DONE]"  # the data that ends the stream: not JSON, never parsed
# Chunk fields copied to the completion as they come (the last sent wins).
COMPLETION_FIELDS = ("id", "created", "model", "system_fingerprint", "service_tier", "usage")
# Error types OpenAI's error codes page says to retry after a pause.
RETRYABLE = frozenset({"rate_limit_exceeded", "server_error", "overloaded"})


class ChatCompletionAccumulator:
    """Rebuild a `chat.completion` (dict) from its `chat.completion.chunk`s (dicts).

    Read it while it fills: `completion()` is the snapshot (a new dict; None
    before the first chunk), `chunk_number` the chunks fed so far.
    `feed(chunk)` raises `ProviderStreamError` for an error chunk and
    `EventDataError` for a chunk it cannot read.
    """

    def __init__(self) -> None:
        self.chunk_number = 0
        # The completion's own fields (id, model, usage, ...), as last sent.
        self.fields: dict[str, Any] = {}
        # Each choice by its `index`: the message's scalar fields and
        # `finish_reason`. Text is kept apart, as pieces joined on demand:
        # `+=` on a growing string would copy it at every delta.
        self.choices: dict[int, dict[str, Any]] = {}
        self.text: dict[tuple[int, str], list[str]] = {}  # (choice, "content"/"refusal")
        # Tool calls of each choice by their `index`: their id, type, name, and
        # the pieces of their arguments.
        self.tool_calls: dict[int, dict[int, dict[str, Any]]] = {}
        self.arguments: dict[tuple[int, int], list[str]] = {}

    def feed(self, chunk: dict[str, Any]) -> None:
        """Apply one chunk (dict, an event's data parsed as JSON)."""
        self.chunk_number += 1
        if chunk.get("error"):
            self._raise_error(chunk["error"])
        try:
            for field in COMPLETION_FIELDS:
                if chunk.get(field) is not None:
                    self.fields[field] = chunk[field]
            for choice in chunk.get("choices") or []:  # empty in the usage chunk
                self._feed_choice(choice)
        except (KeyError, TypeError, AttributeError) as error:
            raise EventDataError(
                f"chunk {self.chunk_number}: malformed ({error!r})",
                data=repr(chunk),
                event_number=self.chunk_number,
                partial=self.completion(),
            ) from None

    def _feed_choice(self, choice: dict[str, Any]) -> None:
        i = _whole_number(choice["index"], "a choice's index")
        state = self.choices.setdefault(i, {"index": i, "message": {}})
        delta = choice.get("delta") or {}
        for key, value in delta.items():
            if key in ("content", "refusal"):
                if value is not None:
                    self.text.setdefault((i, key), []).append(_text(value, key))
            elif key == "tool_calls":
                for fragment in value or []:
                    self._feed_tool_call(i, fragment)
            elif value is not None:
                state["message"][key] = value  # role, and any field the wire adds
        for key in ("finish_reason", "logprobs"):
            if choice.get(key) is not None:
                state[key] = choice[key]

    def _feed_tool_call(self, i: int, fragment: dict[str, Any]) -> None:
        calls = self.tool_calls.setdefault(i, {})
        # The call's place: its id comes only with the first fragment.
        n = _whole_number(fragment["index"], "a tool call's index")
        call = calls.setdefault(n, {"index": n, "function": {}})
        for key in ("id", "type"):
            if fragment.get(key) is not None:
                call[key] = fragment[key]
        function = fragment.get("function") or {}
        if function.get("name") is not None:
            call["function"]["name"] = function["name"]
        if function.get("arguments") is not None:
            self.arguments.setdefault((i, n), []).append(_text(function["arguments"], "arguments"))

    def _raise_error(self, error: Any) -> None:
        details = error if isinstance(error, dict) else {"message": str(error)}
        kind = details.get("type") or details.get("code")
        text = str(details.get("message") or "")
        raise ProviderStreamError(
            f"chunk {self.chunk_number}: {kind}: {text}",
            provider="openai_chat",
            error_type=kind,
            error_message=text,
            retryable=kind in RETRYABLE or details.get("code") in RETRYABLE,
            event_number=self.chunk_number,
            partial=self.completion(),
        )

    def completion(self) -> dict[str, Any] | None:
        """The completion so far (a new dict, shaped as the API's `chat.completion`)."""
        if not self.chunk_number:
            return None
        choices = []
        for i, state in sorted(self.choices.items()):
            message = dict(state["message"])
            for key in ("content", "refusal"):
                if (i, key) in self.text:
                    message[key] = "".join(self.text[i, key])
            if i in self.tool_calls:
                message["tool_calls"] = [
                    {
                        **call,
                        "function": {
                            **call["function"],
                            "arguments": "".join(self.arguments.get((i, n), [])),
                        },
                    }
                    for n, call in sorted(self.tool_calls[i].items())
                ]
            choices.append({**state, "message": message})
        return {**self.fields, "object": "chat.completion", "choices": choices}


def _whole_number(value: Any, what: str) -> int:
    """`value` if it is an int (not a bool, a float or a string); else TypeError, which
    `feed` reports as an `EventDataError`: choices and tool calls are matched and
    sorted by these numbers, so anything else cannot be placed."""
    if type(value) is not int:
        raise TypeError(f"{what} is {value!r}, not a whole number")
    return value


def _text(value: Any, field: str) -> str:
    """`value` if it is a str (a piece of text to join); else TypeError, as above."""
    if type(value) is not str:
        raise TypeError(f"{field} is {value!r}, not a string")
    return value


def accumulate(chunks: Iterable[bytes]) -> dict[str, Any]:
    """The final `chat.completion` (dict) of a Chat Completions stream given as byte chunks
    cut anywhere (or one bytes object).

    Shape: `id`, `object`, `created`, `model`, `choices` (each `index`, `message` with
    `role`, `content` / `refusal` / `tool_calls`, `finish_reason`), `usage` when the
    stream sent it; fields the wire never sent are left out.

    Raises `EventDataError` (data that is not JSON, `[DONE]` aside),
    `ProviderStreamError` (an error object after HTTP 200) and
    `IncompleteStreamError` (no `[DONE]`), each with `.partial`: the completion so far.
    """
    if isinstance(chunks, (bytes, bytearray, memoryview)):
        chunks = [bytes(chunks)]
    acc = ChatCompletionAccumulator()
    try:
        for chunk in iter_json(chunks, end=DONE):
            acc.feed(chunk)
    except StreamError as error:
        if error.partial is None:
            error.partial = acc.completion()
        if error.event_number is None:
            error.event_number = acc.chunk_number
        raise
    return acc.completion() or {}
