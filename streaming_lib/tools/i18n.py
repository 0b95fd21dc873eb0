"""The words the course's tools show, in each language they speak: English ("en") and
Simplified Chinese ("zh").

One table per tool, {lang: {key: text}}; a text may hold `str.format` fields.
Only words a reader reads are here: the field's terms (event names, `stop_reason`,
`message_stop`, the class names `LineDecoder`, `SSEDecoder`, `MessageAccumulator`)
stay as they are on the wire in every language, as the glossary (i18n/glossary.yml)
says.

    >>> words(PROGRESS, "zh")["all_pass"]
    '全部通过'
    >>> words(PROGRESS, "fr")
    Traceback (most recent call last):
    ...
    ValueError: unknown language 'fr': choose from ('en', 'zh')
"""

from __future__ import annotations

from collections.abc import Mapping

LANGS = ("en", "zh")


def words(table: Mapping[str, Mapping[str, str]], lang: str) -> Mapping[str, str]:
    """The texts of `table` in `lang` ("en" or "zh"); ValueError for another language."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}: choose from {LANGS}")
    return table[lang]


# streaming_lib/tools/progress.py: the progress table.
PROGRESS: dict[str, dict[str, str]] = {
    "en": {
        "exercise": "exercise",
        "lesson": "lesson",
        "checks": "checks",
        "first_failure": "first failure",
        "passed": "{passed} of {total}",
        "all_pass": "all pass",
        "your_cell": "your cell {id!r}",
        "failure": "{where}: {said}",
        "totals": "{done} of {count} exercises done; {passed} of {total} checks pass.",
        "next": "Next: {name}, {what}",
    },
    "zh": {
        "exercise": "练习",
        "lesson": "课程",
        "checks": "检查",
        "first_failure": "第一个失败",
        "passed": "{passed} / {total}",
        "all_pass": "全部通过",
        "your_cell": "你的单元格 {id!r}",
        "failure": "{where}：{said}",
        "totals": "{count} 个练习完成了 {done} 个；{total} 项检查通过了 {passed} 项。",
        "next": "下一步：{name}，{what}",
    },
}


# streaming_lib/tools/stepper: the panels' titles, the legend, the status line and the controls.
# The fields in {braces} are filled in by Python (str.format) and by the static page's script
# (stepper.js, which receives the table in the page's data), so they take no format spec.
STEPPER: dict[str, dict[str, str]] = {
    "en": {
        "html_lang": "en",
        "title": "Stream stepper",
        "heading_bytes": "({count} bytes)",
        "earlier": "… {count} earlier {what}",
        "bytes": "bytes",
        "events": "events",
        "lines": "lines",
        "data lines": "data lines",
        "status_start": "nothing received yet · the stream is {total} bytes",
        "status_end": "end of stream: the connection closed, the line decoder is flushed",
        "status_chunk": "chunk {step}: bytes {start}–{end} ({size} B) · {end} of {total} bytes "
        "received",
        "status_step": "step {step} / {last}",
        "status_complete": "✔ message_stop: the message is complete",
        "pending": "pending bytes",
        "panel_bytes": "bytes received",
        "sub_bytes": "what the network delivered, chunk by chunk",
        "panel_lines": "LineDecoder",
        "sub_lines": "bytes → lines",
        "panel_sse": "SSEDecoder",
        "sub_sse": "lines → events: the event being built",
        "panel_events": "events dispatched",
        "sub_events": "one per blank line",
        "panel_content": "MessageAccumulator",
        "sub_content": 'events → message["content"]',
        "panel_tools": "tool input",
        "sub_tools": "raw JSON buffer and partial-JSON preview",
        "panel_stop": "stop_reason · usage",
        "sub_stop": "from message_delta",
        "legend_chunk": "the chunk this step delivered",
        "legend_escape": "a byte that is not printable ASCII, as its escape (hover a UTF-8 byte "
        "to see its character)",
        "legend_split": "half a character, waiting for its other bytes",
        "legend_new": "made at this step",
        "legend_json": "json.loads accepts the buffer / not yet",
        "new": "new",
        "play": "▶ play",
        "play_word": "play",
        "pause": "❚❚ pause",
        "prev": "previous step",
        "next": "next step (Shift+→: ten steps)",
        "step": "step",
        "chunks": "chunks",
        "chunk_size": "chunk size",
        "speed": "speed",
        "slow": "slow",
        "normal": "normal",
        "quick": "quick",
        "fast": "fast",
        "fastest": "fastest",
        "back": "ten steps back",
        "ahead": "ten steps ahead",
        "event_by_event": "event by event",
        "one_byte": "1 byte",
        "n_bytes": "{size} bytes",
        "one_event_per_chunk": "one event per chunk",
        "chunks_of": "chunks of {size}",
        "thinned": "This page holds {shown} of the stream's {count} steps, evenly spaced; "
        "the stepper widget in a notebook (StreamStepper) shows every step.",
        "notebook_note": "Run this cell (Shift+Enter) to use the stepper: a notebook opened from "
        "disk does not run the scripts of its saved outputs.",
        "page_note": "This page needs JavaScript to step through the stream.",
    },
    "zh": {
        "html_lang": "zh-CN",
        "title": "流步进器",
        "heading_bytes": "（{count} 字节）",
        "earlier": "… 前面还有 {count} {what}",
        "bytes": "字节",
        "events": "个事件",
        "lines": "行",
        "data lines": "个 data 行",
        "status_start": "还没有收到任何字节 · 整个流共 {total} 字节",
        "status_end": "流结束：连接已关闭，行解码器的缓冲已清空",
        "status_chunk": "第 {step} 个数据块：字节 {start}–{end}（{size} B）· "
        "已收到 {end} / {total} 字节",
        "status_step": "第 {step} / {last} 步",
        "status_complete": "✔ message_stop：消息已完整",
        "pending": "待处理的字节（pending）",
        "panel_bytes": "收到的字节",
        "sub_bytes": "网络一块一块交来的内容",
        "panel_lines": "LineDecoder",
        "sub_lines": "字节 → 行",
        "panel_sse": "SSEDecoder",
        "sub_sse": "行 → 事件：正在组装的事件",
        "panel_events": "已派发的事件",
        "sub_events": "每个空行派发一个",
        "panel_content": "MessageAccumulator",
        "sub_content": '事件 → message["content"]',
        "panel_tools": "工具输入",
        "sub_tools": "原始 JSON 缓冲区与不完整 JSON 的预览",
        "panel_stop": "stop_reason · usage",
        "sub_stop": "来自 message_delta",
        "legend_chunk": "这一步送达的数据块",
        "legend_escape": "不是可打印 ASCII 的字节，显示为转义"
        "（鼠标停在 UTF-8 字节上可看到它的字符）",
        "legend_split": "半个字符，正在等它的其余字节",
        "legend_new": "这一步新产生的",
        "legend_json": "json.loads 接受缓冲区 / 还不接受",
        "new": "新",
        "play": "▶ 播放",
        "play_word": "播放",
        "pause": "❚❚ 暂停",
        "prev": "上一步",
        "next": "下一步（Shift+→：十步）",
        "step": "步",
        "chunks": "数据块",
        "chunk_size": "数据块大小",
        "speed": "速度",
        "slow": "慢",
        "normal": "正常",
        "quick": "较快",
        "fast": "快",
        "fastest": "最快",
        "back": "后退十步",
        "ahead": "前进十步",
        "event_by_event": "逐个事件",
        "one_byte": "1 字节",
        "n_bytes": "{size} 字节",
        "one_event_per_chunk": "每个数据块一个事件",
        "chunks_of": "每块 {size}",
        "thinned": "本页只存了流的 {count} 步中均匀分布的 {shown} 步；notebook 里的步进器小部件"
        "（StreamStepper）能显示每一步。",
        "notebook_note": "运行这个单元格（Shift+Enter）即可使用步进器：从磁盘打开的 notebook "
        "不会运行已保存输出里的脚本。",
        "page_note": "这个页面需要 JavaScript 才能逐步查看数据流。",
    },
}


# streaming_lib/tools/trace.py: the column headers (the rows stay as the stages say them).
TRACE: dict[str, dict[str, str]] = {
    "en": {"number": "#", "event": "event", "index": "idx", "delta": "delta", "state": "state"},
    "zh": {"number": "#", "event": "事件", "index": "序号", "delta": "增量", "state": "状态"},
}
