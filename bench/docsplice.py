# SPDX-License-Identifier: GPL-2.0
"""Replace the generated part of a page: the text between two markers."""
import os
import sys

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")


def page(name):
    """The page a report writes: docs/NAME, or $NETSLICE_BENCH_DOC (the
    tests point every report there)."""
    return os.environ.get("NETSLICE_BENCH_DOC", os.path.join(DOCS, name))


# The instruction count's page.
DOC = page("benchmarks.md")


def splice(doc_path, begin, end, text, who):
    """Write TEXT between BEGIN and END in DOC_PATH; exit naming WHO if the
    page lacks either marker."""
    with open(doc_path) as f:
        doc = f.read()
    if begin not in doc or end not in doc:
        sys.exit(f"{who}: {doc_path} lacks the {begin} / {end} markers")
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(doc_path, "w") as f:
        f.write(head + begin + "\n" + text + "\n" + end + tail)
