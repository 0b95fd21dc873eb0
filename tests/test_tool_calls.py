"""May a tool call run? The allow-list verdict of `tool_calls.py`, and the tool
input that is judged only once the whole stream has been read."""

import json
import typing

import pytest
from anthropic.types import StopReason

from streaming_lib import (
    IncompleteStreamError,
    MessageAccumulator,
    StreamError,
    ToolInputJSONError,
    accumulate,
)
from streaming_lib.events import iter_events
from streaming_lib.tool_calls import NOT_RUNNABLE_BECAUSE, ToolCallVerdict, tool_call_verdict
from streaming_lib.tools.fixtures import chunked, fixture_names, read_fixture

START = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    },
}
TOOL = {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}
SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
}
# Every stop reason the installed SDK knows, read from its own type: a new one
# added there is tested here without a change to this file.
SDK_STOP_REASONS = typing.get_args(StopReason)


def tool_stream(
    stop_reason,
    fragments=('{"path": "a.py", ', '"content": "x = 1"}'),
    *,
    block=TOOL,
    stop_block=True,
):
    """The events of a message with one tool block, as dicts."""
    events = [START, {"type": "content_block_start", "index": 0, "content_block": block}]
    events += [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": f},
        }
        for f in fragments
    ]
    if stop_block:
        events.append({"type": "content_block_stop", "index": 0})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 9},
        }
    )
    events.append({"type": "message_stop"})
    return events


def fed(events):
    acc = MessageAccumulator()
    for event in events:
        acc.feed(event)
    return acc


def as_sse(events):
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def test_a_complete_tool_use_call_in_a_message_that_stopped_for_tool_use_is_runnable():
    verdict = fed(tool_stream("tool_use")).tool_call_verdict(0)
    assert verdict == ToolCallVerdict(
        True, "block 0 is a complete tool_use call, and the message stopped for tool_use"
    )


@pytest.mark.parametrize(
    "stop_reason", [r for r in SDK_STOP_REASONS if r != "tool_use"] + [None, "some_future_reason"]
)
def test_every_stop_reason_but_tool_use_forbids_the_run_and_is_named(stop_reason):
    acc = fed(tool_stream(stop_reason))
    verdict = acc.tool_call_verdict(0)
    assert verdict.runnable is False and acc.is_safe_to_execute(0) is False
    assert ("no stop_reason" if stop_reason is None else stop_reason) in verdict.reason


def test_the_sdk_still_names_the_stop_reasons_the_verdict_explains():
    assert set(SDK_STOP_REASONS) - {"tool_use"} == set(NOT_RUNNABLE_BECAUSE) - {None}


@pytest.mark.parametrize("kind", ["server_tool_use", "mcp_tool_use"])
def test_calls_the_api_runs_itself_are_never_runnable_by_the_client(kind):
    block = {"type": kind, "id": "srvtoolu_1", "name": "web_search", "input": {}}
    verdict = fed(tool_stream("tool_use", ['{"query": "sse"}'], block=block)).tool_call_verdict(0)
    assert (
        verdict.runnable is False and f"({kind})" in verdict.reason and "itself" in verdict.reason
    )


def test_a_tool_result_block_and_a_text_block_are_not_calls():
    message = {
        "content": [
            {"type": "web_fetch_tool_result", "tool_use_id": "x", "content": {}},
            {"type": "text", "text": "hi"},
        ],
        "stop_reason": "tool_use",
    }
    first, second = (tool_call_verdict(message, i, complete=True, stopped=True) for i in (0, 1))
    assert first == ToolCallVerdict(
        False, "block 0 is a tool's result, not a call (web_fetch_tool_result)"
    )
    assert second == ToolCallVerdict(False, "block 1 is not a tool call (text)")
    assert (
        tool_call_verdict(message, 5, complete=True, stopped=True).reason == "there is no block 5"
    )
    assert tool_call_verdict(None, 0, complete=False, stopped=False).runnable is False


def test_a_call_is_not_runnable_at_any_event_before_message_stop():
    events = tool_stream("tool_use")
    acc = MessageAccumulator()
    for event in events:
        assert acc.tool_call_verdict(0).runnable is False
        acc.feed(event)
    assert acc.tool_call_verdict(0).runnable is True


def test_before_message_stop_the_verdict_says_what_it_waits_for():
    events = tool_stream("tool_use")
    assert "no content_block_stop yet" in fed(events[:4]).tool_call_verdict(0).reason
    assert "no message_stop yet" in fed(events[:6]).tool_call_verdict(0).reason


def test_a_block_the_stream_never_stopped_is_not_runnable_even_under_tool_use():
    acc = fed(tool_stream("tool_use", stop_block=False))
    verdict = acc.tool_call_verdict(0)
    assert (
        not verdict.runnable
        and "never got its content_block_stop: its input may be cut" in verdict.reason
    )


def test_the_tools_input_schema_is_checked_when_given():
    acc = fed(tool_stream("tool_use", ['{"path": 3, "content": "x"}']))
    assert acc.tool_call_verdict(0).runnable is True  # no schema: not checked
    verdict = acc.tool_call_verdict(0, SCHEMA)
    assert (
        not verdict.runnable
        and "does not match the tool's input schema" in verdict.reason
        and "(at path)" in verdict.reason
    )
    assert fed(tool_stream("tool_use")).tool_call_verdict(0, SCHEMA).runnable is True
    missing = fed(tool_stream("tool_use", ['{"path": "a.py"}'])).tool_call_verdict(0, SCHEMA)
    assert not missing.runnable and "'content' is a required property" in missing.reason


# -- invalid tool JSON at the block's stop: judged at the end of the stream --

CUT = ('{"path": "a.py", "content": "x = ',)  # a max_tokens cut, then a stop a gateway sent anyway


@pytest.mark.parametrize("stop_reason", ["max_tokens", "model_context_window_exceeded"])
@pytest.mark.parametrize("size", [1, 7, None])
def test_invalid_tool_json_explained_by_a_cut_off_gives_the_final_message(stop_reason, size):
    raw = as_sse(tool_stream(stop_reason, CUT))
    message = accumulate(chunked(raw, size) if size else raw)
    assert message["stop_reason"] == stop_reason and message["content"][0]["input"] == {
        "path": "a.py"
    }
    acc = MessageAccumulator()
    for event in tool_stream(stop_reason, CUT):
        acc.feed(event)
    assert acc.incomplete_blocks() == [0] and acc.tool_call_verdict(0).runnable is False
    assert stop_reason in acc.tool_call_verdict(0).reason


@pytest.mark.parametrize("size", [1, 7, None])
def test_invalid_tool_json_under_tool_use_is_an_error_once_the_whole_stream_is_read(size):
    events = tool_stream("tool_use", CUT)
    raw = as_sse(events)
    with pytest.raises(ToolInputJSONError) as caught:
        accumulate(chunked(raw, size) if size else raw, keep_events=True)
    error = caught.value
    assert error.raw == CUT[0] and error.stop_reason == "tool_use" and error.index == 0
    assert error.event_number == 4 and "event 4: tool input of block 0 is not valid JSON" in str(
        error
    )
    assert (
        error.partial["stop_reason"] == "tool_use" and error.partial["usage"]["output_tokens"] == 9
    )
    assert error.partial["content"][0]["input"] == {"path": "a.py"}
    assert [e["type"] for e in error.events][-1] == "message_stop"  # it read to the end first


def test_invalid_tool_json_gives_a_verdict_that_names_the_problem_before_the_stop_reason_arrives():
    acc = fed(tool_stream("tool_use", CUT)[:4])
    verdict = acc.tool_call_verdict(0)
    assert (
        not verdict.runnable
        and "block 0's input is not valid JSON: Unterminated string" in verdict.reason
    )


def test_a_stream_cut_after_invalid_tool_json_is_still_an_incomplete_stream():
    with pytest.raises(IncompleteStreamError) as caught:
        accumulate(as_sse(tool_stream("tool_use", CUT)[:4]))
    assert caught.value.partial["content"][0]["input"] == {"path": "a.py"}


# -- the verdict for every tool block of the fixtures ---------------------------

RUN = (True, "complete tool_use call, and the message stopped for tool_use")
SERVER = (False, "is a call the API runs itself (server_tool_use)")
RESULT = (False, "is a tool's result, not a call")
FIXTURE_VERDICTS = {
    # fixture: {block index: (runnable, words the reason contains)}, for every block
    # that is not text or thinking; a fixture not named here has no such block.
    "bad_tool_json": {1: (False, "block 1's input is not valid JSON: Expecting value")},
    "cjk_emoji": {1: RUN},
    "code_execution_bash": {
        0: (False, "is not a tool call (container_upload)"),
        2: SERVER,
        3: RESULT,
        4: SERVER,
        5: RESULT,
        6: SERVER,
        7: RESULT,
    },
    "code_execution_python": {1: SERVER, 2: RESULT, 3: SERVER, 4: RESULT, 5: SERVER, 6: RESULT},
    "code_execution_text_editor": {
        1: SERVER,
        2: RESULT,
        3: SERVER,
        4: RESULT,
        5: SERVER,
        6: RESULT,
        7: SERVER,
        8: RESULT,
    },
    "crlf": {1: RUN},
    "fixture": {1: RUN},  # the course's write_file
    "max_tokens_tool": {1: (False, "stop_reason is max_tokens")},
    "max_tokens_tool_stopped": {
        1: (False, "stop_reason is max_tokens")
    },  # its input was invalid at its stop, too
    "mcp_tools": {
        1: (False, "a call the API makes to the MCP server itself (mcp_tool_use)"),
        2: RESULT,
    },
    "pause_turn": {1: SERVER, 2: RESULT, 4: SERVER, 5: RESULT},
    "programmatic_tool_call": {1: SERVER, 2: RUN},
    "tool_escape_split": {1: RUN},
    "tool_no_input": {0: RUN, 1: RUN},
    "tool_search": {1: SERVER, 2: RESULT, 3: SERVER, 4: RESULT, 5: RUN},
    "tool_use_end_turn": {
        1: (
            False,
            "stop_reason is end_turn: the model finished its turn without asking for a tool to run",
        )
    },
    "two_tools": {1: RUN, 2: RUN},
    "unknown_types": {1: (False, "is not a tool call (sketch)")},
    "web_fetch": {1: SERVER, 2: RESULT, 3: SERVER, 4: RESULT},
    "web_search": {1: SERVER, 2: RESULT},
}
PROSE_BLOCKS = {"text", "thinking", "redacted_thinking"}


def fed_fixture(name):
    """The accumulator after every event of fixture `name`, or up to the error that ends it."""
    acc = MessageAccumulator()
    try:
        for event in iter_events([read_fixture(name)]):
            acc.feed(event)
    except StreamError:
        pass
    return acc


@pytest.mark.parametrize("name", fixture_names())
def test_the_verdict_on_every_tool_block_of_every_fixture(name):
    acc = fed_fixture(name)
    content = acc.message["content"] if acc.message else []
    expected = FIXTURE_VERDICTS.get(name, {})
    assert {i for i, block in enumerate(content) if block.get("type") not in PROSE_BLOCKS} == set(
        expected
    )
    for index, (runnable, words) in expected.items():
        verdict = acc.tool_call_verdict(index)
        assert verdict.runnable is runnable and words in verdict.reason, (index, verdict)
        assert acc.is_safe_to_execute(index) is runnable


# -- found by a reviewer -------------------------------------------------------


@pytest.mark.parametrize("start_input", ["rm -rf /", None, [1, 2], 5])
def test_an_input_that_came_whole_in_the_start_and_is_not_an_object_never_runs(start_input):
    acc = fed(tool_stream("tool_use", [], block={**TOOL, "input": start_input}))
    verdict = acc.tool_call_verdict(0)
    assert not verdict.runnable and verdict.reason == "block 0's input is not a JSON object"


@pytest.mark.parametrize("text", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}'])
def test_nan_and_infinity_are_not_json_so_such_an_input_is_an_error_under_tool_use(text):
    with pytest.raises(ToolInputJSONError, match="not a JSON value"):
        accumulate(as_sse(tool_stream("tool_use", [text])))
    assert not fed(tool_stream("tool_use", [text])).tool_call_verdict(0).runnable


def test_a_refusal_explains_invalid_tool_json_as_a_cut_and_gives_the_message():
    message = accumulate(as_sse(tool_stream("refusal", CUT)))
    assert message["stop_reason"] == "refusal" and message["content"][0]["input"] == {
        "path": "a.py"
    }


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ({"type": 5}, "it is not valid JSON Schema"),
        ({"$ref": "#/nowhere"}, "cannot check block 0's input"),
        ("not a schema", "it is not a JSON Schema object but a str"),
    ],
)
def test_a_schema_that_cannot_be_used_is_a_verdict_not_an_exception(schema, words):
    verdict = fed(tool_stream("tool_use")).tool_call_verdict(0, schema)
    assert not verdict.runnable and words in verdict.reason


def test_a_whole_tool_definition_may_be_given_for_its_input_schema():
    tool = {"name": "write_file", "description": "Write a file.", "input_schema": SCHEMA}
    assert fed(tool_stream("tool_use")).tool_call_verdict(0, tool).runnable
    verdict = fed(tool_stream("tool_use", ['{"path": "a.py"}'])).tool_call_verdict(0, tool)
    assert not verdict.runnable and "'content' is a required property" in verdict.reason
