"""The Python blocks of every page in docs/ run, in order, one namespace per page."""

import os
import re

import pytest

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")
PAGES = sorted(name for name in os.listdir(DOCS) if name.endswith(".md")) if os.path.isdir(DOCS) else []
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page):
    with open(os.path.join(DOCS, page)) as fh:
        blocks = BLOCK.findall(fh.read())
    namespace = {"__name__": "docs_" + page.replace(".", "_")}
    for i, block in enumerate(blocks):
        code = compile(block, "%s [python block %d]" % (page, i + 1), "exec")
        exec(code, namespace)
