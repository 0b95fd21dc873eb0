"""My tool input (lesson 04): a tool call's input, made from its fragments at the stop."""

import json

from streaming_lib.errors import ToolInputJSONError


def tool_input(fragments, index):
    """The input (a dict) of the tool block at `index`, from its `partial_json` fragments
    (list of str); raises ToolInputJSONError when they do not make JSON."""
    raise NotImplementedError("write tool_input in my_client/tool_input.py (lesson 04)")
