"""`pytest --nbval-lax exercises/...`: a failing check is reported under its notebook's name for it.

nbval names each code cell's test "Cell N", counting code cells from 0, so the
third check of an exercise could fail as "Cell 7". Here each check cell's test
takes the name on its first line instead (`# Check 2: ...` -> "Check 2"; in the
Chinese edition, exercises/zh/, `# 检查 2：...` -> "检查 2"), and its failure
report starts with that whole line: what the check checks.
Other cells keep nbval's names. Nothing else about nbval changes.
"""

from __future__ import annotations

import pytest
from nbval.plugin import IPyNbCell

from streaming_lib.tools.progress import CHECK_LINE, check_name


class CheckCell(IPyNbCell):
    """An nbval cell test named after its check ("Check 2") rather than its position."""

    def reportinfo(self):
        return self.path, 0, self.nodeid

    def repr_failure(self, excinfo):
        first_line = self.cell.source.split("\n", 1)[0]
        heading = first_line[2:] if CHECK_LINE.match(first_line) else self.name
        report = (
            super().repr_failure(excinfo).replace(f"Cell {self.cell_num}: ", f"{self.name}: ", 1)
        )
        return f"{heading}\n\n{report}"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    for number, item in enumerate(items):
        name = check_name(item.cell) if isinstance(item, IPyNbCell) else None
        if name:
            items[number] = CheckCell.from_parent(
                item.parent, name=name, cell_num=item.cell_num, cell=item.cell, options=item.options
            )
