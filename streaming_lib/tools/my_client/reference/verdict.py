"""My tool-call verdict (lesson 04): may this tool call run? Yes only when all six rules hold."""

from streaming_lib.tool_calls import schema_mismatch


def may_run(acc, index, schema=None):
    """May the tool call in block `index` run (bool)? `acc`: a MessageAccumulator that has read
    a stream; `schema`: the tool's input_schema (a dict), or None for no check."""
    block = acc.message["content"][index]
    return (
        block["type"] == "tool_use"  # 1. a client tool_use block (not a server's, not a result)
        and index in acc.stopped  # 2. its content_block_stop arrived
        and index not in acc.input_errors  # 3. its input is valid JSON ...
        and isinstance(block["input"], dict)  # ... and an object
        and (schema is None or schema_mismatch(block["input"], schema) is None)  # 4. the schema
        and acc.complete  # 5. message_stop arrived
        and acc.message["stop_reason"] == "tool_use"  # 6. the model asked for its tools to run
    )
