"""Old path of `streaming_lib.tools.block_progress` (block progress for the front ends), kept working.

`streaming_lib.block_progress` is the very same module object (a `sys.modules` alias):
imports, attributes, monkeypatching and `python -m streaming_lib.block_progress` all
reach `streaming_lib.tools.block_progress`.
"""

import importlib
import sys

if __name__ == "__main__":  # `python -m streaming_lib.block_progress`
    import runpy

    runpy.run_module("streaming_lib.tools.block_progress", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("streaming_lib.tools.block_progress")
