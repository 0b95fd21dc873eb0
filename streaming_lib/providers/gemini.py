"""Gemini (`streamGenerateContent?alt=sse`): same lines and SSE, each event a whole response.

The wire (Gemini API reference, "models.streamGenerateContent"; with `alt=sse` the
answer is an SSE stream): every event is unnamed and its data one whole
`GenerateContentResponse` chunk: `candidates[i].content.parts` (this chunk's text,
or a `functionCall` with its `args` whole, never in pieces), `finishReason` on a
candidate's last chunk (`STOP`, `MAX_TOKENS`, `SAFETY`, ...), `usageMetadata`
(a running total: the last one counts), `modelVersion`, `responseId`. There is no
closing marker: the stream ends when the body does.

Nothing here is a delta to merge by index: the SDK hands each chunk over as it came
and leaves joining them to the client. `GeminiAccumulator` is that client: per
candidate (by its `index`), text parts that follow one another are joined into one
part (a thought summary's parts apart from the answer's), every other part
(`functionCall`, ...) is kept as it came; the last `finishReason`,
`safetyRatings`, `usageMetadata` win.

A failure midway comes as a bare JSON error object after the last event, on lines
of its own, without `data:` (`{"error": {"code": 503, "status": "UNAVAILABLE",
"message": ...}}`, often spread over several lines): the SSE rules ignore those
lines, so the stream alone would look cut. The decoder (`_sse.py`) hands such an
object on as an `error` event, and it is a `ProviderStreamError` with its `code`
and `status` (`.error_type`), retryable by the status (`RETRYABLE`), as the
`google-genai` SDK raises its `ServerError` for it.

One rule of SSE shows here: `data:value` (no space) is a data line as well as
`data: value` (WHATWG HTML 9.2.6: one leading space is removed *if there is one*).
The course's SSE decoder reads both; the `google-genai` SDK reads only lines that
start with `data: `, and drops the rest (fixtures/README.md shows both on the same
bytes).

    >>> chunk = b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},'
    >>> chunk += b'"finishReason":"STOP","index":0}]}\\n\\n'
    >>> accumulate([chunk])["candidates"][0]["content"]["parts"]
    [{'text': 'Hi'}]
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterable, Iterable
from typing import Any

from ..errors import EventDataError, IncompleteStreamError, ProviderStreamError
from ..language import _
from ._sse import arun, run

# Fields of a chunk that are running totals or final values: the last one sent wins.
RESPONSE_FIELDS = ("usageMetadata", "modelVersion", "responseId", "promptFeedback", "createTime")
CANDIDATE_FIELDS = (
    "finishReason",
    "finishMessage",
    "safetyRatings",
    "citationMetadata",
    "avgLogprobs",
)
# The statuses Google's API documents as worth retrying after a pause ("Retry
# strategy": 429, 500, 503, 504).
RETRYABLE = frozenset({"RESOURCE_EXHAUSTED", "INTERNAL", "UNAVAILABLE", "DEADLINE_EXCEEDED"})


class GeminiAccumulator:
    """Join a stream's `GenerateContentResponse` chunks (dicts) into one response (dict).

    `response()` is the merged response so far (None before the first chunk);
    `chunk_number` counts the chunks fed.
    """

    def __init__(self) -> None:
        self.chunk_number = 0
        self.fields: dict[str, Any] = {}
        # Candidates by `index`: their fields, and their parts as they will be
        # returned; `texts[(index, part)]` holds the pieces of a text part.
        self.candidates: dict[int, dict[str, Any]] = {}
        self.texts: dict[tuple[int, int], list[str]] = {}

    done = False  # no closing marker: the body's end is the stream's

    @property
    def number(self) -> int:
        return self.chunk_number

    def feed(self, chunk: dict[str, Any], event: str = "message") -> None:
        """Apply one chunk (dict, an event's data parsed as JSON); `event` is its SSE
        event type (`error` says the data is an error)."""
        self.chunk_number += 1
        if chunk.get("error") or event == "error":
            self._raise_error(chunk.get("error") or chunk)
        try:
            for key in RESPONSE_FIELDS:
                if key in chunk:
                    self.fields[key] = copy.deepcopy(chunk[key])
            for position, candidate in enumerate(chunk.get("candidates") or []):
                index = candidate.get("index")
                if index is None:  # left out (or null) for a single candidate
                    index = position
                elif type(index) is not int:  # candidates are sorted by it
                    raise TypeError(f"a candidate's index is {index!r}, not a whole number")
                self._feed_candidate(index, candidate)
        except (KeyError, TypeError, AttributeError) as error:
            raise EventDataError(
                _("chunk {number}: malformed ({error!r})", number=self.chunk_number, error=error),
                data=repr(chunk),
                event_number=self.chunk_number,
                partial=self.response(),
            ) from None

    def _feed_candidate(self, i: int, candidate: dict[str, Any]) -> None:
        state = self.candidates.setdefault(i, {"index": i, "content": {"parts": []}})
        for key in CANDIDATE_FIELDS:
            if key in candidate:
                state[key] = copy.deepcopy(candidate[key])
        content = candidate.get("content") or {}
        if "role" in content:
            state["content"]["role"] = content["role"]
        parts = state["content"]["parts"]
        for part in content.get("parts") or []:
            last = parts[-1] if parts else None
            if _is_text(part) and last is not None and _is_text(last) and _same_kind(last, part):
                self.texts[i, len(parts) - 1].append(part["text"])
                continue
            parts.append({key: copy.deepcopy(value) for key, value in part.items()})
            if _is_text(part):
                self.texts[i, len(parts) - 1] = [part["text"]]

    def _raise_error(self, error: Any) -> None:
        details = error if isinstance(error, dict) else {"message": str(error)}
        status, code = details.get("status"), details.get("code")
        kind = status if isinstance(status, str) else None
        text = str(details.get("message") or "")
        summary = ": ".join(str(part) for part in (code, kind, text) if part not in (None, ""))
        said = _(
            "chunk {number}: the server sent an error: {summary}",
            number=self.chunk_number,
            summary=summary or _("no details"),
        )
        raise ProviderStreamError(
            said,
            provider="gemini",
            error_type=kind,
            error_message=text,
            code=code,
            retryable=kind in RETRYABLE,
            event_number=self.chunk_number,
            partial=self.response(),
        )

    def snapshot(self) -> dict[str, Any] | None:
        return self.response()

    def result(self) -> dict[str, Any]:
        """The merged response; `IncompleteStreamError` if a candidate has no finishReason."""
        if not self.finished():
            raise IncompleteStreamError(
                _(
                    "the stream ended after chunk {number} without a finishReason",
                    number=self.chunk_number,
                )
            )
        return self.response()  # type: ignore[return-value]

    def finished(self) -> bool:
        """True once every candidate has its `finishReason` (or the prompt was blocked)."""
        blocked = "blockReason" in (self.fields.get("promptFeedback") or {})
        states = self.candidates.values()
        return blocked or (bool(states) and all("finishReason" in c for c in states))

    def response(self) -> dict[str, Any] | None:
        """The merged response so far (a new dict), shaped as one `GenerateContentResponse`."""
        if not self.chunk_number:
            return None
        candidates = []
        for i, state in sorted(self.candidates.items()):
            parts = [
                {**part, "text": "".join(self.texts[i, n])} if (i, n) in self.texts else part
                for n, part in enumerate(state["content"]["parts"])
            ]
            candidates.append({**state, "content": {**state["content"], "parts": parts}})
        merged = copy.deepcopy(self.fields)
        if candidates:
            merged["candidates"] = candidates
        return merged


def _is_text(part: dict[str, Any]) -> bool:
    return isinstance(part.get("text"), str) and set(part) <= {"text", "thought"}


def _same_kind(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return bool(a.get("thought")) == bool(b.get("thought"))


def accumulate(chunks: Iterable[bytes]) -> dict[str, Any]:
    """One merged response (dict) from a Gemini stream given as byte chunks cut anywhere
    (or one bytes object): `candidates` (each `index`, `content` with `role` and
    `parts`, text joined, `finishReason`, `safetyRatings`), `usageMetadata`,
    `modelVersion`, `responseId`, as the last chunk sent them.

    Raises `EventDataError` (data that is not a JSON object), `ProviderStreamError`
    (an `error` object in the stream) and `IncompleteStreamError` (the body ended
    before every candidate had its `finishReason`), each with `.partial`.
    """
    return run(GeminiAccumulator(), chunks)


async def aaccumulate(chunks: AsyncIterable[bytes]) -> dict[str, Any]:
    """`accumulate` over async byte chunks: the same response, or the same error.

    >>> import asyncio
    >>> async def body():
    ...     yield b'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}\\r\\n\\r\\n'
    ...     yield b'{"error": {"code": 503, "status": "UNAVAILABLE", "message": "Try later"}}'
    >>> try:
    ...     asyncio.run(aaccumulate(body()))
    ... except ProviderStreamError as error:
    ...     print(error.code, error.error_type, error.retryable, error.partial["candidates"])
    503 UNAVAILABLE True [{'index': 0, 'content': {'parts': [{'text': 'Hi'}]}}]
    """
    return await arun(GeminiAccumulator(), chunks)
