"""The stepper: move a slider through a stream and watch every stage at every chunk.

    frames.py   compute_frames(raw, chunk_size) -> Frames: the pure part, each frame made when asked
    html.py     the panels (each a bounded window), and the static page with the frames embedded
    widget.py   StreamStepper, the ipywidgets front end

In a notebook:

    from streaming_lib.tools.stepper import StreamStepper
    StreamStepper()                             # the course fixture, 7-byte chunks
    StreamStepper("truncated", chunk_size=1)    # any fixture, path or bytes
    StreamStepper.static()                      # without a kernel (nbviewer, a course site)
    StreamStepper().to_html("stepper.html")     # a self-contained page
    StreamStepper(lang="zh")                    # its words in Chinese, panels included

A frame is what every stage holds after one more chunk (here 7 bytes):

    >>> frames = compute_frames(b'event: ping\\ndata: {"type": "ping"}\\n\\n', 7)
    >>> len(frames), frames[2].lines, frames[2].pending
    (8, ('event: ping',), b'da')
"""

from .frames import EVENT_BY_EVENT, Frame, Frames, chunk_plan, compute_frames, frame_at
from .html import PANEL_NAMES
from .widget import CHUNK_CHOICES, StreamStepper, static_html

__all__ = [
    "PANEL_NAMES",
    "CHUNK_CHOICES",
    "EVENT_BY_EVENT",
    "Frame",
    "Frames",
    "StreamStepper",
    "chunk_plan",
    "compute_frames",
    "frame_at",
    "static_html",
]
