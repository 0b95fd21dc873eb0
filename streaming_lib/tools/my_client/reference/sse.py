"""My SSE decoder's field rules and dispatch (lesson 01)."""

from streaming_lib.sse import ServerSentEvent as Event
from streaming_lib.sse import parse_field, retry_value


def feed_line(decoder, line):
    """One line (str, no line ending) in; the Event it dispatches out, or None.
    decoder: event_type, data_lines, last_event_id, retry, reconnection_time."""
    if line == "":  # a blank line dispatches, if the data buffer holds anything
        event = None
        if decoder.data_lines:
            data = "\n".join(decoder.data_lines)
            event = Event(
                decoder.event_type or "message", data, decoder.last_event_id, decoder.retry
            )
        decoder.event_type, decoder.data_lines, decoder.retry = "", [], None
        return event
    name, value = parse_field(line)
    if name == "event":
        decoder.event_type = value
    elif name == "data":
        decoder.data_lines.append(value)
    elif name == "id" and "\0" not in value:
        decoder.last_event_id = value
    elif name == "retry" and (milliseconds := retry_value(value)) is not None:
        decoder.retry = decoder.reconnection_time = milliseconds  # at once, dispatched or not
    return None  # comments and unknown fields: ignored
