"""My client (lesson 06): one streaming request, from the request to the final message."""

import time
from pathlib import Path

import httpx

from streaming_lib.errors import StreamError
from streaming_lib.events import decode_event
from streaming_lib.tools.my_client import accumulator_of, events_of, lines_of, load
from streaming_lib.tools.my_client.given import (
    CONNECT_TIMEOUT,
    READ_TIMEOUT,
    Body,
    connection_error,
    not_an_event_stream,
    send,
    status_error,
)

HERE = Path(__file__).parent  # my_client/: the stages beside this file are mine
to_lines = lines_of(load("lines", HERE))  # chunks (bytes) -> lines (str)
to_events = events_of(load("sse", HERE))  # lines -> SSE events
new_accumulator = accumulator_of(load("accumulator", HERE), load("tool_input", HERE).tool_input)
retry = load("retry", HERE)  # my retry policy: retry.wait_before_retry


def stream_message(
    request, *, base_url, api_key, max_retries=2, read_timeout=READ_TIMEOUT, sleep=time.sleep
):
    """The final message (dict) of one streaming Messages API request (`request`: a dict,
    as the API takes it). Tries again, as my wait_before_retry says, only before any byte
    of the body, at most `max_retries` times; waits with `sleep(seconds)`. Raises a
    StreamError: APIStatusError, APIConnectionError, NotAnEventStreamError before the body;
    APIStreamError, IncompleteStreamError, StreamTimeoutError (read_timeout seconds with
    nothing new) after it, with `.partial`, the message so far."""
    raise NotImplementedError("write stream_message in my_client/client.py (lesson 06)")
