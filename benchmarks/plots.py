"""The two plots of the results (matplotlib, Agg: no display needed).

- `preview_scaling.png`: time to consume the whole tool-call stream against
  the tool input size, log-log, the SDK's and ours. On such axes a linear
  cost is a line of slope 1 and a quadratic one a line of slope 2; the
  legend gives each fitted slope, and the SDK's between its two largest sizes.
- `decode_throughput.png`: MB/s of each SSE decoder against the chunk size.

`plot_preview(..., lang="zh")` draws the first with Chinese labels (the Chinese edition's bonus
04 shows `preview_scaling.zh.png`), in a CJK font where the machine has one (`plot_fonts`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

from streaming_lib.tools.plots import plot_fonts  # noqa: E402

from .report import size_text  # noqa: E402

SDK_COLOR, OURS_COLOR, OTHER_COLOR = "#c0392b", "#1f77b4", "#7f7f7f"
# The words of the preview plot, per language; {slope}, {top}, {ratio}, {chars} are numbers.
PREVIEW_WORDS = {
    "en": {
        "sdk": "SDK messages.stream(): re-parses the buffer per fragment",
        "slope": " (slope {slope:.2f}{top})",
        "top": ", {slope:.2f} at the largest sizes",
        "extrapolated": "SDK, extrapolated from its two largest measured sizes",
        "ours_snapshots": "ours: full snapshot per fragment",
        "ours_changes": "ours: incremental changes (live preview)",
        "faster": "{ratio:.0f}x faster",
        "x": "tool input size ({chars}-character input_json_delta fragments)",
        "y": "seconds for the whole stream (best run)",
        "title": "Live preview of a streaming tool input: time against size (log-log)",
    },
    "zh": {
        "sdk": "SDK messages.stream()：每个片段都重新解析缓冲区",
        "slope": "（斜率 {slope:.2f}{top}）",
        "top": "，最大几档为 {slope:.2f}",
        "extrapolated": "SDK，由它测过的最大两档外推",
        "ours_snapshots": "我们的：每个片段一份完整快照",
        "ours_changes": "我们的：增量变化（实时预览）",
        "faster": "快 {ratio:.0f} 倍",
        "x": "工具输入的大小（每个 input_json_delta 片段 {chars} 个字符）",
        "y": "整个流的秒数（最好的一次）",
        "title": "流式工具输入的实时预览：时间与大小（双对数）",
    },
}


def plot_preview(preview: dict[str, Any], path: Path, lang: str = "en") -> None:
    words = PREVIEW_WORDS[lang]
    plt.rcParams["font.family"] = plot_fonts(lang)
    rows, slopes = preview["rows"], preview["slopes"]
    kib = [row["size"] / 1024 for row in rows]
    fig, ax = plt.subplots(figsize=(7.5, 5), dpi=110)
    measured = [
        (x, row["sdk_s"]) for x, row in zip(kib, rows, strict=True) if not row["sdk_extrapolated"]
    ]
    guessed = [
        (x, row["sdk_s"]) for x, row in zip(kib, rows, strict=True) if row["sdk_extrapolated"]
    ]
    sdk_label = words["sdk"]
    if slopes["sdk"] is not None:
        top = (
            words["top"].format(slope=slopes["sdk_top"])
            if slopes.get("sdk_top") is not None
            else ""
        )
        sdk_label += words["slope"].format(slope=slopes["sdk"], top=top)
    ax.plot(*zip(*measured, strict=True), "o-", color=SDK_COLOR, label=sdk_label)
    if guessed:
        ax.plot(
            *zip(*([measured[-1]] + guessed), strict=True),
            "o--",
            color=SDK_COLOR,
            markerfacecolor="white",
            label=words["extrapolated"],
        )
    for key, color, marker in (
        ("ours_snapshots", OTHER_COLOR, "s"),
        ("ours_changes", OURS_COLOR, "^"),
    ):
        times = [row[f"{key}_s"] for row in rows]
        slope = slopes[key]
        slope_text = words["slope"].format(slope=slope, top="") if slope is not None else ""
        ax.plot(kib, times, marker + "-", color=color, label=words[key] + slope_text)
        ax.annotate(
            words["faster"].format(ratio=rows[-1]["sdk_s"] / times[-1]),
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
    ax.set_xlabel(words["x"].format(chars=preview["fragment_chars"]))
    ax.set_ylabel(words["y"])
    ax.set_title(words["title"])
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
