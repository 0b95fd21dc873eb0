"""My tool input (lesson 04): a tool call's input, made from its fragments at the stop."""

import json

from streaming_lib.errors import ToolInputJSONError


def tool_input(fragments, index):
    """The input (a dict) of the tool block at `index`, from its `partial_json` fragments
    (list of str); raises ToolInputJSONError when they do not make JSON."""
    text = "".join(fragments)
    if not text:
        return {}  # a tool called with no input
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ToolInputJSONError(
            f"tool input of block {index} is not JSON: {error}", raw=text
        ) from None
