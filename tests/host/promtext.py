#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Is an exposition what Prometheus takes? Its own parser (python3-prometheus-client)
reads it, and the conventions netslice keeps are checked on top: every family typed
and with HELP, no family or series twice, every counter sample named ..._total.

As a program: the exposition on stdin; exit 0 if it passes, else 1 with why on stderr.
"""
import sys


def prom_parse(text):
    """(families, None) if text passes, else (what was parsed, why not)."""
    from prometheus_client.parser import text_string_to_metric_families
    try:
        fams = list(text_string_to_metric_families(text))
    except Exception as e:  # ValueError mostly; whatever it raises, Prometheus would refuse the scrape
        return [], "the parser refuses it: %r" % e
    seen, names = set(), set()
    for f in fams:
        if f.name in names:
            return fams, "family %s appears twice" % f.name
        names.add(f.name)
        if f.type == "unknown" or not f.documentation:
            return fams, "family %s has type %s, HELP %r" % (f.name, f.type, f.documentation)
        for smp in f.samples:
            key = (smp.name, tuple(sorted(smp.labels.items())))
            if key in seen:
                return fams, "series %s%s appears twice" % key
            seen.add(key)
            if f.type == "counter" and not smp.name.endswith("_total"):
                return fams, "counter sample %s does not end in _total" % smp.name
    return fams, None


def prom_samples(fams):
    """{(sample name, sorted label pairs): value}"""
    return {(smp.name, tuple(sorted(smp.labels.items()))): smp.value for f in fams for smp in f.samples}


if __name__ == "__main__":
    try:
        body = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as e:
        print("not UTF-8: %s" % e, file=sys.stderr)
        sys.exit(1)
    fams, why = prom_parse(body)
    if why or not fams:
        print(why or "no metrics", file=sys.stderr)
        sys.exit(1)
    print("%d families, %d samples" % (len(fams), sum(len(f.samples) for f in fams)))
