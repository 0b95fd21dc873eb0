"""Speed of `streaming_lib` against the real SDK, measured side by side.

    python -m benchmarks            # everything (a few minutes); writes benchmarks/results/
    python -m benchmarks --quick    # small sizes (under a minute); prints only
    python -m benchmarks --only decode
    python -m benchmarks --only frontends   # 5 and 6: trace and the stepper stay linear

One module per benchmark, each with its own docstring saying what runs:
`preview` (1: live preview of a tool input; 2: a full snapshot per fragment),
`pipeline` (3: bytes to final message), `decode` (4: bytes to events),
`frontends` (5: the trace command, 6: the stepper; time and peak memory).
`streams` builds the inputs, `timing` runs contenders in turns and keeps the
best time, `report` prints the table and checks the targets, `plots` draws.

Not a goal: timings that mean anything on their own. Only ratios measured in
the same run, on the same bytes, on the same machine are compared.
"""
