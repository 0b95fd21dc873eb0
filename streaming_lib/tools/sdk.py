"""The referee: the real `anthropic` SDK, fed the same bytes, offline.

The SDK is never used to compute an answer in this course, only to check one.
`sdk_final_message` hands raw stream bytes to `anthropic.Anthropic` through an
`httpx2.MockTransport` (no network, a dummy key), runs `messages.stream(...)`
to the end and returns `get_final_message()` as a dict. `compare_messages`
lists every field where two messages differ.

Run `python -m streaming_lib.tools.sdk regenerate` to rewrite, next to every
`fixtures/NAME.sse`, the SDK's verdict `fixtures/NAME.sdk.json` (its final
message, or the exception it raised) and ours, `fixtures/NAME.expected.json`
(our final message, or the `StreamError` with where it happened and the
partial message). The two differ where we are stricter than the SDK: bytes
that end before `message_stop` give the SDK a message with `stop_reason`
null, and us an `IncompleteStreamError`.

`regenerate` never leaves a verdict file empty or half written: each file is
written whole to a temporary file beside it, then renamed over the old one
(`os.replace`, atomic on the same file system). A verdict may hold text no
UTF-8 file can: a stream that sends the two halves of a surrogate pair in
separate deltas leaves the SDK's text (and any concatenation of Python str)
with lone surrogates. `verdict_text` writes those code points, and only
those, as JSON escapes (`\\ud83d`), so the file is valid UTF-8 and reads back
as the same JSON string (a reader joins an escaped high-low pair into one
character, as JSON says: RFC 8259, section 7).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2

from ..accumulator import accumulate
from ..errors import StreamError
from ..lab.api import DEFAULT_MODEL, SSE_CONTENT_TYPE
from .fixtures import FIXTURES_DIR, fixture_names, read_fixture

MODEL = DEFAULT_MODEL  # sent in the request only; the answer is the fixture


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
        headers = {"content-type": SSE_CONTENT_TYPE, "request-id": "req_fixture"}
        return httpx2.Response(200, headers=headers, stream=_ChunkedBody(raw, chunk_size))

    http_client = httpx2.Client(transport=httpx2.MockTransport(answer))
    return anthropic.Anthropic(api_key="test-key-not-used", http_client=http_client, max_retries=0)


def sdk_final_message(
    raw: bytes, *, chunk_size: int | None = None, beta: bool = False
) -> dict[str, Any]:
    """The SDK's final message (dict, `to_dict()`) for a stream body `raw` (bytes)
    delivered in chunks of `chunk_size` bytes. Raises whatever the SDK raises.

    `beta=True` asks `client.beta.messages.stream` instead of `client.messages.stream`:
    only the beta client knows the beta-only blocks (`mcp_tool_use`, whose input
    the other one leaves `{}`), as a program that uses the MCP connector must."""
    client = sdk_client(raw, chunk_size=chunk_size)
    messages = client.beta.messages if beta else client.messages
    with warnings.catch_warnings():  # the model name is a placeholder: no deprecation notices
        warnings.simplefilter("ignore", DeprecationWarning)
        manager = messages.stream(
            model=MODEL, max_tokens=1024, messages=[{"role": "user", "content": "fix calc.py"}]
        )
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
        return [
            d
            for i, (a, b) in enumerate(zip(ours, theirs, strict=True))
            for d in compare_messages(a, b, f"{path}[{i}]")
        ]
    if ours != ours and theirs != theirs:
        return []  # NaN on both sides: equal, though NaN != NaN
    if ours != theirs or type(ours) is not type(theirs):
        return [f"{path}: {ours!r} here, {theirs!r} in the SDK's"]
    return []


def sdk_verdict(raw: bytes, *, beta: bool = False) -> dict[str, Any]:
    """What the SDK makes of a stream: `{"message": ...}` or `{"error": {"class": ..., "message":
    ...}}`
    (`beta`: as in `sdk_final_message`)."""
    try:
        return {"message": sdk_final_message(raw, beta=beta)}
    except Exception as error:  # the verdict records whatever the SDK raised
        return {"error": {"class": type(error).__name__, "message": str(error)}}


def our_verdict(raw: bytes) -> dict[str, Any]:
    """What this course's `accumulate` makes of a stream: `{"message": ...}` or
    `{"error": {"class", "message", "event_number", "index", "partial"}}`.

    Any other exception is a fault of ours, not of the stream: it is recorded as
    `{"error": {"class", "message"}}` so that `regenerate` finishes and the
    fixture tests, which expect a message or a `StreamError`, show it."""
    try:
        return {"message": accumulate(raw)}
    except StreamError as error:
        where = {"event_number": error.event_number, "index": error.index, "partial": error.partial}
        return {"error": {"class": type(error).__name__, "message": str(error), **where}}
    except Exception as error:  # a bug of ours: recorded, never a crash halfway through regenerate
        return {"error": {"class": type(error).__name__, "message": str(error)}}


# A UTF-16 surrogate code point (U+D800 to U+DFFF): in a Python str, only a
# lone one (or a pair that was never joined into one character). UTF-8 cannot
# encode it, so it is written as a JSON escape.
SURROGATE = re.compile(r"[\ud800-\udfff]")


def verdict_text(verdict: dict[str, Any]) -> str:
    r"""A verdict as the text of its JSON file (str; stable: sorted keys, raw UTF-8).

    Surrogate code points, which UTF-8 cannot encode, are written as JSON
    escapes, so the text always encodes to UTF-8; a value JSON has no form for
    is written as its repr rather than raising.

    >>> print(verdict_text({"text": "é \ud83d"}), end="")
    {
      "text": "é \ud83d"
    }
    """
    text = json.dumps(verdict, indent=2, ensure_ascii=False, sort_keys=True, default=repr)
    # json.dumps only lets raw non-ASCII through inside strings, so each
    # surrogate found here is inside a string, where its escape means the same.
    return SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text) + "\n"


def write_atomically(target: Path, text: str) -> None:
    """Write `text` (str) to `target` as UTF-8: whole or not at all.

    The bytes go to a temporary file in the same folder, which then replaces
    `target` (`os.replace`: atomic on one file system). If anything fails, the
    old `target` is left as it was and the temporary file is removed."""
    data = text.encode("utf-8")  # before any file is touched: an error here writes nothing
    mode = (
        target.stat().st_mode & 0o777 if target.exists() else 0o644
    )  # mkstemp's file is private (0600)
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        os.chmod(temporary, mode)
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def regenerate(directory: Path = FIXTURES_DIR) -> list[Path]:
    """Rewrite `NAME.sdk.json` and `NAME.expected.json` beside every fixture in
    `directory`; return the files written (list of Path).

    Each file is written whole or not at all (`write_atomically`); a verdict
    holding lone surrogates is written with JSON escapes (`verdict_text`)."""
    written = []
    for name in fixture_names(directory):
        raw = read_fixture(name, directory)
        for suffix, verdict in (
            (".sdk.json", sdk_verdict(raw)),
            (".expected.json", our_verdict(raw)),
        ):
            target = directory / f"{name}{suffix}"
            write_atomically(target, verdict_text(verdict))
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m streaming_lib.tools.sdk", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "command",
        choices=["regenerate"],
        help="rewrite fixtures/*.sdk.json (the SDK's verdicts) and *.expected.json (ours)",
    )
    parser.add_argument("--dir", type=Path, default=FIXTURES_DIR, help="the fixtures folder")
    args = parser.parse_args(argv)
    for path in regenerate(args.dir):
        print(f"wrote {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
