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

What real servers and gateways send besides, and what is made of it:

- Azure's asynchronous content filter adds annotation chunks whose `object`,
  `id` and `model` are `""` and `created` is 0: they carry nothing of the
  completion and are skipped (the SDK skips every chunk whose `object` is not
  `chat.completion.chunk`; we skip only these, so that a gateway that labels its
  chunks otherwise still gives its answer), and an empty value never overwrites
  a real one;
- every text of a delta is joined, not only `content` and `refusal`: the
  reasoning of DeepSeek (`reasoning_content`) and OpenRouter (`reasoning`), as
  the SDK joins them; `role` is a word, not text: the last one sent (the SDK
  glues a repeated role into `assistantassistant`);
- `logprobs` are extended chunk by chunk (`content`, `refusal`), and a chunk's
  `moderation` is kept, as the SDK does;
- a fragment that brings a new `id` at an index whose call already has another
  one starts a new call (gateways that send each call whole at index 0): the SDK
  glues the two into one call whose arguments are `{..}{..}`;
- an error sent inside the stream in any of the shapes servers use (an `error`
  object, a chunk whose `object` is `error`, an `event: error`, vLLM's error
  object with no wrapper: a `message` and no `choices`) is a
  `ProviderStreamError` with the server's code and message, where the SDK reads
  the last three as success.

Stages 1 and 2 are the course's own (`LineDecoder`, `SSEDecoder`, fed chunk by chunk
in `_sse.py`); `ChatCompletionAccumulator` is
stage 3, and `accumulate` gives the final `chat.completion` the `openai` SDK's
`client.chat.completions.stream(...).get_final_completion()` gives for the same
bytes (checked in tests/test_providers_parity.py).

Deliberately not handled: the deprecated `function_call` delta, the Assistants API.

    >>> chunk = b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}]}\\n\\n'
    >>> accumulate([chunk, b"data: [DONE]\\n\\n"])["choices"][0]["message"]
    {'content': 'Hi'}
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterable, Iterable
from typing import Any

from ..errors import EventDataError, ProviderStreamError
from ..language import _
from ._sse import arun, run

DONE = "[DONE]"  # the data that ends the stream: not JSON, never parsed
CHUNK_OBJECT = "chat.completion.chunk"
# Chunk fields copied to the completion as they come (the last sent wins, unless empty).
COMPLETION_FIELDS = (
    "id",
    "created",
    "model",
    "system_fingerprint",
    "service_tier",
    "usage",
    "moderation",
)
# Error types and codes OpenAI's error codes page says to retry after a pause.
RETRYABLE = frozenset({"rate_limit_exceeded", "server_error", "overloaded"})
# A delta's fields that are words, not text to join: the last one sent is kept.
WORDS = frozenset({"role"})
# A call's scalar fields: sent once, in its first fragment.
CALL_FIELDS = ("id", "type")


class ChatCompletionAccumulator:
    """Rebuild a `chat.completion` (dict) from its `chat.completion.chunk`s (dicts).

    Read it while it fills: `completion()` is the snapshot (a new dict; None
    before the first chunk), `chunk_number` the chunks fed so far.
    `feed(chunk, event)` raises `ProviderStreamError` for an error sent in the
    stream and `EventDataError` for a chunk it cannot read.
    """

    done = False  # the stream ends with [DONE], which the decoder reads

    def __init__(self) -> None:
        self.chunk_number = 0
        # The completion's own fields (id, model, usage, ...), as last sent.
        self.fields: dict[str, Any] = {}
        # Each choice by its `index`: the message's words (role, ...), `finish_reason`
        # and `logprobs`. Text is kept apart, as pieces joined on demand: `+=` on a
        # growing string would copy it at every delta.
        self.choices: dict[int, dict[str, Any]] = {}
        self.text: dict[tuple[int, str], list[str]] = {}  # (choice, "content", "reasoning", ...)
        # Tool calls of each choice, in order: their index, id, type, name; their
        # arguments as pieces. `latest[(choice, index)]` is the place in
        # `tool_calls[choice]` of the call that fragments with that index go to.
        self.tool_calls: dict[int, list[dict[str, Any]]] = {}
        self.arguments: dict[tuple[int, int], list[str]] = {}
        self.latest: dict[tuple[int, int], int] = {}

    @property
    def number(self) -> int:
        return self.chunk_number

    def feed(self, chunk: dict[str, Any], event: str = "message") -> None:
        """Apply one chunk (dict, an event's data parsed as JSON); `event` is its SSE
        event type (`error` says the data is an error, whatever its shape)."""
        self.chunk_number += 1
        error = _error_in(chunk, event)
        if error is not None:
            self._raise_error(error)
        if chunk.get("object") == "":  # Azure's content-filter annotation
            return
        try:
            for field in COMPLETION_FIELDS:
                value = chunk.get(field)
                if value is not None and not (_empty(value) and field in self.fields):
                    self.fields[field] = copy.deepcopy(value)
            for choice in chunk.get("choices") or []:  # empty in the usage chunk
                self._feed_choice(choice)
        except (KeyError, TypeError, AttributeError) as error:
            raise EventDataError(
                _("chunk {number}: malformed ({error!r})", number=self.chunk_number, error=error),
                data=repr(chunk),
                event_number=self.chunk_number,
                partial=self.completion(),
            ) from None

    def _feed_choice(self, choice: dict[str, Any]) -> None:
        i = _whole_number(choice["index"], "a choice's index")
        state = self.choices.setdefault(i, {"index": i, "message": {}})
        delta = choice.get("delta") or {}
        for key, value in delta.items():
            if key == "tool_calls":
                for fragment in value or []:
                    self._feed_tool_call(i, fragment)
            elif value is None:
                continue
            elif key in ("content", "refusal") or (i, key) in self.text:
                self.text.setdefault((i, key), []).append(_text(value, key))
            elif isinstance(value, str) and key not in WORDS:
                self.text[i, key] = [value]  # reasoning_content, reasoning, ...: text
            else:
                state["message"][key] = value  # role, and any field the wire adds
        if choice.get("finish_reason") is not None:
            state["finish_reason"] = choice["finish_reason"]
        logprobs = choice.get("logprobs")
        if logprobs is not None:
            self._feed_logprobs(state, logprobs)

    def _feed_logprobs(self, state: dict[str, Any], logprobs: dict[str, Any]) -> None:
        """The first chunk's logprobs, then each chunk's `content` and `refusal` lists
        appended to them, as the SDK does."""
        kept = state.get("logprobs")
        if kept is None:
            state["logprobs"] = copy.deepcopy(dict(logprobs))
            return
        for key in ("content", "refusal"):
            more = logprobs.get(key)
            if more:
                if type(more) is not list:
                    raise TypeError(f"logprobs.{key} is {more!r}, not a list")
                kept[key] = [*(kept.get(key) or []), *copy.deepcopy(more)]

    def _feed_tool_call(self, i: int, fragment: dict[str, Any]) -> None:
        calls = self.tool_calls.setdefault(i, [])
        # The call's place: its index. Its id comes with its first fragment; a
        # fragment bringing another id at that index starts another call.
        n = _whole_number(fragment["index"], "a tool call's index")
        at = self.latest.get((i, n))
        new_id = fragment.get("id")
        if at is None or (new_id and calls[at].get("id") and calls[at]["id"] != new_id):
            at = self.latest[i, n] = len(calls)
            calls.append({"index": n, "function": {}})
        call = calls[at]
        function = fragment.get("function") or {}
        for target, key, value in [
            *((call, key, fragment.get(key)) for key in CALL_FIELDS),
            (call["function"], "name", function.get("name")),
        ]:
            if value is not None and not (_empty(value) and target.get(key)):
                target[key] = value  # sent once; an empty one later never hides it
        if function.get("arguments") is not None:
            self.arguments.setdefault((i, at), []).append(_text(function["arguments"], "arguments"))

    def _raise_error(self, error: Any) -> None:
        details = error if isinstance(error, dict) else {"message": str(error)}
        kind, code = details.get("type"), details.get("code")
        # The error's name: its type, else a code that is a word ("rate_limit_exceeded").
        name = kind if isinstance(kind, str) else code if isinstance(code, str) else None
        if isinstance(code, str) and code in RETRYABLE:
            name = code
        text = str(details.get("message") or "")
        summary = ": ".join(str(part) for part in (name or code, text) if part)
        said = _(
            "chunk {number}: the server sent an error: {summary}",
            number=self.chunk_number,
            summary=summary or _("no details"),
        )
        raise ProviderStreamError(
            said,
            provider="openai_chat",
            error_type=name,
            error_message=text,
            code=code,
            retryable=name in RETRYABLE,
            event_number=self.chunk_number,
            partial=self.completion(),
        )

    def snapshot(self) -> dict[str, Any] | None:
        return self.completion()

    def result(self) -> dict[str, Any]:
        return self.completion() or {}

    def completion(self) -> dict[str, Any] | None:
        """The completion so far (a new dict, shaped as the API's `chat.completion`)."""
        if not self.chunk_number:
            return None
        choices = []
        for i, state in sorted(self.choices.items()):
            message = dict(state["message"])
            for (where, key), pieces in self.text.items():
                if where == i:
                    message[key] = "".join(pieces)
            if i in self.tool_calls:
                message["tool_calls"] = [
                    {
                        **call,
                        "function": {
                            **call["function"],
                            "arguments": "".join(self.arguments.get((i, at), [])),
                        },
                    }
                    for at, call in sorted(
                        enumerate(self.tool_calls[i]), key=lambda pair: pair[1]["index"]
                    )
                ]
            choices.append(copy.deepcopy({**state, "message": message}))
        return {**copy.deepcopy(self.fields), "object": "chat.completion", "choices": choices}


def _error_in(chunk: dict[str, Any], event: str) -> Any:
    """The error a chunk reports (a dict, or a str), or None for a chunk of the completion.

    Servers say it four ways: an `error` member (OpenAI), the chunk itself with
    `object: "error"` (vLLM, and servers built like it), an SSE event named
    `error` whatever its data, and an error object with no wrapper: a `message`
    and no `choices`, which every chunk of a completion has."""
    if chunk.get("error"):
        return chunk["error"]
    if event == "error" or chunk.get("object") == "error":
        return chunk
    if "choices" not in chunk and isinstance(chunk.get("message"), str):
        return chunk
    return None


def _empty(value: Any) -> bool:
    """An empty string, 0 or an empty list or object: no value to keep over a real one."""
    return value in ("", 0, [], {}) and value is not False


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
    `role`, `content` / `refusal` / `reasoning_content` / `tool_calls`, `finish_reason`,
    `logprobs`), `usage` and `moderation` when the stream sent them; fields the wire
    never sent are left out.

    Raises `EventDataError` (data that is not JSON, `[DONE]` aside),
    `ProviderStreamError` (an error sent after HTTP 200: `.code`, `.error_message`,
    `.retryable`) and `IncompleteStreamError` (no `[DONE]`), each with `.partial`: the
    completion so far.
    """
    return run(ChatCompletionAccumulator(), chunks, end=DONE)


async def aaccumulate(chunks: AsyncIterable[bytes]) -> dict[str, Any]:
    """`accumulate` over async byte chunks: the same completion, or the same error.

    >>> import asyncio
    >>> async def body():
    ...     yield b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}]}\\n\\n'
    ...     yield b"data: [DONE]\\n\\n"
    >>> asyncio.run(aaccumulate(body()))["choices"][0]["message"]
    {'content': 'Hi'}
    """
    return await arun(ChatCompletionAccumulator(), chunks, end=DONE)
