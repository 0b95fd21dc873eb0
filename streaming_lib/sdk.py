"""Old path of `streaming_lib.tools.sdk` (the SDK checks), kept working.

`streaming_lib.sdk` is the very same module object (a `sys.modules` alias):
imports, attributes, monkeypatching and `python -m streaming_lib.sdk` all
reach `streaming_lib.tools.sdk`.
"""

import importlib
import sys

if __name__ == "__main__":  # `python -m streaming_lib.sdk`
    import runpy

    runpy.run_module("streaming_lib.tools.sdk", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("streaming_lib.tools.sdk")
