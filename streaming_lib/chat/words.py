"""The chat page's words: every sentence the page (static/index.html, static/chat.js) shows.

The page is served in one language: `build_app(lang=...)`, or `?lang=zh` on the page's
URL. The app fills in the page's own words (its title, its buttons) and hands chat.js
the rest as a table, English template -> template in that language (`page_words`);
chat.js says a sentence with `say(english, fields)`, which fills in its `{fields}` (a
`{name!r}` field is quoted as Python's `repr` quotes a string). The English template is
the catalogue's key: a verdict's sentence here is the very entry `tool_calls.py` says,
so the page and the library say the same thing in every language. Wire names
(`stop_reason`, `tool_use`, `message_stop`) stay as on the wire.

    >>> page_words("zh")["Send"]
    '发送'
    >>> page_words("en")["usage so far: {tokens}"]
    'usage so far: {tokens}'

Non-goal: the relay's own refusals (JSON from app.py) speak the language the app was
started in, whatever the page's.
"""

from __future__ import annotations

from ..language import N_, languages, translate

# index.html
PAGE = (
    N_("Streaming chat"),
    N_("Ask something"),
    N_("Fix the bug in calc.py"),  # the prompt the page starts with
    N_("Send"),
    N_("Stop"),
    N_("answer"),  # the answer's region, for a screen reader
)

# chat.js: a stream it cannot read on, as streaming_lib/events.py and accumulator.py say it.
BAD_EVENT = (
    N_("event {number}: {what}"),
    N_("event {number} ({name}): {why}"),
    N_("named {name!r} by its event line but {kind!r} by its data's type"),
    N_("the event is not an object with a 'type'"),
    N_("{kind} before message_start"),
    N_("a second message_start"),
    N_("message_start needs a 'message' object whose 'content' is a list"),
    N_("content_block_start for index {index!r}, expected {expected}"),
    N_("{kind} for block {index!r}, which never started"),
)

# chat.js: what answers (GET /about).
SOURCE = (
    N_("Answers come from the Messages API ({model})."),
    N_(
        "Offline replay: whatever you ask, the answer is the same recorded stream, {recording}, "
        "replayed by the local replay server; no model reads your prompt. Start the page with "
        "ANTHROPIC_API_KEY set to ask a real model."
    ),
)

# chat.js: the status line under the answer.
STATUS = (
    N_("streaming…"),
    N_("error: HTTP {status}: {message}"),
    N_("stopped: you stopped the answer; what arrived is kept above"),
    N_(
        "incomplete: the connection was cut before message_stop ({why}); the answer above is "
        "partial"
    ),
    N_("error: {type}: {message}; the answer above is partial"),
    N_("incomplete: the stream ended before message_stop; the answer above is partial"),
    N_("refused: the model declined to go on; the text shown while it streamed is withdrawn"),
    N_("done: stop_reason {reason}"),
    N_("stopped: you stopped the answer before it began"),
    N_("error: {message}"),
    N_("data is not JSON: {error}"),
)

# chat.js: why the stream ended before message_stop, and what that does to a tool call.
ENDED = (
    N_("you stopped the answer"),
    N_("the connection was cut"),
    N_("an error ended the stream"),
    N_("the stream ended"),
    N_("✂ {ended} before this input was complete: none of it arrived."),
    N_("✂ {ended} before this input was complete: the {characters} above are all that arrived."),
    N_("1 character"),
    N_("{count} characters"),
    N_("{ended} before this call was complete: it may not run"),
)

# chat.js: a tool call's verdict, as streaming_lib/tool_calls.py says it (same entries).
VERDICT = (
    N_("runnable: {reason}"),
    N_("pending: {reason}"),
    N_("not runnable: {reason}"),
    N_("block {index} is {what} ({kind})"),
    N_("a call the API runs itself"),
    N_("a call the API makes to the MCP server itself"),
    N_("block {index} is not a tool call ({kind})"),
    N_("the message ended with no stop_reason"),
    N_("stop_reason is {reason}: {because}"),
    N_("the model finished its turn without asking for a tool to run"),
    N_("the output was cut off at max_tokens, so the call may be incomplete"),
    N_("the context window filled up and the output was cut off, so the call may be incomplete"),
    N_("a stop sequence ended the output; only tool_use asks for a tool to run"),
    N_("the API paused its own server-tool loop; send the turn back to let it go on"),
    N_("the model refused; run nothing, and withdraw the text already shown"),
    N_(
        "stop_reason is {reason!r}, which this client does not know; "
        "only tool_use asks for a tool to run"
    ),
    N_("block {index} has no content_block_stop yet: its input may still grow"),
    N_("block {index}'s input {problem}"),
    N_("is not valid JSON: {error}"),
    N_("is a JSON {kind}, not an object"),
    N_("block {index}'s input is not a JSON object"),
    N_("the message has no message_stop yet: the stop_reason that allows a run comes last"),
    N_("block {index} is a complete tool_use call, and the message stopped for tool_use"),
)

# chat.js: the tokens counted so far.
USAGE = (
    N_("usage: {tokens}"),
    N_("usage so far: {tokens}"),
    N_("{input}, {output}"),
    N_("1 input token"),
    N_("{count} input tokens"),
    N_("1 output token"),
    N_("{count} output tokens"),
)

# chat.js: the learner's client beside the page (lesson 07, section 7).
YOURS = (
    N_("your may_run (my_client/verdict.py)"),
    N_("the library's verdict (yours does not pass its checks yet)"),
    N_("runnable, says {whose}"),
    N_("not runnable, says {whose}"),
    N_("{said}. Your stages: {stages}"),
    N_("{said}. Your stages: {stages}; the library's, for now: {library}"),
    N_("none yet"),
)

# chat.js's section headings (its `// ---- N. ...` lines), which lesson 07 prints.
SECTIONS = (
    N_("1. Lines (notebook 02)"),
    N_("2. SSE events (notebook 01)"),
    N_("3. The message so far (notebook 03's accumulator)"),
    N_("4. May this tool call run? (streaming_lib/tool_calls.py, same rules, same sentences)"),
    N_("5. Showing it"),
    N_("6. Sending a prompt, reading the answer"),
    N_("7. Your client, beside the page (notebook 07)"),
)

SENTENCES: tuple[str, ...] = (*PAGE, *SOURCE, *STATUS, *BAD_EVENT, *ENDED, *VERDICT, *USAGE, *YOURS)
TEMPLATES = frozenset(SENTENCES)


def page_words(lang: str) -> dict[str, str]:
    """English template -> the same template in `lang`, for every sentence of the page
    (English where the catalogue has none); ValueError for a language with no catalogue."""
    if lang not in languages():
        raise ValueError(f"unknown language {lang!r}: choose from {languages()}")
    return {template: translate(template, lang) for template in sorted(TEMPLATES)}
