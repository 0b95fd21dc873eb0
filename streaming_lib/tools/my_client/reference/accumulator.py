"""My accumulator's handlers (lesson 03): one Messages API event in, the message updated.

Each handler gets the accumulator `acc` (`acc.message`, `acc.json_parts`, `acc.stopped`,
`acc.complete`) and one event (a dict, as on the wire)."""

import json

from streaming_lib.errors import EventOrderError
from streaming_lib.tools.my_client.given import DELTA_RULES, TOOL_BLOCKS, open_block


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
