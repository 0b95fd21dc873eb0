"""The referees: each provider's own SDK, fed our bytes offline.

As for the Messages API (`tools/sdk.py`), an SDK never computes an answer here, it
only checks one. Every SDK below sits on `httpx2` and takes a client of ours whose
`MockTransport` answers every request with the fixture's bytes (cut in chunks of
`chunk_size`): no network, placeholder keys, fake AWS credentials for Bedrock (the
request is signed, never sent).

- `openai_chat`: `client.chat.completions.stream(...)`, then `get_final_completion()`;
- `openai_responses`: `client.responses.stream(...)`, then `get_final_response()`;
- `gemini`: `client.models.generate_content_stream(...)` gives the chunks; the SDK
  joins nothing, so `merge_gemini_chunks` joins them as a client does;
- `bedrock`: `anthropic.AnthropicBedrock`'s `messages.stream(...)`, then
  `get_final_message()`.

The SDKs are the optional extra `providers` (`pip install -e '.[providers]'`); this
module imports them only when a referee runs. It lives with the front-end tools, beside
the Messages API's referee (`tools/sdk.py`), so that the wires (`providers/`) import
only the pipeline and the errors. `python -m streaming_lib.tools.provider_sdk
regenerate` rewrites every `fixtures/providers/<wire>/NAME.sdk.json` (the SDK's
verdict) and `NAME.expected.json` (ours), and first rebuilds Bedrock's `.bin` files
from `fixtures.BEDROCK_STREAMS`.

    >>> sorted(REFEREES)
    ['bedrock', 'gemini', 'openai_chat', 'openai_responses']
"""

from __future__ import annotations

import asyncio
import sys
import warnings
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

import httpx2

from ..errors import StreamError
from ..providers import bedrock, gemini, openai_chat, openai_responses
from . import provider_fixtures as fixtures
from .sdk import _ChunkedBody, verdict_text, write_atomically

MODELS = {  # sent in the requests only; the answer is the fixture
    "openai_chat": "gpt-5-mini",
    "openai_responses": "gpt-5-mini",
    "gemini": "gemini-2.5-flash",
    "bedrock": "anthropic.claude-sonnet-4-5-20250929-v1:0",
}
CONTENT_TYPES = {"bedrock": "application/vnd.amazon.eventstream"}
PROMPT = "What is the weather in Paris?"


def mock_http_client(raw: bytes, wire: str, chunk_size: int | None = None) -> httpx2.Client:
    """An `httpx2.Client` that answers every request with `raw` as a 200 body, in chunks."""
    content_type = CONTENT_TYPES.get(wire, "text/event-stream")

    def answer(request: httpx2.Request) -> httpx2.Response:
        body = _ChunkedBody(raw, chunk_size)
        return httpx2.Response(200, headers={"content-type": content_type}, stream=body)

    return httpx2.Client(transport=httpx2.MockTransport(answer))


def openai_chat_final(raw: bytes, chunk_size: int | None = None) -> dict[str, Any]:
    """The `openai` SDK's final chat completion (dict, `model_dump(exclude_none=True)`)."""
    import openai

    client = openai.OpenAI(
        api_key="test-key-not-used", http_client=mock_http_client(raw, "openai_chat", chunk_size)
    )
    request = {"model": MODELS["openai_chat"], "messages": [{"role": "user", "content": PROMPT}]}
    with client.chat.completions.stream(**request) as stream:  # type: ignore[arg-type]
        for _ in stream:
            pass
        final = stream.get_final_completion()
    return final.model_dump(mode="json", exclude_none=True, warnings=False)


def openai_responses_final(raw: bytes, chunk_size: int | None = None) -> dict[str, Any]:
    """The `openai` SDK's final response (dict, `model_dump(exclude_none=True)`)."""
    import openai

    client = openai.OpenAI(
        api_key="test-key-not-used",
        http_client=mock_http_client(raw, "openai_responses", chunk_size),
    )
    with client.responses.stream(model=MODELS["openai_responses"], input=PROMPT) as stream:
        for _ in stream:
            pass
        final = stream.get_final_response()
    return final.model_dump(mode="json", exclude_none=True, warnings=False)


def gemini_chunks(raw: bytes, chunk_size: int | None = None) -> list[Any]:
    """The `google-genai` SDK's chunks (`GenerateContentResponse` objects), as it yields them."""
    from google import genai
    from google.genai import types

    options = types.HttpOptions(httpx_client=mock_http_client(raw, "gemini", chunk_size))
    client = genai.Client(api_key="test-key-not-used", http_options=options)
    stream = client.models.generate_content_stream(model=MODELS["gemini"], contents=PROMPT)
    return list(stream)


def gemini_final(raw: bytes, chunk_size: int | None = None) -> dict[str, Any]:
    """The SDK's chunks for `raw`, joined as a client joins them (`merge_gemini_chunks`)."""
    return merge_gemini_chunks(gemini_chunks(raw, chunk_size))


def merge_gemini_chunks(chunks: list[Any]) -> dict[str, Any]:
    """One response (dict, the API's camelCase names) from the SDK's typed chunks: per
    candidate, text parts that follow one another (answer or thought) joined into one,
    other parts kept; the last `finishReason`, `safetyRatings`, `usageMetadata` win.

    Written on the SDK's objects (`candidate.content.parts`, `part.text`, ...), so it
    reads what the SDK parsed, not our bytes."""
    merged: dict[str, Any] = {}
    candidates: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for name in ("usage_metadata", "model_version", "response_id", "prompt_feedback"):
            value = getattr(chunk, name)
            if value is not None:
                merged[name] = value
        for position, candidate in enumerate(chunk.candidates or []):
            index = candidate.index if candidate.index is not None else position
            state = candidates.setdefault(index, {"index": index, "parts": []})
            for name in ("finish_reason", "safety_ratings", "citation_metadata"):
                if getattr(candidate, name) is not None:
                    state[name] = getattr(candidate, name)
            if candidate.content is None:
                continue
            if candidate.content.role is not None:
                state["role"] = candidate.content.role
            for part in candidate.content.parts or []:
                data = part.model_dump(mode="json", exclude_none=True, by_alias=True)
                last = state["parts"][-1] if state["parts"] else None
                if (
                    _text_only(data)
                    and last is not None
                    and _text_only(last)
                    and bool(last.get("thought")) == bool(data.get("thought"))
                ):
                    last["text"] += data["text"]
                else:
                    state["parts"].append(data)
    return {
        **{_camel(name): _dump(value) for name, value in merged.items()},
        **(
            {"candidates": [_candidate(state) for _, state in sorted(candidates.items())]}
            if candidates
            else {}
        ),
    }


def _candidate(state: dict[str, Any]) -> dict[str, Any]:
    content = {"parts": state["parts"], **({"role": state["role"]} if "role" in state else {})}
    fields = {
        _camel(name): _dump(state[name])
        for name in ("finish_reason", "safety_ratings", "citation_metadata")
        if name in state
    }
    return {"index": state["index"], "content": content, **fields}


def _text_only(part: dict[str, Any]) -> bool:
    return isinstance(part.get("text"), str) and set(part) <= {"text", "thought"}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _dump(value: Any) -> Any:
    if isinstance(value, list):
        return [_dump(item) for item in value]
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True, by_alias=True)
    return getattr(value, "value", value)  # an enum: its wire string


def bedrock_final(raw: bytes, chunk_size: int | None = None) -> dict[str, Any]:
    """`anthropic.AnthropicBedrock`'s final message (dict) for a Bedrock stream body."""
    import anthropic

    client = anthropic.AnthropicBedrock(
        aws_access_key="AKIDEXAMPLE",
        aws_secret_key="fake-secret-for-offline-signing",
        aws_region="us-east-1",
        http_client=mock_http_client(raw, "bedrock", chunk_size),
        max_retries=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        manager = client.messages.stream(
            model=MODELS["bedrock"],
            max_tokens=1024,
            messages=[{"role": "user", "content": PROMPT}],
        )
    with manager as stream:
        for _ in stream:
            pass
        return stream.get_final_message().to_dict(mode="json", warnings=False)


def comparable(value: Any) -> Any:
    """`value` as the SDKs' `model_dump(exclude_none=True)` shows it: keys whose value is
    null left out, and every number a float (the SDKs' models make `created_at` one).

    >>> comparable({"a": None, "b": [1, {"c": None}], "d": True})
    {'b': [1.0, {}], 'd': True}
    """
    if isinstance(value, dict):
        return {key: comparable(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [comparable(item) for item in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return value


# wire -> (the SDK's final result for some bytes, ours)
REFEREES: dict[str, tuple[Callable[..., dict[str, Any]], Callable[..., dict[str, Any]]]] = {
    "openai_chat": (openai_chat_final, openai_chat.accumulate),
    "openai_responses": (openai_responses_final, openai_responses.accumulate),
    "gemini": (gemini_final, gemini.accumulate),
    "bedrock": (bedrock_final, bedrock.accumulate),
}


def sdk_verdict(wire: str, raw: bytes) -> dict[str, Any]:
    """What `wire`'s SDK makes of `raw`: `{"result": ...}` or `{"error": {"class", "message"}}`."""
    try:
        return {"result": REFEREES[wire][0](raw)}
    except Exception as error:  # the verdict records whatever the SDK raised
        return {"error": {"class": type(error).__name__, "message": str(error)}}


def our_verdict(wire: str, chunks: Iterable[bytes]) -> dict[str, Any]:
    """What our `accumulate` makes of a stream's chunks: `{"result": ...}` or
    `{"error": {"class", "message", "event_number", "offset", "partial"}}`."""
    return _verdict(lambda: REFEREES[wire][1](chunks))


def our_async_verdict(wire: str, chunks: Iterable[bytes]) -> dict[str, Any]:
    """`our_verdict`, by the wire's `aaccumulate` over the same chunks served by an
    async generator: the two must be equal (tests/test_providers.py)."""
    wires = {
        "openai_chat": openai_chat,
        "openai_responses": openai_responses,
        "gemini": gemini,
        "bedrock": bedrock,
    }

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    return _verdict(lambda: asyncio.run(wires[wire].aaccumulate(body())))


def _verdict(result: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return {"result": result()}
    except StreamError as error:
        where = {"event_number": error.event_number, "offset": error.offset}
        return {
            "error": {
                "class": type(error).__name__,
                "message": str(error),
                **where,
                "partial": error.partial,
            }
        }


def regenerate() -> list[Path]:
    """Rebuild Bedrock's `.bin` fixtures, then rewrite every wire's `NAME.sdk.json` and
    `NAME.expected.json`; return the files written (list of Path)."""
    written = []
    for name in fixtures.BEDROCK_STREAMS:
        target = fixtures.wire_dir("bedrock") / f"{name}.bin"
        target.write_bytes(fixtures.build_bedrock(name))
        written.append(target)
    for wire in fixtures.WIRES:
        for name in fixtures.fixture_names(wire):
            raw = fixtures.read_fixture(wire, name)
            for suffix, verdict in (
                (".sdk.json", sdk_verdict(wire, raw)),
                (".expected.json", our_verdict(wire, [raw])),
            ):
                target = fixtures.wire_dir(wire) / f"{name}{suffix}"
                write_atomically(target, verdict_text(verdict))
                written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m streaming_lib.tools.provider_sdk", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "command",
        choices=["regenerate"],
        help="rebuild the Bedrock .bin files and rewrite every verdict in fixtures/providers/",
    )
    parser.parse_args(argv)
    for path in regenerate():
        print(f"wrote {path.parent.name}/{path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
