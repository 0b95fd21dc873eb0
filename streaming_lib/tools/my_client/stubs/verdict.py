"""My tool-call verdict (lesson 04): may this tool call run? Yes only when all six rules hold."""

from streaming_lib.tool_calls import schema_mismatch


def may_run(acc, index, schema=None):
    """May the tool call in block `index` run (bool)? `acc`: a MessageAccumulator that has read
    a stream; `schema`: the tool's input_schema (a dict), or None for no check."""
    raise NotImplementedError("write may_run in my_client/verdict.py (lesson 04)")
