"""The command line (``python tools/autograd_suite.py``): options, selecting, running, reporting."""

import argparse
import os
import sys
import time

from . import __doc__ as _overview
from .cases import load_cases, select
from .report import exit_status, load, report, run_data, save
from .workers import run


def main(argv=None):
    parser = argparse.ArgumentParser(description=_overview.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-m", "--match", action="append", default=[],
                        help="run the cases whose id matches *PAT* (an fnmatch pattern; repeatable)")
    parser.add_argument("--json", metavar="FILE", help="save every record")
    parser.add_argument("--report", metavar="FILE", help="print a saved run again")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per case (default 180)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--no-autograd", action="store_true", help="finite differences only")
    parser.add_argument("--list", action="store_true", help="list the selected case ids and stop")
    parser.add_argument("--show", type=int, default=0, help="rows per list (default all)")
    parser.add_argument("-q", "--quiet", action="store_true", help="only the tables")
    parser.add_argument("--backend", choices=("forward", "reverse"), default="forward",
                        help="the mode ad's derivatives are taken in (reverse: nested once per order)")
    opts = parser.parse_args(argv)
    os.environ["AG_SUITE_BACKEND"] = opts.backend
    if opts.timeout <= 0 or opts.jobs <= 0:
        parser.error("--timeout and --jobs must be positive")
    if opts.report:
        data = load(opts.report)
        report(data, quiet=opts.quiet, show=opts.show or None)
        return exit_status(data["records"])

    cases = select(load_cases(), opts.match)
    if opts.list:
        for c in cases:
            print(c.name)
        return 0
    if not cases:
        print("no case matches", file=sys.stderr)
        return 2
    t0 = time.time()
    done = [0]

    def progress(recs):
        done[0] += 1
        if sys.stderr.isatty():
            print("\r%d/%d" % (done[0], len(cases)), end="", file=sys.stderr, flush=True)

    records, used_autograd = run(cases, jobs=opts.jobs, timeout=opts.timeout,
                                 use_autograd=not opts.no_autograd, progress=progress)
    if sys.stderr.isatty():
        print("\r", end="", file=sys.stderr)
    order = {c.name: i for i, c in enumerate(cases)}
    records.sort(key=lambda r: (order.get(r["name"], 0), r["order"]))
    data = run_data(records, used_autograd, time.time() - t0, opts.match)
    if opts.json:
        save(data, opts.json)
    report(data, quiet=opts.quiet, show=opts.show or None)
    print("\n%d cases, %d checks in %.0f s" % (len(cases), len(records), time.time() - t0))
    return exit_status(records)
