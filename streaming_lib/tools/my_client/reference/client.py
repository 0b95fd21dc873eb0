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
    timeout = httpx.Timeout(read_timeout, connect=given.CONNECT_TIMEOUT)
    with httpx.Client(timeout=timeout) as client:
        for attempt in range(1, max_retries + 2):
            try:
                response = given.send(client, request, base_url=base_url, api_key=api_key)
            except httpx.TransportError as error:  # no response: refused, cut, timed out
                failure, error_if_last = error, given.connection_error(error)
            else:
                if response.status_code < 400:  # 2xx: the body begins; no retry from here
                    return read_message(response)
                failure, error_if_last = response, given.status_error(response)  # read, closed
            wait = retry.wait_before_retry(failure, attempt) if attempt <= max_retries else None
            if wait is None:
                raise error_if_last
            sleep(wait)


def read_message(response):
    """The final message of a successful response, its body read by my own stages; the
    response is closed at the end (at message_stop, a cut, an error)."""
    body, accumulator = given.Body(response), new_accumulator()
    try:
        refused = given.not_an_event_stream(response)  # the content-type, before the body
        if refused is not None:
            raise refused
        for number, sse in enumerate(to_events(to_lines(body)), 1):
            event = decode_event(sse, number)
            if event is not None:
                accumulator.feed(event)
        if body.error is not None:
            raise body.error  # cut, or silent past the read timeout
        return accumulator.final_message()
    except StreamError as error:
        error.partial = accumulator.message  # what arrived is kept
        raise
    finally:
        response.close()
