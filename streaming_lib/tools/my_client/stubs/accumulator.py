"""My accumulator (lesson 03): the Messages API state machine, one event (a dict) at a time.
`acc` holds the state: message, json_parts, stopped, complete, input_errors."""

import json

from streaming_lib.errors import APIStreamError, EventOrderError, IncompleteStreamError
from streaming_lib.tools.my_client.given import (
    CUT_OFF_STOP_REASONS,
    DELTA_RULES,
    TOOL_BLOCKS,
    open_block,
)


def feed(acc, event):
    raise NotImplementedError("write feed in my_client/accumulator.py (lesson 03)")


def on_message_start(acc, event):
    raise NotImplementedError("write on_message_start in my_client/accumulator.py (lesson 03)")


def on_content_block_start(acc, event):
    raise NotImplementedError(
        "write on_content_block_start in my_client/accumulator.py (lesson 03)"
    )


def on_content_block_delta(acc, event):
    raise NotImplementedError(
        "write on_content_block_delta in my_client/accumulator.py (lesson 03)"
    )


def on_content_block_stop(acc, event):
    raise NotImplementedError("write on_content_block_stop in my_client/accumulator.py (lesson 03)")


def on_message_delta(acc, event):
    raise NotImplementedError("write on_message_delta in my_client/accumulator.py (lesson 03)")


def on_message_stop(acc, event):
    raise NotImplementedError("write on_message_stop in my_client/accumulator.py (lesson 03)")


def on_ping(acc, event):
    raise NotImplementedError("write on_ping in my_client/accumulator.py (lesson 03)")


def on_error(acc, event):
    raise NotImplementedError("write on_error in my_client/accumulator.py (lesson 03)")


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
    raise NotImplementedError("write final_message in my_client/accumulator.py (lesson 03)")
