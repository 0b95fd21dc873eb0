"""streaming_lib: the Messages API streaming client built in the course, stage by stage.

The pipeline, at the top of the package, in the order the notebooks build it:

    bytes -> LineDecoder (lines.py) -> SSEDecoder (sse.py) -> decode_event (events.py)
          -> MessageAccumulator (accumulator.py) -> message (dict)

`iter_lines`, `iter_sse` and `iter_events` here are the speed paths of
`fast.py`: the same results as the plain stages, faster.

`partial_json.py` previews tool input while it streams (display only);
`tool_calls.py` says whether a finished tool call may run, and why;
`aio.py` runs the same stages over an async byte stream (`aiter_events`, `aaccumulate`);
`errors.py` holds the typed errors of every stage;
`language.py` the language the library speaks to a person (`set_language("zh")`: errors,
verdicts and the tools' words from the catalogues in `locale/`; English by default).

Around it, imported only when asked for (`import streaming_lib` loads neither):

    lab/     the HTTP lab: the replay server, our decoders on a real socket,
             nginx in front of them, the record command, the wire's constants
    tools/   the fixtures, the real `anthropic` SDK as referee (`tools/sdk.py`),
             the front ends (`trace`, the stepper) and the exercises' progress
    chat/    the chat page and its relay (notebook 07)

Each module has one path: `streaming_lib.lab.server`, `streaming_lib.tools.fixtures`,
`streaming_lib.tools.stepper`, ... (`python -m streaming_lib --help` lists the commands).
"""

from .accumulator import MessageAccumulator, accumulate
from .aio import aaccumulate, aiter_events
from .errors import (
    APIConnectionError,
    APIStatusError,
    APIStreamError,
    EventDataError,
    EventOrderError,
    IncompleteStreamError,
    NotAnEventStreamError,
    SizeLimitError,
    SSEDecodeError,
    StreamError,
    StreamTimeoutError,
    ToolInputJSONError,
)
from .events import decode_event
from .fast import iter_events, iter_lines, iter_sse
from .language import set_language
from .lines import LineDecoder
from .partial_json import PartialJSONError, PartialJSONParser, parse_partial_json
from .sse import ServerSentEvent, SSEDecoder, parse_sse
from .tool_calls import ToolCallVerdict, tool_call_verdict

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APIStreamError",
    "EventDataError",
    "EventOrderError",
    "IncompleteStreamError",
    "LineDecoder",
    "MessageAccumulator",
    "NotAnEventStreamError",
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
    "aaccumulate",
    "accumulate",
    "aiter_events",
    "decode_event",
    "iter_events",
    "iter_lines",
    "iter_sse",
    "parse_partial_json",
    "parse_sse",
    "set_language",
    "tool_call_verdict",
]
