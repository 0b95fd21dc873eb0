"""My accumulator's handlers (lesson 03): one Messages API event in, the message updated.

Each handler gets the accumulator `acc` (`acc.message`, `acc.json_parts`, `acc.stopped`,
`acc.complete`) and one event (a dict, as on the wire)."""

import json

from streaming_lib.errors import EventOrderError
from streaming_lib.tools.my_client.given import DELTA_RULES, TOOL_BLOCKS, open_block


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
