"""Old path of `streaming_lib.lab.record` (the record command), kept working.

`streaming_lib.record` is the very same module object (a `sys.modules` alias):
imports, attributes, monkeypatching and `python -m streaming_lib.record` all
reach `streaming_lib.lab.record`.
"""

import importlib
import sys

if __name__ == "__main__":  # `python -m streaming_lib.record`
    import runpy

    runpy.run_module("streaming_lib.lab.record", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("streaming_lib.lab.record")
