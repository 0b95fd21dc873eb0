"""My line decoder's feed (lesson 02): bytes in, whole lines out."""

import re

LINE_END = re.compile(r"\r\n|\r|\n")  # the three SSE line endings, longest first


def feed(self, chunk):
    """Add one chunk (bytes) to `self.pending`; return the lines it completes (list of str).
    `self.after_cr`: the chunk before ended with CR (an LF first in this one ends nothing)."""
    skip = 1 if self.after_cr and chunk.startswith(b"\n") else 0  # the LF of a cut CRLF
    if chunk:  # an empty chunk changes nothing, not even after_cr
        self.after_cr = chunk.endswith(b"\r")
    end = max(chunk.rfind(b"\n"), chunk.rfind(b"\r")) + 1  # just after the last line ending
    if end <= skip:  # no line ends in this chunk: keep its bytes
        self.pending += chunk[skip:]
        return []
    text = (self.pending + chunk[skip:end]).decode("utf-8", errors="replace")
    self.pending = bytearray(chunk[end:])  # the start of the next line
    return LINE_END.split(text)[:-1]  # the last piece is "": text ends with a line ending
