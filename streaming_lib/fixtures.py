"""Old path of `streaming_lib.tools.fixtures` (the fixture helpers), kept working.

`streaming_lib.fixtures` is the very same module object (a `sys.modules` alias):
imports, attributes, monkeypatching and `python -m streaming_lib.fixtures` all
reach `streaming_lib.tools.fixtures`.
"""

import importlib
import sys

if __name__ == "__main__":  # `python -m streaming_lib.fixtures`
    import runpy

    runpy.run_module("streaming_lib.tools.fixtures", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("streaming_lib.tools.fixtures")
