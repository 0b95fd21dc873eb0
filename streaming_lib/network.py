"""Old path of `streaming_lib.lab.network` (the network helpers), kept working.

`streaming_lib.network` is the very same module object (a `sys.modules` alias):
imports, attributes, monkeypatching and `python -m streaming_lib.network` all
reach `streaming_lib.lab.network`.
"""

import importlib
import sys

if __name__ == "__main__":  # `python -m streaming_lib.network`
    import runpy

    runpy.run_module("streaming_lib.lab.network", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("streaming_lib.lab.network")
