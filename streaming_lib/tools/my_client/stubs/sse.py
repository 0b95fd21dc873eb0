"""My SSE decoder's field rules and dispatch (lesson 01)."""

from streaming_lib.sse import ServerSentEvent as Event
from streaming_lib.sse import parse_field, retry_value


def feed_line(decoder, line):
    """One line (str, no line ending) in; the Event it dispatches out, or None.
    decoder: event_type, data_lines, last_event_id, retry, reconnection_time."""
    raise NotImplementedError("write feed_line in my_client/sse.py (lesson 01)")
