"""The words the course's front ends show a person, from the gettext catalogues.

One table per front end: `trace`'s column headers, `progress`'s table, the stepper's
panels, legend, status line and controls. Each entry is `word(key, English)`: the code
reads the entry by its key, and the text comes from the catalogue of the language asked
for (`streaming_lib/locale/`, see `streaming_lib.language`); English is the text here.
Only words a reader reads are here: the field's terms (event names, `stop_reason`,
`message_stop`, the class names `LineDecoder`, `SSEDecoder`, `MessageAccumulator`)
stay as they are on the wire in every language, as the glossary (i18n/glossary.yml) says.

    >>> words(PROGRESS, "zh")["all_pass"]
    '全部通过'
    >>> words(PROGRESS, "fr")
    Traceback (most recent call last):
    ...
    ValueError: unknown language 'fr': choose from ('en', 'zh')
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..language import LANGS, Text, catalogue, say, word

__all__ = [
    "LANGS",
    "LESSON_CHECK",
    "PROGRESS",
    "STEPPER",
    "TRACE",
    "Table",
    "verdict_words",
    "words",
]


class Table(Mapping[str, Mapping[str, str]]):
    """A front end's words: `table[lang][key]` is the entry `key` in `lang`."""

    def __init__(self, *entries: tuple[str, str]) -> None:
        self.english = dict(entries)
        self._said: dict[str, dict[str, str]] = {}  # lang -> {key: text}, looked up once

    def __getitem__(self, lang: str) -> Mapping[str, str]:
        if lang not in self._said:
            words = catalogue(lang)  # an unknown language raises ValueError here
            english = self.english.items()
            self._said[lang] = {key: words.pgettext(key, text) for key, text in english}
        return self._said[lang]

    def __iter__(self) -> Iterator[str]:
        return iter(LANGS)

    def __len__(self) -> int:
        return len(LANGS)


def words(table: Table, lang: str) -> Mapping[str, str]:
    """The texts of `table` in `lang` ("en", "zh", ...); ValueError for another language."""
    return table[lang]


def verdict_words(reason: str, lang: str) -> str:
    """A tool call's verdict reason (`ToolCallVerdict.reason`) in `lang`; a reason that
    is no `Text` (made by hand) stays as it is.

    >>> from streaming_lib.tool_calls import tool_call_verdict
    >>> message = {"content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn"}
    >>> verdict_words(tool_call_verdict(message, 0, complete=True, stopped=True).reason, "zh")
    '第 0 块不是工具调用（text）'
    >>> verdict_words("a reason of my own", "zh")
    'a reason of my own'
    """
    catalogue(lang)  # an unknown language fails here, as everywhere
    return say(reason, lang) if isinstance(reason, Text) else reason


# streaming_lib/tools/progress.py: the progress table.
PROGRESS = Table(
    word("exercise", "exercise"),
    word("lesson", "lesson"),
    word("checks", "checks"),
    word("first_failure", "first failure"),
    word("passed", "{passed} of {total}"),
    word("all_pass", "all pass"),
    word("your_cell", "your cell {id!r}"),
    word("failure", "{where}: {said}"),
    word("totals", "{done} of {count} exercises done; {passed} of {total} checks pass."),
    word("next", "Next: {name}, {what}"),
)


# streaming_lib/tools/stepper: the panels' titles, the legend, the status line and the controls.
# The fields in {braces} are filled in by Python (str.format) and by the static page's script
# (stepper.js, which receives the table in the page's data), so they take no format spec.
# "html_lang" is the page's language tag (a catalogue gives its own, "zh-CN").
STEPPER = Table(
    word("html_lang", "en"),
    word("title", "Stream stepper"),
    word("heading_bytes", "({count} bytes)"),
    word("earlier", "… {count} earlier {what}"),
    word("bytes", "bytes"),
    word("events", "events"),
    word("lines", "lines"),
    word("data lines", "data lines"),
    word("status_start", "nothing received yet · the stream is {total} bytes"),
    word("status_end", "end of stream: the connection closed, the line decoder is flushed"),
    word(
        "status_chunk",
        "chunk {step}: bytes {start}–{end} ({size} B) · {end} of {total} bytes received",
    ),
    word("status_step", "step {step} / {last}"),
    word("status_complete", "✔ message_stop: the message is complete"),
    word("pending", "pending bytes"),
    word("panel_bytes", "bytes received"),
    word("sub_bytes", "what the network delivered, chunk by chunk"),
    word("panel_lines", "LineDecoder"),
    word("sub_lines", "bytes → lines"),
    word("panel_sse", "SSEDecoder"),
    word("sub_sse", "lines → events: the event being built"),
    word("panel_events", "events dispatched"),
    word("sub_events", "one per blank line"),
    word("panel_content", "MessageAccumulator"),
    word("sub_content", 'events → message["content"]'),
    word("panel_tools", "tool input"),
    word("sub_tools", "raw JSON buffer and partial-JSON preview"),
    word("panel_stop", "stop_reason · usage"),
    word("sub_stop", "from message_delta"),
    word("legend_chunk", "the chunk this step delivered"),
    word(
        "legend_escape",
        "a byte that is not printable ASCII, as its escape (hover a UTF-8 byte "
        "to see its character)",
    ),
    word("legend_split", "half a character, waiting for its other bytes"),
    word("legend_new", "made at this step"),
    word("legend_json", "json.loads accepts the buffer / not yet"),
    word("new", "new"),
    word("play", "▶ play"),
    word("play_word", "play"),
    word("pause", "❚❚ pause"),
    word("prev", "previous step"),
    word("next", "next step (Shift+→: ten steps)"),
    word("step", "step"),
    word("chunks", "chunks"),
    word("chunk_size", "chunk size"),
    word("speed", "speed"),
    word("slow", "slow"),
    word("normal", "normal"),
    word("quick", "quick"),
    word("fast", "fast"),
    word("fastest", "fastest"),
    word("back", "ten steps back"),
    word("ahead", "ten steps ahead"),
    word("event_by_event", "event by event"),
    word("one_byte", "1 byte"),
    word("n_bytes", "{size} bytes"),
    word("one_event_per_chunk", "one event per chunk"),
    word("chunks_of", "chunks of {size}"),
    word(
        "thinned",
        "This page holds {shown} of the stream's {count} steps, evenly spaced; "
        "the stepper widget in a notebook (StreamStepper) shows every step.",
    ),
    word(
        "notebook_note",
        "Run this cell (Shift+Enter) to use the stepper: a notebook opened from"
        " disk does not run the scripts of its saved outputs.",
    ),
    word("page_note", "This page needs JavaScript to step through the stream."),
    word("err_last", "A client stops at its first error: this is the last step."),
    word(
        "cut_char",
        "the chunk ended inside a UTF-8 character: {have} of its {size} bytes "
        "have arrived; they wait in <code>pending</code>",
    ),
    word("after_cr", "the chunk ended with CR: an LF first in the next chunk is its CRLF"),
    word("lines_out_str", "lines out (decoded str)"),
    word("lines_out", "lines out"),
    word("no_line", "no line ended at this step"),
    word("blank_line", "(blank line) ← dispatch the event"),
    word("comment", "← comment: ignored"),
    word("row_event_type", "event type"),
    word("row_data_lines", "data lines"),
    word("row_last_id", "last event ID"),
    word("as_message", '(dispatches as "message")'),
    word("no_data", "empty: a blank line now would dispatch nothing"),
    word("never_dispatched", "no blank line came: this event is never dispatched"),
    word("none", "none"),
    word("empty", "empty"),
    word("no_event", "no event yet"),
    word("skipped", "(skipped: no Messages API event)"),
    word("more_chars", "… {count} more characters"),
    word("earlier_chars", "… {count} earlier characters"),
    word("stopped", "■ stopped"),
    word("open", "▶ open"),
    word("no_start", "no message_start yet"),
    word("no_block", "message started, no content block yet"),
    word("parses", "✔ parses"),
    word("not_json", "✘ not JSON"),
    word("not_json_yet", "✘ not JSON yet"),
    word("broken", "broken: {error}"),
    word("no_value", "no value started yet"),
    word("row_buffer", "JSON buffer"),
    word("row_partial", "partial JSON"),
    word("row_at_stop", "at stop"),
    word("at_stop", "json.loads(buffer) became the block's input"),
    word("row_may_run", "may it run?"),
    word("yes", "✔ yes"),
    word("no", "✘ no"),
    word("no_tool", "no tool block yet"),
    word("not_decided", "null: not decided yet"),
    word("arrived", "✔ arrived"),
    word("not_yet", "not yet"),
    word("not_object", "(not an object)"),
    word("colon", ": "),
)


# streaming_lib/tools/trace.py: the column headers (the rows stay as the stages say them).
TRACE = Table(
    word("number", "#"),
    word("event", "event"),
    word("index", "idx"),
    word("delta", "delta"),
    word("state", "state"),
)


# streaming_lib/tools/lesson_check.py: a check's line, and a prediction's.
LESSON_CHECK = Table(
    word("raised", "{what}: raised {error}"),
    word("got", "{what}: got {got}, expected {expected}"),
    word("first", "; first difference: {where} is {got}, expected {expected}"),
    word("length", "; first difference: {count} items, expected {expected}"),
    word("length at", "; first difference: {where} has {count} items, expected {expected}"),
    word("missing", "missing"),
    word("unanswered", " (not answered yet?)"),
    word("all", "All {count} checks pass."),
    word("some", "{passed} of {count} checks pass."),
    word("no guess", "(no guess yet: write it in the cell above, then run this one again)"),
    word("right", "✔ you guessed {guess!r}: right"),
    word("wrong", "✘ you guessed {guess!r}; it is {answer!r}"),
)
