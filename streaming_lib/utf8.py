"""Old path of `streaming_lib.tools.utf8` (the front ends' UTF-8 helpers), kept working.

`streaming_lib.utf8` is the very same module object (a `sys.modules` alias):
imports, attributes, monkeypatching and `python -m streaming_lib.utf8` all
reach `streaming_lib.tools.utf8`.
"""

import importlib
import sys

if __name__ == "__main__":  # `python -m streaming_lib.utf8`
    import runpy

    runpy.run_module("streaming_lib.tools.utf8", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("streaming_lib.tools.utf8")
