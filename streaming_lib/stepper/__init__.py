"""Old path of `streaming_lib.tools.stepper` (the stepper widget), kept working.

`streaming_lib.stepper` and its modules (`.frames`, `.html`, `.widget`) are the
very same module objects as `streaming_lib.tools.stepper` and its modules (a
`sys.modules` alias): imports, attributes and monkeypatching reach them.
"""

import importlib
import sys

# The submodules first: once `streaming_lib.stepper` is the moved package, Python
# would look for a submodule in the new folder under the old name, and load a
# second copy of it. Aliased here, the old names find the module already loaded.
for _name in ("frames", "html", "widget"):
    sys.modules[f"{__name__}.{_name}"] = importlib.import_module(
        f"streaming_lib.tools.stepper.{_name}"
    )
sys.modules[__name__] = importlib.import_module("streaming_lib.tools.stepper")
