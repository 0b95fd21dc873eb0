"""My accumulator (lesson 03): the Messages API state machine, one event at a time.

`acc` holds the state (`acc.message`, `acc.json_parts`, `acc.stopped`, `acc.complete`,
`acc.input_errors`); each event is a dict, as on the wire."""

import json

from streaming_lib.errors import APIStreamError, EventOrderError, IncompleteStreamError
from streaming_lib.tools.my_client.given import (
    CUT_OFF_STOP_REASONS,
    DELTA_RULES,
    TOOL_BLOCKS,
    open_block,
)


def feed(acc, event):
    """Check that `event` may come now, then hand it to the handler for its type."""
    kind = event["type"]
    handler = HANDLERS.get(kind)
    if handler is None:
        return  # a type newer than this code: skipped
    if kind not in ("ping", "error"):  # those two may come at any time
        if acc.message is None and kind != "message_start":
            raise EventOrderError(f"{kind} before message_start")
        if acc.complete:
            raise EventOrderError(f"{kind} after message_stop")
    handler(acc, event)


def on_message_start(acc, event):
    if acc.message is not None:
        raise EventOrderError("a second message_start")
    acc.message = json.loads(json.dumps(event["message"]))  # a deep copy


def on_content_block_start(acc, event):
    index, content = event["index"], acc.message["content"]
    if index != len(content):
        raise EventOrderError(f"content_block_start for index {index}, expected {len(content)}")
    block = json.loads(json.dumps(event["content_block"]))
    content.append(block)
    if block["type"] in TOOL_BLOCKS:
        acc.json_parts[index] = []  # its input comes as JSON text, in fragments


def on_content_block_delta(acc, event):
    index, delta = event["index"], event["delta"]
    block = open_block(acc, index)
    if delta["type"] == "input_json_delta":
        acc.json_parts[index].append(delta["partial_json"])  # not JSON yet: keep the text
    elif delta["type"] in DELTA_RULES:  # other delta types: skipped
        rule = DELTA_RULES[delta["type"]]  # text, citation, thinking, signature
        rule(block, delta)


def on_content_block_stop(acc, event):
    index = event["index"]
    block = open_block(acc, index)
    acc.stopped.add(index)
    if index in acc.json_parts:  # a tool's block: its input is whole now
        block["input"] = acc.tool_input(acc.json_parts[index], index)


def on_message_delta(acc, event):
    for key, value in event["delta"].items():
        if key in ("stop_reason", "stop_sequence") or value is not None:
            acc.message[key] = value
    totals = {key: value for key, value in (event.get("usage") or {}).items() if value is not None}
    acc.message["usage"].update(totals)  # overwrite, never add: each value is a total so far


def on_message_stop(acc, event):
    acc.complete = True


def on_ping(acc, event):
    pass  # keeps an idle connection open; carries nothing


def on_error(acc, event):
    error = event.get("error") or {}
    raise APIStreamError(
        f"{error.get('type')}: {error.get('message')}",
        error_type=error.get("type"),
        error_message=error.get("message", ""),
    )


HANDLERS = {  # event type -> its handler
    "message_start": on_message_start,
    "content_block_start": on_content_block_start,
    "content_block_delta": on_content_block_delta,
    "content_block_stop": on_content_block_stop,
    "message_delta": on_message_delta,
    "message_stop": on_message_stop,
    "ping": on_ping,
    "error": on_error,
}


def final_message(acc):
    """The message once the stream has ended: an error if it never finished, or if a tool's
    input was not JSON and the stop reason does not explain it."""
    if not acc.complete:
        raise IncompleteStreamError("the stream ended without message_stop")
    if acc.input_errors and acc.message["stop_reason"] not in CUT_OFF_STOP_REASONS:
        raise acc.input_errors[min(acc.input_errors)]  # the first block whose input was bad
    for index in acc.json_parts.keys() - acc.stopped:  # cut off before its stop
        acc.message["content"][index]["input"] = acc.best_input(index)
    return acc.message
