"""The two plots of the results (matplotlib, Agg: no display needed).

- `preview_scaling.png`: time to consume the whole tool-call stream against
  the tool input size, log-log, the SDK's and ours. On such axes a linear
  cost is a line of slope 1 and a quadratic one a line of slope 2; the
  legend gives each fitted slope, and the SDK's between its two largest sizes.
- `decode_throughput.png`: MB/s of each SSE decoder against the chunk size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

from .report import size_text  # noqa: E402

SDK_COLOR, OURS_COLOR, OTHER_COLOR = "#c0392b", "#1f77b4", "#7f7f7f"


def plot_preview(preview: dict[str, Any], path: Path) -> None:
    rows, slopes = preview["rows"], preview["slopes"]
    kib = [row["size"] / 1024 for row in rows]
    fig, ax = plt.subplots(figsize=(7.5, 5), dpi=110)
    measured = [
        (x, row["sdk_s"]) for x, row in zip(kib, rows, strict=True) if not row["sdk_extrapolated"]
    ]
    guessed = [
        (x, row["sdk_s"]) for x, row in zip(kib, rows, strict=True) if row["sdk_extrapolated"]
    ]
    sdk_label = "SDK messages.stream(): re-parses the buffer per fragment"
    if slopes["sdk"] is not None:
        top = (
            f", {slopes['sdk_top']:.2f} at the largest sizes"
            if slopes.get("sdk_top") is not None
            else ""
        )
        sdk_label += f" (slope {slopes['sdk']:.2f}{top})"
    ax.plot(*zip(*measured, strict=True), "o-", color=SDK_COLOR, label=sdk_label)
    if guessed:
        ax.plot(
            *zip(*([measured[-1]] + guessed), strict=True),
            "o--",
            color=SDK_COLOR,
            markerfacecolor="white",
            label="SDK, extrapolated from its two largest measured sizes",
        )
    for key, label, color, marker in (
        ("ours_snapshots", "ours: full snapshot per fragment", OTHER_COLOR, "s"),
        ("ours_changes", "ours: incremental changes (live preview)", OURS_COLOR, "^"),
    ):
        times = [row[f"{key}_s"] for row in rows]
        slope_text = f" (slope {slopes[key]:.2f})" if slopes[key] is not None else ""
        ax.plot(kib, times, marker + "-", color=color, label=label + slope_text)
        ax.annotate(
            f"{rows[-1]['sdk_s'] / times[-1]:.0f}x faster",
            (kib[-1], times[-1]),
            xytext=(-8, 0),
            textcoords="offset points",
            ha="right",
            va="center",
            color=color,
            fontsize=9,
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(kib, [size_text(row["size"]) for row in rows])
    ax.set_xlabel(
        f"tool input size ({preview['fragment_chars']}-character input_json_delta fragments)"
    )
    ax.set_ylabel("seconds for the whole stream (best run)")
    ax.set_title("Live preview of a streaming tool input: time against size (log-log)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_decode(decode: dict[str, Any], path: Path) -> None:
    rows = decode["rows"]
    sizes = [row["chunk_bytes"] for row in rows]
    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=110)
    for key, label, color, marker in (
        ("sdk", "SDK (anthropic._streaming.SSEDecoder)", SDK_COLOR, "o"),
        ("httpx_sse", "httpx-sse", OTHER_COLOR, "s"),
        ("ours", "ours (iter_sse)", OURS_COLOR, "^"),
    ):
        ax.plot(sizes, [row[f"{key}_mb_s"] for row in rows], marker + "-", color=color, label=label)
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [size_text(size) for size in sizes])
    ax.set_ylim(bottom=0)
    ax.set_xlabel("chunk size (bytes handed over per network read)")
    ax.set_ylabel("MB/s (best run)")
    ax.set_title(f"Bytes to Server-Sent Events, {decode['stream_bytes'] / 1e6:.1f} MB stream")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
