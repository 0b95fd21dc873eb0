"""The capstone: a chat page in the browser, streamed through a relay (notebook 07).

`app.py` is the relay and the page's server (starlette); `runner.py` runs it
(`ChatServer` in a thread, `serve` for `python -m streaming_lib chat`); the
page's own stream parser is `static/chat.js`.
"""

from .app import build_app
from .runner import ChatServer, ThreadedServer, serve

__all__ = ["ChatServer", "ThreadedServer", "build_app", "serve"]
