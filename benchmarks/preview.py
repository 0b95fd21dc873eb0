"""Benchmarks 1 and 2: keeping a live preview of a tool input that streams in.

The stream is `streams.tool_stream(size)`: a `write_file` call whose input
JSON is `size` bytes, in 16-character fragments. Every contender reads the
same bytes, in the same 4 KiB chunks, from the first byte to the final message:

- **the SDK**: `messages.stream()` iterated to the end (through
  `streaming_lib.tools.sdk`). At every fragment it appends it to a byte buffer and
  re-parses the whole buffer with `jiter.from_json(buffer, partial_mode=True)`,
  so fragment k costs the k fragments before it: quadratic.
- **ours, changes** (benchmark 1): our pipeline (`iter_events`, which is
  `iter_sse` and `decode_event` in one loop, then `MessageAccumulator`); after
  each event, the `AppendString` changes to `content` in `acc.input_changes`
  are appended to a preview list. Each character is read once: linear.
- **ours, snapshots** (benchmark 2): the same pipeline, and after every
  fragment a full snapshot of the input, `acc.input_snapshot(index,
  trailing_strings=True)`. That is a value the SDK never gives (its snapshot
  leaves the unfinished `content` out), and it copies the growing string each
  time: quadratic, but at memory-copy speed.
- **ours, snapshots without trailing strings**: the value the SDK computes,
  `input_snapshot(index)`, for a like-for-like row.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from streaming_lib import MessageAccumulator, PartialJSONError, iter_events
from streaming_lib.accumulator import feed_chunk
from streaming_lib.fast import FastEventDecoder
from streaming_lib.partial_json import AppendString
from streaming_lib.tools.fixtures import chunked
from streaming_lib.tools.sdk import compare_messages, sdk_final_message

from .report import size_text
from .streams import FRAGMENT_CHARS, tool_fragments, tool_stream
from .timing import extrapolate, interleaved_best, slope

CHUNK = 4096  # bytes per network read, for every contender
CONTENT = ("content",)  # the path of the string the preview shows
SDK_SLOW = 5.0  # seconds: an SDK run predicted to be slower is made only
SDK_SLOW_RUNS = 2  # this many times (or fewer, with fewer repeats)


def _pipeline(
    chunks: list[bytes], on_fragment: Callable[[MessageAccumulator, dict[str, Any]], None]
) -> dict[str, Any]:
    """Our pipeline over `chunks` to the final message (benchmark 2).

    Calls `on_fragment(acc, event)` after each input_json_delta.
    """
    acc = MessageAccumulator()
    for event in iter_events(chunks):
        acc.feed(event)
        if event["type"] == "content_block_delta" and event["delta"]["type"] == "input_json_delta":
            on_fragment(acc, event)
    return acc.final_message()


def ours_changes(chunks: list[bytes]) -> tuple[dict[str, Any], list[str]]:
    """Benchmark 1, ours: (final message, preview pieces of `content`).

    The loop a UI would write: after every event, apply what `input_changes`
    lists (it is empty for events other than `input_json_delta`)."""
    acc, shown = MessageAccumulator(), []
    for event in iter_events(chunks):
        acc.feed(event)
        for change in acc.input_changes:
            if type(change) is AppendString and change.path == CONTENT:
                shown.append(change.text)
    return acc.final_message(), shown


def ours_unread_changes(chunks: list[bytes]) -> tuple[dict[str, Any], list[str]]:
    """Benchmark 7, the preview a display that draws once per network chunk keeps:
    (final message, preview pieces of `content`). After each chunk's events are
    fed (`accumulator.feed_chunk`, as `accumulate` feeds them), the `AppendString`
    changes to `content` in `acc.unread_input_changes(index)` of each tool block
    are appended: the fragments of the chunk are parsed in one call."""
    acc, decoder, shown = MessageAccumulator(), FastEventDecoder(), []
    for chunk in [*chunks, None]:
        done = feed_chunk(acc, decoder, chunk, None)
        for index in acc.input_parsers:
            for change in acc.unread_input_changes(index):
                if type(change) is AppendString and change.path == CONTENT:
                    shown.append(change.text)
        if done:
            break
    return acc.final_message(), shown


def ours_snapshots(
    chunks: list[bytes], trailing_strings: bool = True
) -> tuple[dict[str, Any], Any]:
    """Benchmark 2, ours: (final message, the last snapshot taken)."""
    last: list[Any] = [None]

    def on_fragment(acc: MessageAccumulator, event: dict[str, Any]) -> None:
        # (Not contextlib.suppress, a context manager made per fragment: the loop
        # a UI would write, and the library's time, not contextlib's.)
        try:  # noqa: SIM105
            last[0] = acc.input_snapshot(event["index"], trailing_strings=trailing_strings)
        except PartialJSONError:  # no value yet: nothing to show
            pass

    return _pipeline(chunks, on_fragment), last[0]


def _check(size: int, results: dict[str, Any]) -> None:
    """Every contender must have computed the same thing, or its time means nothing."""
    message, shown = results["changes"]
    tool_input = message["content"][1]["input"]
    assert "".join(shown) == tool_input["content"], (
        f"{size}: the preview differs from the final content"
    )
    for name in ("snapshots", "snapshots_no_trailing"):
        final, last = results[name]
        assert final == message and last == tool_input, f"{size}: {name} differs"
    if results.get("sdk") is not None:
        differences = compare_messages(message, results["sdk"])
        assert not differences, f"{size}: the SDK's message differs: {differences[:3]}"


def run(
    sizes: list[int],
    *,
    repeats: int = 3,
    sdk_budget: float = 180.0,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Time every contender at every tool input size (bytes); return the rows and slopes.

    The SDK is skipped, and its time extrapolated from the two largest sizes
    already measured, when that line predicts more than `sdk_budget` seconds.
    """
    rows: list[dict[str, Any]] = []
    for size in sizes:
        raw = tool_stream(size)
        chunks = chunked(raw, CHUNK)
        contenders: dict[str, tuple[Callable[[], Any], int]] = {
            "changes": (partial(ours_changes, chunks), repeats),
            "snapshots": (partial(ours_snapshots, chunks), repeats),
            "snapshots_no_trailing": (
                partial(ours_snapshots, chunks, trailing_strings=False),
                repeats,
            ),
        }
        # Predicted from the slope between the two largest measured sizes: the SDK's
        # slope still rises with size (towards 2), so a fit over all sizes errs lower.
        measured = [(row["size"], row["sdk_s"]) for row in rows if not row["sdk_extrapolated"]][-2:]
        predicted = (
            extrapolate([s for s, _ in measured], [t for _, t in measured], size)
            if len(measured) == 2
            else None
        )
        skip_sdk = predicted is not None and predicted > sdk_budget
        sdk_runs = (
            min(SDK_SLOW_RUNS, repeats)
            if predicted is not None and predicted > SDK_SLOW
            else repeats
        )
        if not skip_sdk:
            contenders["sdk"] = (partial(sdk_final_message, raw, chunk_size=CHUNK), sdk_runs)
        log(
            f"  preview: {size_text(size)} input, {len(raw) / 1e6:.1f} MB stream"
            + (
                f", SDK extrapolated ({predicted:.0f} s > budget {sdk_budget:.0f} s)"
                if skip_sdk
                else f", SDK {sdk_runs} run(s)"
                + (f" (predicted {predicted:.1f} s)" if predicted else "")
            )
        )
        timed = interleaved_best(contenders)
        _check(size, {name: result for name, (_, result) in timed.items()})
        rows.append(
            {
                "size": size,
                "input_bytes": len("".join(tool_fragments(size)).encode()),
                "stream_bytes": len(raw),
                "fragments": len(tool_fragments(size)),
                "ours_changes_s": timed["changes"][0],
                "ours_snapshots_s": timed["snapshots"][0],
                "ours_snapshots_no_trailing_s": timed["snapshots_no_trailing"][0],
                "sdk_s": predicted if skip_sdk else timed["sdk"][0],
                "sdk_extrapolated": skip_sdk,
                "sdk_runs": 0 if skip_sdk else sdk_runs,
                "ours_runs": repeats,
            }
        )
    return {
        "chunk_bytes": CHUNK,
        "fragment_chars": FRAGMENT_CHARS,
        "rows": rows,
        "slopes": _slopes(rows),
    }


def _slopes(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """Log-log slope of each contender's times; the SDK's from its measured sizes only
    (an extrapolated time lies on the fitted line by construction). `sdk_top`: the
    SDK's slope between its two largest measured sizes, where it is heading."""
    slopes: dict[str, float | None] = {}
    for key in ("ours_changes", "ours_snapshots", "ours_snapshots_no_trailing", "sdk"):
        points = [
            (row["size"], row[f"{key}_s"])
            for row in rows
            if key != "sdk" or not row["sdk_extrapolated"]
        ]
        slopes[key] = (
            slope([x for x, _ in points], [y for _, y in points]) if len(points) > 1 else None
        )
        if key == "sdk":
            slopes["sdk_top"] = (
                slope([x for x, _ in points[-2:]], [y for _, y in points[-2:]])
                if len(points) > 2
                else None
            )
    return slopes
