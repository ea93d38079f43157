"""Cold start: the start-up of the command line next to cProfile's, the first call of a workload in a fresh process, natively and under an empty context with a cold and a warm disk cache of rewritten code; and the cost of rewriting a function against compiling its source.

The start-up rows are the best wall time over fresh processes running a two-line script
plainly, under `python -m cProfile` and under `python -m context count` (compiled modules,
as an installed package has them: the whole process, imports included).

Each first-call figure is the median over fresh processes (one subprocess per
measurement; only the call is timed, not the imports), seven rounds of a native, a
cold and a warm process in turn (a slow spell of the machine then weighs on all three
alike; measured one kind after the other, the native median once varied from 5 to 17
ms between runs). "Cold" runs with an empty cache directory, "warm" with the
directory a previous run filled. The rewrite
rows time, over a few hundred standard-library functions, `compile()` of each
function's source (`inspect.getsource`), the engine's rewrite of its code object
(`context.rewrite.code._rewrite`, exception tables verified), and a load of the
same rewrite from the disk cache.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _harness import fmt_time, ratio_row, row

ROOT = Path(__file__).resolve().parent.parent

WORKLOADS = {
    "email": '''
import email.parser, email.policy, email.generator, io
MSG = """From: Alice <alice@example.com>
To: Bob <bob@example.com>, Carol <carol@example.org>
Subject: =?utf-8?q?Hello_w=C3=B6rld?=
Date: Mon, 23 Nov 2026 10:00:00 +0000
Message-ID: <1234@example.com>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="XYZ"

--XYZ
Content-Type: text/plain; charset="utf-8"
Content-Transfer-Encoding: quoted-printable

Hi Bob, caf=C3=A9 tomorrow?
--XYZ
Content-Type: text/html; charset="utf-8"

<p>Hi Bob</p>
--XYZ--
"""
def work():
    msg = email.parser.Parser(policy=email.policy.default).parsestr(MSG)
    out = io.StringIO()
    email.generator.Generator(out, policy=email.policy.default).flatten(msg)
    return str(msg["subject"]), len(out.getvalue()), msg.get_body(("plain",)).get_content()
''',
    "argparse": '''
import argparse
def work():
    p = argparse.ArgumentParser(prog="tool", description="a tool")
    p.add_argument("-v", "--verbose", action="count", default=0)
    p.add_argument("--name", default="x", help="a name")
    sub = p.add_subparsers(dest="cmd")
    run = sub.add_parser("run", help="run it")
    run.add_argument("files", nargs="+")
    run.add_argument("--jobs", "-j", type=int, default=1)
    run.add_argument("--mode", choices=["fast", "slow"], default="fast")
    ns = p.parse_args(["-vv", "--name", "y", "run", "a.py", "b.py", "-j", "4", "--mode", "slow"])
    return vars(ns), p.format_help()
''',
}

CHILD = '''
import sys, time, json
sys.path.insert(0, {root!r})
import context
{workload}
mode = {mode!r}
t = time.perf_counter()
r = work() if mode == "native" else context.overdub(context.Context(), work)
dt = time.perf_counter() - t
assert r == work()
print(json.dumps(dt))
'''


def first_call(workload, mode, cache_dir):
    env = dict(os.environ, PYCASSETTE_CACHE_DIR=cache_dir, PYCASSETTE_CACHE="1")
    src = CHILD.format(root=str(ROOT), workload=WORKLOADS[workload], mode=mode)
    out = subprocess.run([sys.executable, "-c", src], env=env, capture_output=True, text=True, timeout=300)
    if out.returncode:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


REWRITE = '''
import sys, time, json, inspect, textwrap, types, importlib, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
import context
from context.activation import _class_plan
from context.rewrite.code import _rewrite
from context.rewrite import diskcache
config = _class_plan(context.Context)[0]
fns = []
for name in ("email.message", "email._header_value_parser", "argparse", "json.encoder", "textwrap",
             "string", "calendar", "configparser", "difflib", "csv", "shlex", "fractions"):
    m = importlib.import_module(name)
    for v in vars(m).values():
        cands = [v] if isinstance(v, types.FunctionType) else (
            [f for f in vars(v).values() if isinstance(f, types.FunctionType)] if isinstance(v, type) else [])
        fns += [f for f in cands if f.__module__ == name]
fns = fns[:{limit}]
diskcache.enable({cache!r})
rows = []
for f in fns:
    try:
        src = textwrap.dedent(inspect.getsource(f))
    except (OSError, TypeError):
        continue
    t = time.perf_counter(); compile(src, f.__code__.co_filename, "exec"); tc = time.perf_counter() - t
    t = time.perf_counter(); new = _rewrite(f.__code__, config); tr = time.perf_counter() - t
    diskcache.store(f.__code__, config, new)
    t = time.perf_counter(); hit = diskcache.load(f.__code__, config); th = time.perf_counter() - t
    assert hit == new
    rows.append((tc, tr, th))
print(json.dumps(rows))
'''


def rewrite_costs(limit):
    with tempfile.TemporaryDirectory() as d:
        src = REWRITE.format(root=str(ROOT), limit=limit, cache=d)
        out = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, timeout=600)
    if out.returncode:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def startup(repeat):
    """Best wall time of fresh processes running a two-line script plainly, under ``cProfile``
    and under ``python -m context count``, with compiled modules (as installed code has them)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "script.py")
        with open(script, "w") as f:
            f.write("xs = sorted(range(10), key=lambda v: -v)\nprint(sum(xs))\n")
        env["PYCASSETTE_CACHE_DIR"] = d
        out = {}
        for name, args in (("plain", [script]), ("cProfile", ["-m", "cProfile", script]),
                           ("count", ["-m", "context", "count", script])):
            cmd = [sys.executable] + args
            subprocess.run(cmd, env=env, capture_output=True, check=True, timeout=120)  # compiled, cached
            times = []
            for _ in range(repeat):
                t = time.perf_counter()
                subprocess.run(cmd, env=env, capture_output=True, check=True, timeout=120)
                times.append(time.perf_counter() - t)
            out[name] = min(times)
    return out


def run(quick):
    repeat = 3 if quick else 7
    rows = []
    start = startup(5 if quick else 9)
    rows.append(row("start-up: python script.py (two lines)", fmt_time(start["plain"])))
    rows.append(row("start-up: python -m cProfile script.py", fmt_time(start["cProfile"])))
    rows.append(ratio_row("start-up: python -m context count script.py", start["count"], "cProfile", start["cProfile"]))
    for workload in WORKLOADS:
        natives, cold, warm = [], [], []
        for _ in range(repeat):  # interleaved: a slow spell of the machine falls on all three alike
            natives.append(first_call(workload, "native", "/nonexistent"))
            with tempfile.TemporaryDirectory() as d:
                cold.append(first_call(workload, "empty", d))
                warm.append(first_call(workload, "empty", d))
        native = statistics.median(natives)
        rows.append(row(f"{workload}: first call, native", fmt_time(native)))
        rows.append(ratio_row(f"{workload}: first call, empty context, cold cache",
                              statistics.median(cold), "native", native, 12))
        rows.append(ratio_row(f"{workload}: first call, empty context, warm cache",
                              statistics.median(warm), "native", native, 3))
    costs = rewrite_costs(100 if quick else 400)
    tc = sum(c for c, _, _ in costs)
    tr = sum(r for _, r, _ in costs)
    th = sum(h for _, _, h in costs)
    n = len(costs)
    rows.append(row(f"{n} stdlib functions: compile() of their source", fmt_time(tc)))
    rows.append(ratio_row(f"{n} stdlib functions: rewrite (per function {fmt_time(tr / n)})", tr, "compile", tc))
    rows.append(ratio_row(f"{n} stdlib functions: disk-cache hit (per function {fmt_time(th / n)})", th, "compile", tc))
    med = statistics.median(r / c for c, r, _ in costs if c > 0)
    rows.append(row("rewrite / compile, median per function", f"{med:.1f}x"))
    return rows


if __name__ == "__main__":
    for r in run("--quick" in sys.argv):
        print(r)
