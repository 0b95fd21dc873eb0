"""Old path of `streaming_lib.tools.trace` (the trace command), kept working.

`streaming_lib.trace` is the very same module object (a `sys.modules` alias):
imports, attributes, monkeypatching and `python -m streaming_lib.trace` all
reach `streaming_lib.tools.trace`.
"""

import importlib
import sys

if __name__ == "__main__":  # `python -m streaming_lib.trace`
    import runpy

    runpy.run_module("streaming_lib.tools.trace", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("streaming_lib.tools.trace")
