"""The results as a table with ratios, and the targets each benchmark must meet.

Input: the `results` dict built by `benchmarks.__main__` (the same one written
to results.json). A ratio is the SDK's time over ours: 12x means ours took a
twelfth of the time. Nothing here measures; it only reads.
"""

from __future__ import annotations

from typing import Any

from .streams import KiB, MiB


def size_text(size: int) -> str:
    """16384 -> '16 KiB', 1048576 -> '1 MiB', 64 -> '64 B'."""
    for unit, name in ((MiB, "MiB"), (KiB, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size} B"


def seconds_text(seconds: float) -> str:
    return f"{seconds:.3f} s" if seconds < 10 else f"{seconds:.1f} s"


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True))
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target: what it asks (`goal`), what was measured (`value`), `passed`, and a `note`."""
    found: list[dict[str, Any]] = []

    def add(name: str, goal: str, value: float, passed: bool, note: str = "") -> None:
        found.append(
            {"name": name, "goal": goal, "value": round(value, 2), "passed": passed, "note": note}
        )

    preview = results.get("preview")
    if preview:
        last = preview["rows"][-1]
        at = size_text(last["size"])
        note = "SDK time extrapolated, likely too low" if last["sdk_extrapolated"] else ""
        changes, snapshots = (
            last["sdk_s"] / last["ours_changes_s"],
            last["sdk_s"] / last["ours_snapshots_s"],
        )
        add(f"1. live preview (changes) vs SDK at {at}", ">= 100x", changes, changes >= 100, note)
        if preview["slopes"]["ours_changes"] is not None:
            first = size_text(preview["rows"][0]["size"])
            add(
                f"1. live preview (changes): log-log slope {first} to {at}",
                "<= 1.1",
                preview["slopes"]["ours_changes"],
                preview["slopes"]["ours_changes"] <= 1.1,
            )
        add(f"2. snapshot per fragment vs SDK at {at}", ">= 10x", snapshots, snapshots >= 10, note)
    pipeline = results.get("pipeline")
    if pipeline:
        ratio = pipeline["sdk_s"] / pipeline["ours_s"]
        add(
            "3. accumulate vs sdk_final_message, "
            f"{pipeline['stream_bytes'] / 1e6:.1f} MB text stream",
            ">= 5x",
            ratio,
            ratio >= 5,
        )
    decode = results.get("decode")
    if decode:
        rows = decode["rows"]
        ratios = {row["chunk_bytes"]: row["sdk_s"] / row["ours_s"] for row in rows}
        from_64 = {size: ratio for size, ratio in ratios.items() if size >= 64}
        if from_64:
            worst = min(from_64, key=from_64.get)  # type: ignore[arg-type]
            add(
                "4. decode vs SDK, every chunk size from 64 B",
                ">= 1.5x",
                from_64[worst],
                from_64[worst] >= 1.5,
                f"lowest at {size_text(worst)} chunks",
            )
        if 1 in ratios:
            add("4. decode vs SDK, 1-byte chunks", ">= 1.0x", ratios[1], ratios[1] >= 1.0)
        large = [row["ours_mb_s"] for row in rows if row["chunk_bytes"] >= 4096]
        if len(large) > 1:
            flatness = min(large) / max(large)
            add(
                "4. decode flat as chunks grow: slowest / fastest MB/s from 4 KiB",
                ">= 0.8",
                flatness,
                flatness >= 0.8,
            )
    frontends = results.get("frontends")
    if frontends and len(frontends["rows"]) > 2:
        slopes, sizes = frontends["slopes"], sorted({row["size"] for row in frontends["rows"]})
        span = f"{size_text(sizes[0])} to {size_text(sizes[-1])}"
        for number, name in ((5, "trace"), (6, "stepper")):
            for measure, what in (("time", "time"), ("memory", "peak memory")):
                worst = max(
                    (kind for kind in ("text", "tool")),
                    key=lambda kind: slopes[f"{name}_{kind}_{measure}"],
                )
                value = slopes[f"{name}_{worst}_{measure}"]
                add(
                    f"{number}. {name}: log-log slope of {what}, {span}",
                    "<= 1.1",
                    value,
                    value <= 1.1,
                    f"the higher of the text and tool streams: {worst}",
                )
    overhead = results.get("overhead")
    if overhead:
        rows = overhead["rows"]

        def worst_ratio(key: str, goal: float, what: str) -> None:
            """Add the target on the highest ratio `key` of every row."""
            worst = max(rows, key=lambda row: row[key])
            ratio = worst[key]
            add(
                f"7. {what}, every stream and size",
                f"<= {goal}x",
                ratio,
                ratio <= goal,
                f"highest on the {worst['stream']} stream at {size_text(worst['size'])}",
            )

        worst_ratio("accumulate_jiter_ratio", 1.3, "accumulate vs the jiter bound")
        worst_ratio("aaccumulate_jiter_ratio", 1.3, "aaccumulate vs the jiter bound")
        measured = {kind: value for kind, value in overhead["slopes"].items() if value is not None}
        if measured:
            kind = max(measured, key=measured.get)  # type: ignore[arg-type]
            add(
                "7. accumulate: log-log slope of time",
                "<= 1.05",
                measured[kind],
                measured[kind] <= 1.05,
                f"the highest of the {', '.join(measured)} streams: {kind}",
            )
        memory = max(rows, key=lambda row: row["accumulate_peak_bytes"] / row["stream_bytes"])
        times = memory["accumulate_peak_bytes"] / memory["stream_bytes"]
        add(
            "7. accumulate: peak memory / stream size",
            "<= 1.5x",
            times,
            times <= 1.5,
            f"highest on the {memory['stream']} stream at {size_text(memory['size'])}",
        )
        worst_ratio(
            "changes_ratio", 1.2, "the unread_input_changes preview (once per chunk) vs accumulate"
        )
        shapes = overhead.get("shapes") or []
        for key, goal, what in (
            ("snapshots_lower_ratio", 1.3, "input_snapshot after every fragment"),
            (
                "trailing_lower_ratio",
                1.6,
                "input_snapshot(trailing_strings=True) after every fragment",
            ),
        ):
            if shapes:
                worst = max(shapes, key=lambda row: row[key])
                add(
                    f"7. {what} vs the plain bound, every shape",
                    f"<= {goal}x",
                    worst[key],
                    worst[key] <= goal,
                    f"highest on {worst['shape']} at {size_text(worst['size'])}",
                )
    return found


def text(results: dict[str, Any]) -> str:
    """The whole report: one table per benchmark, then the targets with ✔ or ✘."""
    out: list[str] = []
    preview = results.get("preview")
    if preview:
        out.append(
            f"1 and 2. Live preview of a streaming write_file input "
            f"({preview['fragment_chars']}-character fragments, "
            f"{size_text(preview['chunk_bytes'])} chunks)"
        )
        rows = []
        for row in preview["rows"]:
            sdk = seconds_text(row["sdk_s"]) + (
                " (extrapolated)" if row["sdk_extrapolated"] else ""
            )
            cells = [
                size_text(row["size"]),
                f"{row['stream_bytes'] / 1e6:.1f} MB",
                str(row["fragments"]),
                sdk,
            ]
            for key in ("ours_changes_s", "ours_snapshots_s", "ours_snapshots_no_trailing_s"):
                cells += [seconds_text(row[key]), f"{row['sdk_s'] / row[key]:.0f}x"]
            rows.append(cells)
        header = [
            "input",
            "stream",
            "fragments",
            "SDK stream()",
            "ours: changes",
            "ratio",
            "ours: snapshots",
            "ratio",
            "snapshots, no trailing",
            "ratio",
        ]
        out.append(_table(header, rows))
        slopes = preview["slopes"]
        named = [
            (name, slopes[key])
            for name, key in (
                ("SDK", "sdk"),
                ("ours changes", "ours_changes"),
                ("ours snapshots", "ours_snapshots"),
                ("snapshots without trailing strings", "ours_snapshots_no_trailing"),
            )
            if slopes[key] is not None
        ]
        if named:
            out.append(
                "log-log slope (least squares over all sizes; the SDK's over its measured ones): "
                + ", ".join(f"{name} {value:.2f}" for name, value in named)
            )
        if slopes.get("sdk_top") is not None:
            out.append(
                "the SDK's slope between its two largest measured sizes: "
                f"{slopes['sdk_top']:.2f} (quadratic is 2)"
            )
        out.append("")
    pipeline = results.get("pipeline")
    if pipeline:
        out.append(
            "3. Whole pipeline, bytes to final message "
            f"({pipeline['stream_bytes'] / 1e6:.1f} MB text stream, "
            f"{pipeline['events']} events, {size_text(pipeline['chunk_bytes'])} chunks)"
        )
        out.append(
            _table(
                ["SDK sdk_final_message", "ours: accumulate", "ratio"],
                [
                    [
                        seconds_text(pipeline["sdk_s"]),
                        seconds_text(pipeline["ours_s"]),
                        f"{pipeline['sdk_s'] / pipeline['ours_s']:.1f}x",
                    ]
                ],
            )
        )
        out.append("")
    decode = results.get("decode")
    if decode:
        out.append(
            f"4. Bytes to events ({decode['stream_bytes'] / 1e6:.1f} MB stream, "
            "MB/s, higher is better)"
        )
        rows = [
            [
                size_text(row["chunk_bytes"]),
                f"{row['sdk_mb_s']:.1f}",
                f"{row['httpx_sse_mb_s']:.1f}",
                f"{row['ours_mb_s']:.1f}",
                f"{row['sdk_s'] / row['ours_s']:.2f}x",
                f"{row['httpx_sse_s'] / row['ours_s']:.2f}x",
            ]
            for row in decode["rows"]
        ]
        out.append(_table(["chunk", "SDK", "httpx-sse", "ours", "vs SDK", "vs httpx-sse"], rows))
        out.append("")
    frontends = results.get("frontends")
    if frontends:
        out.append(
            "5 and 6. Front ends: trace (the whole stream as one chunk) and the stepper "
            "(opened at 1-byte chunks: the last frame, the middle, "
            f"{frontends['walk_steps']} steps on)"
        )
        rows = [
            [
                row["stream"],
                size_text(row["size"]),
                f"{row['events']:,}",
                seconds_text(row["trace_s"]),
                f"{row['trace_peak_bytes'] / 1e6:.1f} MB",
                f"{row['trace_output_bytes'] / 1e6:.2f} MB",
                seconds_text(row["stepper_s"]),
                f"{row['stepper_peak_bytes'] / 1e6:.1f} MB",
            ]
            for row in frontends["rows"]
        ]
        out.append(
            _table(
                [
                    "stream",
                    "size",
                    "events",
                    "trace",
                    "peak memory",
                    "printed",
                    "stepper",
                    "peak memory",
                ],
                rows,
            )
        )
        slopes = frontends["slopes"]
        if all(value is not None for value in slopes.values()):
            out.append(
                "log-log slopes (time, memory): "
                + ", ".join(
                    f"{name} on {kind} {slopes[f'{name}_{kind}_time']:.2f}, "
                    f"{slopes[f'{name}_{kind}_memory']:.2f}"
                    for name in ("trace", "stepper")
                    for kind in ("text", "tool")
                )
            )
        out.append("")
    overhead = results.get("overhead")
    if overhead:
        out.append(
            "7. accumulate, aaccumulate and the previews against the lower bounds "
            "(lines split, each data line's JSON read by json.loads (plain) or jiter, texts "
            f"and fragments joined; {size_text(overhead['rows'][0]['chunk_bytes'])} chunks; "
            "CPU time, best run; ratios: median of the turn-by-turn ratios)"
        )
        rows = [
            [
                row["stream"],
                size_text(row["size"]),
                f"{row['stream_bytes'] / 1e6:.1f} MB",
                seconds_text(row["lower_bound_s"]),
                seconds_text(row.get("jiter_bound_s", 0)),
                seconds_text(row["accumulate_s"]),
                f"{row['accumulate_ratio']:.2f}x",
                f"{row.get('accumulate_jiter_ratio', 0):.2f}x",
                seconds_text(row["aaccumulate_s"]),
                f"{row.get('aaccumulate_jiter_ratio', 0):.2f}x",
                f"{row.get('changes_ratio', 0):.2f}x",
                f"{row.get('changes_every_event_ratio', 0):.2f}x",
                seconds_text(row["snapshots_s"]),
                f"{row['snapshots_ratio']:.2f}x",
                f"{row['accumulate_peak_bytes'] / 1e6:.1f} MB",
                f"{row['accumulate_peak_bytes'] / row['stream_bytes']:.2f}x",
            ]
            for row in overhead["rows"]
        ]
        out.append(
            _table(
                [
                    "stream",
                    "size",
                    "bytes",
                    "plain bound",
                    "jiter bound",
                    "accumulate",
                    "/ plain",
                    "/ jiter",
                    "aaccumulate",
                    "/ jiter",
                    "changes per chunk / accumulate",
                    "per event",
                    "snapshots",
                    "/ plain",
                    "peak memory",
                    "/ stream",
                ],
                rows,
            )
        )
        if overhead.get("shapes"):
            out.append(
                "input_snapshot after every fragment, by the shape of the tool input "
                "(without / with trailing strings, each over the plain and the jiter bound)"
            )
            out.append(
                _table(
                    [
                        "shape",
                        "input",
                        "bytes",
                        "snapshots",
                        "/ plain",
                        "/ jiter",
                        "trailing",
                        "/ plain",
                        "/ jiter",
                    ],
                    [
                        [
                            row["shape"],
                            size_text(row["size"]),
                            f"{row['stream_bytes'] / 1e6:.2f} MB",
                            seconds_text(row["snapshots_s"]),
                            f"{row['snapshots_lower_ratio']:.2f}x",
                            f"{row['snapshots_jiter_ratio']:.2f}x",
                            seconds_text(row["trailing_s"]),
                            f"{row['trailing_lower_ratio']:.2f}x",
                            f"{row['trailing_jiter_ratio']:.2f}x",
                        ]
                        for row in overhead["shapes"]
                    ],
                )
            )
        slopes, bound = overhead["slopes"], overhead.get("lower_bound_slopes", {})
        if all(value is not None for value in slopes.values()):
            out.append(
                "log-log slope of accumulate's time (of the lower bound's): "
                + ", ".join(
                    f"{kind} {value:.2f}"
                    + (f" ({bound[kind]:.2f})" if bound.get(kind) is not None else "")
                    for kind, value in slopes.items()
                )
            )
        out.append("")
    out.append("Targets")
    for target in results.get("targets") or targets(results):
        mark = "✔" if target["passed"] else "✘"
        note = f"  ({target['note']})" if target["note"] else ""
        out.append(f"  {mark} {target['name']}: {target['value']} (goal {target['goal']}){note}")
    return "\n".join(out)
