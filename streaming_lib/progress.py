"""Old path of `streaming_lib.tools.progress` (the exercises' progress table), kept working.

`streaming_lib.progress` is the very same module object (a `sys.modules` alias):
imports, attributes, monkeypatching and `python -m streaming_lib.progress` all
reach `streaming_lib.tools.progress`.
"""

import importlib
import sys

if __name__ == "__main__":  # `python -m streaming_lib.progress`
    import runpy

    runpy.run_module("streaming_lib.tools.progress", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("streaming_lib.tools.progress")
