"""My client (lesson 06): one streaming request, from the request to the final message."""

import time
from pathlib import Path

import httpx

from streaming_lib.errors import StreamError
from streaming_lib.events import decode_event
from streaming_lib.tools.my_client import accumulator_of, events_of, given, lines_of, load
from streaming_lib.tools.my_client import stage_module as stage

HERE = Path(__file__).parent  # my_client/: my stages, where they pass their lessons' checks
to_lines = lines_of(stage("lines", HERE).feed)  # chunks (bytes) -> lines (str)
to_events = events_of(stage("sse", HERE).feed_line)  # lines -> SSE events
new_accumulator = accumulator_of(stage("accumulator", HERE), stage("tool_input", HERE).tool_input)
retry = load("retry", HERE)  # my retry policy: retry.wait_before_retry


def stream_message(
    request, *, base_url, api_key, max_retries=2, read_timeout=given.READ_TIMEOUT, sleep=time.sleep
):
    """The final message (dict) of one streaming request (`request`: a dict, as the API takes
    it), tried again as my retry.py says, only before any byte of the body. Raises a StreamError:
    APIStatusError, APIConnectionError, NotAnEventStreamError before the body; APIStreamError,
    IncompleteStreamError, StreamTimeoutError after it, with `.partial`, the message so far."""
    raise NotImplementedError("write stream_message in my_client/client.py (lesson 06)")
