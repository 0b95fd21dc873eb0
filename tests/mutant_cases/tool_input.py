"""Single-fault mutants of the reference `my_client/tool_input.py` (lesson 04)."""

from . import Mutant

FILE = "tool_input.py"

MUTANTS = [
    Mutant(
        "tool input from the last fragment only",
        FILE,
        'text = "".join(fragments)',
        'text = fragments[-1] if fragments else ""',
    ),
    Mutant(
        "no input parsed as JSON, not taken as {}",
        FILE,
        "    if not text:\n        return {}  # a tool called with no input\n",
        "",
    ),
    Mutant(
        "JSON that is not JSON taken as no input",
        FILE,
        "    except json.JSONDecodeError as error:\n        raise ToolInputJSONError(",
        "    except json.JSONDecodeError as error:\n"
        "        return {}\n"
        "        raise ToolInputJSONError(",
    ),
]
