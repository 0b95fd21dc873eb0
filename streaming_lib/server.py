"""Old path of `streaming_lib.lab.server` (the replay server), kept working.

`streaming_lib.server` is the very same module object (a `sys.modules` alias):
imports, attributes, monkeypatching and `python -m streaming_lib.server` all
reach `streaming_lib.lab.server`.
"""

import importlib
import sys

if __name__ == "__main__":  # `python -m streaming_lib.server`
    import runpy

    runpy.run_module("streaming_lib.lab.server", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("streaming_lib.lab.server")
