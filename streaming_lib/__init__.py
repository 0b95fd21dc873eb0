"""streaming_lib: the Messages API streaming client built in the course, stage by stage.

    bytes -> LineDecoder (lines.py) -> SSEDecoder (sse.py) -> decode_event (events.py)
          -> MessageAccumulator (accumulator.py) -> message (dict)

`iter_lines`, `iter_sse` and `iter_events` here are the speed paths of
`fast.py`: the same results as the plain stages, faster.

`partial_json.py` previews tool input while it streams (display only);
`tool_calls.py` says whether a finished tool call may run, and why;
`sdk.py` checks every result against the real `anthropic` SDK.
"""

from .accumulator import MessageAccumulator, accumulate
from .events import decode_event
from .errors import (
    APIStreamError,
    EventDataError,
    EventOrderError,
    IncompleteStreamError,
    SizeLimitError,
    SSEDecodeError,
    StreamError,
    StreamTimeoutError,
    ToolInputJSONError,
)
from .fast import iter_events, iter_lines, iter_sse
from .lines import LineDecoder
from .partial_json import PartialJSONError, PartialJSONParser, parse_partial_json
from .sse import ServerSentEvent, SSEDecoder, parse_sse
from .tool_calls import ToolCallVerdict, tool_call_verdict

__all__ = [
    "APIStreamError",
    "EventDataError",
    "EventOrderError",
    "IncompleteStreamError",
    "LineDecoder",
    "MessageAccumulator",
    "PartialJSONError",
    "PartialJSONParser",
    "SSEDecodeError",
    "SSEDecoder",
    "ServerSentEvent",
    "SizeLimitError",
    "StreamError",
    "StreamTimeoutError",
    "ToolCallVerdict",
    "ToolInputJSONError",
    "accumulate",
    "decode_event",
    "iter_events",
    "iter_lines",
    "iter_sse",
    "parse_partial_json",
    "parse_sse",
    "tool_call_verdict",
]
