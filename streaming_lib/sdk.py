"""The referee: the real `anthropic` SDK, fed the same bytes, offline.

The SDK is never used to compute an answer in this course, only to check one.
`sdk_final_message` hands raw stream bytes to `anthropic.Anthropic` through an
`httpx2.MockTransport` (no network, a dummy key), runs `messages.stream(...)`
to the end and returns `get_final_message()` as a dict. `compare_messages`
lists every field where two messages differ.

Run `python -m streaming_lib.sdk regenerate` to rewrite, next to every
`fixtures/NAME.sse`, the SDK's verdict `fixtures/NAME.sdk.json` (its final
message, or the exception it raised) and ours, `fixtures/NAME.expected.json`
(our final message, or the `StreamError` with where it happened and the
partial message). The two differ where we are stricter than the SDK: bytes
that end before `message_stop` give the SDK a message with `stop_reason`
null, and us an `IncompleteStreamError`.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2

from .accumulator import accumulate
from .errors import StreamError
from .fixtures import FIXTURES_DIR, fixture_names, read_fixture

MODEL = "claude-sonnet-5-5"  # sent in the request only; the answer is the fixture


class _ChunkedBody(httpx2.SyncByteStream):
    """A response body that arrives in chunks of `chunk_size` bytes (all at once if None)."""

    def __init__(self, raw: bytes, chunk_size: int | None) -> None:
        self.raw, self.chunk_size = raw, chunk_size

    def __iter__(self) -> Iterator[bytes]:
        step = self.chunk_size or max(len(self.raw), 1)
        for start in range(0, len(self.raw), step):
            yield self.raw[start : start + step]


def sdk_client(raw: bytes, *, chunk_size: int | None = None) -> anthropic.Anthropic:
    """An SDK client whose every request is answered, offline, with `raw` as an SSE body."""

    def answer(request: httpx2.Request) -> httpx2.Response:
        headers = {"content-type": "text/event-stream; charset=utf-8", "request-id": "req_fixture"}
        return httpx2.Response(200, headers=headers, stream=_ChunkedBody(raw, chunk_size))

    http_client = httpx2.Client(transport=httpx2.MockTransport(answer))
    return anthropic.Anthropic(api_key="test-key-not-used", http_client=http_client, max_retries=0)


def sdk_final_message(raw: bytes, *, chunk_size: int | None = None) -> dict[str, Any]:
    """The SDK's final message (dict, `to_dict()`) for a stream body `raw` (bytes)
    delivered in chunks of `chunk_size` bytes. Raises whatever the SDK raises."""
    client = sdk_client(raw, chunk_size=chunk_size)
    with warnings.catch_warnings():  # the model name is a placeholder: no deprecation notices
        warnings.simplefilter("ignore", DeprecationWarning)
        manager = client.messages.stream(model=MODEL, max_tokens=1024, messages=[{"role": "user", "content": "fix calc.py"}])
    with manager as stream:
        for _ in stream:
            pass
        # JSON mode: values as the wire had them (a timestamp stays a string);
        # no warnings about block types the SDK's models do not know.
        return stream.get_final_message().to_dict(mode="json", warnings=False)


def compare_messages(ours: Any, theirs: Any, path: str = "message") -> list[str]:
    """Differences between two messages, one readable line each (empty list: equal).

    A key the SDK fills with null but the wire never sent (so `ours` lacks it)
    counts as equal: the SDK's models add such fields, the API did not send them.
    """
    if isinstance(ours, dict) and isinstance(theirs, dict):
        differences = []
        for key in sorted(set(ours) | set(theirs), key=str):
            where = f"{path}.{key}"
            if key not in ours:
                if theirs[key] is not None:
                    differences.append(f"{where}: missing here, SDK has {theirs[key]!r}")
            elif key not in theirs:
                differences.append(f"{where}: {ours[key]!r} here, missing in the SDK's")
            else:
                differences += compare_messages(ours[key], theirs[key], where)
        return differences
    if isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            return [f"{path}: {len(ours)} items here, {len(theirs)} in the SDK's"]
        return [d for i, (a, b) in enumerate(zip(ours, theirs)) for d in compare_messages(a, b, f"{path}[{i}]")]
    if ours != ours and theirs != theirs:
        return []  # NaN on both sides: equal, though NaN != NaN
    if ours != theirs or type(ours) is not type(theirs):
        return [f"{path}: {ours!r} here, {theirs!r} in the SDK's"]
    return []


def sdk_verdict(raw: bytes) -> dict[str, Any]:
    """What the SDK makes of a stream: `{"message": ...}` or `{"error": {"class": ..., "message": ...}}`."""
    try:
        return {"message": sdk_final_message(raw)}
    except Exception as error:  # the verdict records whatever the SDK raised
        return {"error": {"class": type(error).__name__, "message": str(error)}}


def our_verdict(raw: bytes) -> dict[str, Any]:
    """What this course's `accumulate` makes of a stream: `{"message": ...}` or
    `{"error": {"class", "message", "event_number", "index", "partial"}}`."""
    try:
        return {"message": accumulate(raw)}
    except StreamError as error:
        where = {"event_number": error.event_number, "index": error.index, "partial": error.partial}
        return {"error": {"class": type(error).__name__, "message": str(error), **where}}


def verdict_text(verdict: dict[str, Any]) -> str:
    """A verdict as the text of its JSON file (stable: sorted keys, raw UTF-8)."""
    return json.dumps(verdict, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def regenerate(directory: Path = FIXTURES_DIR) -> list[Path]:
    """Rewrite `NAME.sdk.json` and `NAME.expected.json` beside every fixture in
    `directory`; return the files written."""
    written = []
    for name in fixture_names(directory):
        raw = read_fixture(name, directory)
        for suffix, verdict in ((".sdk.json", sdk_verdict(raw)), (".expected.json", our_verdict(raw))):
            target = directory / f"{name}{suffix}"
            target.write_text(verdict_text(verdict), encoding="utf-8")
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m streaming_lib.sdk", description=__doc__.splitlines()[0])
    parser.add_argument(
        "command", choices=["regenerate"], help="rewrite fixtures/*.sdk.json (the SDK's verdicts) and *.expected.json (ours)"
    )
    parser.add_argument("--dir", type=Path, default=FIXTURES_DIR, help="the fixtures folder")
    args = parser.parse_args(argv)
    for path in regenerate(args.dir):
        print(f"wrote {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
