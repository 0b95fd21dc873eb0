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

import re
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
        "err_last": "A client stops at its first error: this is the last step.",
        "cut_char": "the chunk ended inside a UTF-8 character: {have} of its {size} bytes have "
        "arrived; they wait in <code>pending</code>",
        "after_cr": "the chunk ended with CR: an LF first in the next chunk is its CRLF",
        "lines_out_str": "lines out (decoded str)",
        "lines_out": "lines out",
        "no_line": "no line ended at this step",
        "blank_line": "(blank line) ← dispatch the event",
        "comment": "← comment: ignored",
        "row_event_type": "event type",
        "row_data_lines": "data lines",
        "row_last_id": "last event ID",
        "as_message": '(dispatches as "message")',
        "no_data": "empty: a blank line now would dispatch nothing",
        "never_dispatched": "no blank line came: this event is never dispatched",
        "none": "none",
        "empty": "empty",
        "no_event": "no event yet",
        "skipped": "(skipped: no Messages API event)",
        "more_chars": "… {count} more characters",
        "earlier_chars": "… {count} earlier characters",
        "stopped": "■ stopped",
        "open": "▶ open",
        "no_start": "no message_start yet",
        "no_block": "message started, no content block yet",
        "parses": "✔ parses",
        "not_json": "✘ not JSON",
        "not_json_yet": "✘ not JSON yet",
        "broken": "broken: {error}",
        "no_value": "no value started yet",
        "row_buffer": "JSON buffer",
        "row_partial": "partial JSON",
        "row_at_stop": "at stop",
        "at_stop": "json.loads(buffer) became the block's input",
        "row_may_run": "may it run?",
        "yes": "✔ yes",
        "no": "✘ no",
        "no_tool": "no tool block yet",
        "not_decided": "null: not decided yet",
        "arrived": "✔ arrived",
        "not_yet": "not yet",
        "not_object": "(not an object)",
        "colon": ": ",
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
        "status_chunk": "第 {step} 个分片：字节 {start}–{end}（{size} B）· "
        "已收到 {end} / {total} 字节",
        "status_step": "第 {step} / {last} 步",
        "status_complete": "✔ message_stop：消息已完整",
        "pending": "待处理的字节（pending）",
        "panel_bytes": "收到的字节",
        "sub_bytes": "网络一个分片一个分片交来的内容",
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
        "legend_chunk": "这一步送达的分片",
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
        "chunks": "分片",
        "chunk_size": "分片大小",
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
        "one_event_per_chunk": "每个分片一个事件",
        "chunks_of": "每块 {size}",
        "thinned": "本页只存了流的 {count} 步中均匀分布的 {shown} 步；notebook 里的步进器小部件"
        "（StreamStepper）能显示每一步。",
        "notebook_note": "运行这个单元格（Shift+Enter）即可使用步进器：从磁盘打开的 notebook "
        "不会运行已保存输出里的脚本。",
        "page_note": "这个页面需要 JavaScript 才能逐步查看数据流。",
        "err_last": "客户端遇到第一个错误就停下：这是最后一步。",
        "cut_char": "分片在一个 UTF-8 字符中间结束：它的 {size} 个字节已到 {have} 个，"
        "正在 <code>pending</code> 里等待",
        "after_cr": "分片以 CR 结束：下一个分片若以 LF 开头，两者合成 CRLF",
        "lines_out_str": "输出的行（解码后的 str）",
        "lines_out": "输出的行",
        "no_line": "这一步没有行结束",
        "blank_line": "（空行）← 派发事件",
        "comment": "← 注释：忽略",
        "row_event_type": "事件类型",
        "row_data_lines": "data 行",
        "row_last_id": "最后事件 ID",
        "as_message": '（按 "message" 派发）',
        "no_data": "空：此刻来一个空行什么也不会派发",
        "never_dispatched": "没有等到空行：这个事件永远不会被派发",
        "none": "无",
        "empty": "空",
        "no_event": "还没有事件",
        "skipped": "（跳过：不是 Messages API 事件）",
        "more_chars": "… 后面还有 {count} 个字符",
        "earlier_chars": "… 前面还有 {count} 个字符",
        "stopped": "■ 已结束",
        "open": "▶ 进行中",
        "no_start": "还没有 message_start",
        "no_block": "消息已开始，还没有内容块",
        "parses": "✔ 能解析",
        "not_json": "✘ 不是 JSON",
        "not_json_yet": "✘ 还不是 JSON",
        "broken": "已损坏：{error}",
        "no_value": "还没有开始任何值",
        "row_buffer": "JSON 缓冲区",
        "row_partial": "不完整的 JSON",
        "row_at_stop": "结束时",
        "at_stop": "json.loads(buffer) 成了这个块的 input",
        "row_may_run": "可以运行吗？",
        "yes": "✔ 可以",
        "no": "✘ 不可以",
        "no_tool": "还没有工具块",
        "not_decided": "null：还没有决定",
        "arrived": "✔ 已到达",
        "not_yet": "还没有",
        "not_object": "（不是对象）",
        "colon": "：",
    },
}


# streaming_lib/tools/trace.py: the column headers (the rows stay as the stages say them).
TRACE: dict[str, dict[str, str]] = {
    "en": {"number": "#", "event": "event", "index": "idx", "delta": "delta", "state": "state"},
    "zh": {"number": "#", "event": "事件", "index": "序号", "delta": "增量", "state": "状态"},
}


# streaming_lib/tool_calls.py: the reasons of `tool_call_verdict`, as the stepper's tool panel
# shows them. Each is (the English sentence as a pattern, its Chinese with the pattern's
# groups as {fields}); a reason no pattern matches (an error's own message) stays as it is.
VERDICTS: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (),
    "zh": (
        (
            r"block (?P<index>\d+) has no content_block_stop yet: its input may still grow",
            "块 {index} 还没有 content_block_stop：它的 input 可能还会变长",
        ),
        (
            r"block (?P<index>\d+) never got its content_block_stop: its input may be cut",
            "块 {index} 始终没有等到 content_block_stop：它的 input 可能不完整",
        ),
        (
            r"the message has no message_stop yet: the stop_reason that allows a run comes last",
            "消息还没有 message_stop：允许运行的 stop_reason 最后才到",
        ),
        (
            r"block (?P<index>\d+) is a complete tool_use call, and the message stopped for "
            r"tool_use",
            "块 {index} 是完整的 tool_use 调用，且消息因 tool_use 而停止",
        ),
        (
            r"block (?P<index>\d+)'s input is not a JSON object",
            "块 {index} 的 input 不是 JSON 对象",
        ),
        (
            r"block (?P<index>\d+) is not a tool call \((?P<kind>.*)\)",
            "块 {index} 不是工具调用（{kind}）",
        ),
        (r"the message ended with no stop_reason", "消息结束时没有 stop_reason"),
        (r"stop_reason is (?P<reason>\w+): (?P<because>.+)", "stop_reason 是 {reason}：{because}"),
        (
            r"the model finished its turn without asking for a tool to run",
            "模型结束了这一轮，没有要求运行工具",
        ),
        (
            r"the output was cut off at max_tokens, so the call may be incomplete",
            "输出在 max_tokens 处被截断，调用可能不完整",
        ),
        (
            r"the context window filled up and the output was cut off, so the call may be "
            r"incomplete",
            "上下文窗口已满，输出被截断，调用可能不完整",
        ),
        (
            r"a stop sequence ended the output; only tool_use asks for a tool to run",
            "停止序列结束了输出；只有 tool_use 才是要求运行工具",
        ),
        (
            r"the API paused its own server-tool loop; send the turn back to let it go on",
            "API 暂停了它自己的服务器工具循环；把这一轮发回去让它继续",
        ),
        (
            r"the model refused; run nothing, and withdraw the text already shown",
            "模型拒绝了；什么也不要运行，并撤回已经显示的文字",
        ),
    ),
}


def verdict_words(reason: str, lang: str) -> str:
    """A tool call's verdict reason (`ToolCallVerdict.reason`, English) in `lang`; a reason
    the table does not know stays as it is.

    >>> verdict_words("block 1's input is not a JSON object", "zh")
    '块 1 的 input 不是 JSON 对象'
    >>> verdict_words("block 1's input is not valid JSON: …", "zh")
    "block 1's input is not valid JSON: …"
    """
    words(STEPPER, lang)  # an unknown language fails here, as everywhere
    for pattern, text in VERDICTS[lang]:
        match = re.fullmatch(pattern, reason)
        if match:
            # a group may hold a sentence of its own ("stop_reason is end_turn: the model …")
            fields = {name: verdict_words(value, lang) for name, value in match.groupdict().items()}
            return text.format(**fields)
    return reason
