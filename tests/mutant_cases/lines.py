"""Wrong answers for `my_client/lines.py` (lesson 02's `feed`), one fault each."""

from . import Mutant

MUTANTS = [
    Mutant(
        "a CR at a chunk's end ends two lines (the LF that starts the next chunk is not skipped)",
        "lines.py",
        "skip = 1 if self.after_cr and chunk.startswith(b\"\\n\") else 0",
        "skip = 0",
    ),
    Mutant(
        "a lone CR ends no line: only the chunk's last LF is looked for",
        "lines.py",
        "end = max(chunk.rfind(b\"\\n\"), chunk.rfind(b\"\\r\")) + 1",
        "end = chunk.rfind(b\"\\n\") + 1",
    ),
    Mutant(
        "an LF that starts a chunk is skipped even when no CR came before it",
        "lines.py",
        "skip = 1 if self.after_cr and chunk.startswith(b\"\\n\") else 0",
        "skip = 1 if chunk.startswith(b\"\\n\") else 0",
    ),
    Mutant(
        "each chunk decoded on its own: a character cut in two becomes U+FFFD",
        "lines.py",
        "        self.pending += chunk[skip:]\n",
        "        self.pending += chunk[skip:].decode(\"utf-8\", errors=\"replace\").encode()\n",
    ),
    Mutant(
        "quadratic: all the pending bytes decoded again at every chunk",
        "lines.py",
        "    if end <= skip:  # no line ends in this chunk: keep its bytes\n"
        "        self.pending += chunk[skip:]\n"
        "        return []\n"
        "    text = (self.pending + chunk[skip:end]).decode(\"utf-8\", errors=\"replace\")\n",
        "    self.pending += chunk[skip:]\n"
        "    text = self.pending.decode(\"utf-8\", errors=\"replace\")  # from the start, again\n"
        "    if end <= skip:\n"
        "        return []\n"
        "    kept = len(self.pending) - (len(chunk) - end)  # up to the last line ending\n"
        "    text = self.pending[:kept].decode(\"utf-8\", errors=\"replace\")\n",
    ),
    Mutant(
        "quadratic: the whole pending buffer split again at every chunk (lesson 02's v4 in feed)",
        "lines.py",
        "    end = max(chunk.rfind(b\"\\n\"), chunk.rfind(b\"\\r\")) + 1"
        "  # just after the last line ending\n",
        "    self.pending += chunk[skip:]\n"
        "    *whole, rest = re.split(rb\"\\r\\n|\\r|\\n\", self.pending)\n"
        "    self.pending = bytearray(rest)\n"
        "    return [line.decode(\"utf-8\", errors=\"replace\") for line in whole]\n"
        "    end = 0\n",
    ),
]
