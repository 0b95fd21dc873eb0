"""The hand-made claude CLI fixture (`fixtures/claude_cli.ndjson`, bonus notebook 06).

`claude -p --output-format stream-json --verbose --include-partial-messages`
prints NDJSON: one JSON object per line. Its `stream_event` lines each carry one
raw Messages API event in `event`; a run holds one message per turn. Its
`assistant` lines come one per content block, those of one message sharing its
`message.id`, with `stop_reason` null (public reports of programs reading the
CLI's output: anthropics/claude-code#1546, sesori-ai/sesori_apps_monorepo#1045,
MiniMax-AI-Dev/parsar#308). The fixture must stay a stream our accumulator
completes, turn by turn, into the messages its `assistant` lines hold once
grouped by `message.id`. It is not an SSE fixture: `fixture_names()`
(every `*.sse`) leaves it out of the SSE checks of test_fixtures.py.
"""

import json

import pytest

from streaming_lib import IncompleteStreamError, MessageAccumulator
from streaming_lib.tools.fixtures import FIXTURES_DIR, fixture_names

PATH = FIXTURES_DIR / "claude_cli.ndjson"


def records():
    return [json.loads(line) for line in PATH.read_text(encoding="utf-8").splitlines()]


def turns(stream_records):
    """The events of each turn: from a `message_start` to the event before the next one."""
    found = []
    for record in stream_records:
        if record["type"] == "stream_event":
            if record["event"]["type"] == "message_start":
                found.append([])
            found[-1].append(record["event"])
    return found


def message_of(events):
    acc = MessageAccumulator()
    for event in events:
        acc.feed(event)
    return acc.final_message()


def test_every_line_is_one_json_object_with_a_type_and_the_run_opens_and_closes():
    kinds = [record["type"] for record in records()]
    assert set(kinds) <= {"system", "stream_event", "assistant", "user", "result"}
    assert kinds[0] == "system" and kinds[-1] == "result"


def test_it_is_not_counted_among_the_sse_fixtures():
    assert "claude_cli" not in fixture_names()


def assistant_blocks_by_message_id():
    """message.id -> the content blocks of its `assistant` lines, in order."""
    grouped = {}
    for record in records():
        if record["type"] == "assistant":
            grouped.setdefault(record["message"]["id"], []).extend(record["message"]["content"])
    return grouped


def test_each_assistant_line_holds_one_content_block_and_no_stop_reason():
    lines = [record["message"] for record in records() if record["type"] == "assistant"]
    assert [len(message["content"]) for message in lines] == [1, 1, 1]
    assert [message["id"] for message in lines] == ["msg_cli_01", "msg_cli_01", "msg_cli_02"]
    assert {message["stop_reason"] for message in lines} == {None}


def test_the_events_of_each_turn_build_the_blocks_its_assistant_lines_hold_grouped_by_id():
    built = [message_of(events) for events in turns(records())]
    grouped = assistant_blocks_by_message_id()
    assert [message["id"] for message in built] == list(grouped)
    assert [message["content"] for message in built] == list(grouped.values())
    assert [message["stop_reason"] for message in built] == ["tool_use", "end_turn"]


def test_an_assistant_line_follows_the_content_block_stop_of_its_block():
    kinds = [
        record["event"]["type"] if record["type"] == "stream_event" else record["type"]
        for record in records()
    ]
    for number, kind in enumerate(kinds):
        if kind == "assistant":
            assert kinds[number - 1] == "content_block_stop"


def test_the_result_line_holds_the_text_of_the_last_message():
    last = message_of(turns(records())[-1])
    result = records()[-1]
    assert result["result"] == "".join(block["text"] for block in last["content"])
    assert result["is_error"] is False


def test_a_turn_cut_before_its_message_stop_is_incomplete():
    events = turns(records())[-1][:-1]
    with pytest.raises(IncompleteStreamError):
        message_of(events)
