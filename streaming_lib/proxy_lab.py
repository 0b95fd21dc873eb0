"""Old path of `streaming_lib.lab.proxy_lab` (the proxy-buffering lab), kept working.

`streaming_lib.proxy_lab` is the very same module object (a `sys.modules` alias):
imports, attributes, monkeypatching and `python -m streaming_lib.proxy_lab` all
reach `streaming_lib.lab.proxy_lab`.
"""

import importlib
import sys

if __name__ == "__main__":  # `python -m streaming_lib.proxy_lab`
    import runpy

    runpy.run_module("streaming_lib.lab.proxy_lab", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("streaming_lib.lab.proxy_lab")
