"""A self-contained HTML flame graph of a trace: ``flamegraph_html(source) -> str``.

``source`` is a ``TraceCtx`` that kept its tree, a list of ``CallRecord`` roots, or the
path of a Chrome trace-event JSON file (``TraceCtx``'s, or any with ``X`` or ``B``/``E``
events). The page is one file: the calls are embedded as JSON, and inline JavaScript
draws them as SVG, so it opens offline and fetches nothing.

Each thread gets a graph of its own. The default view, "merged", is a flame graph: the
calls made along the same path of callers are merged into one rectangle whose width is
their total time (the heaviest first). "timeline" draws every call at its own time
instead, like Perfetto or ``chrome://tracing``. Callers are above their callees. Hovering
a rectangle shows its name, total time, share of the thread, number of calls and
``file:line``; clicking zooms into it, and the search field highlights matching names.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import html
import json
import os
from types import BuiltinFunctionType

from ..clock import clock_ns
from .chrome import atomic_write
from .display import callee_key, callee_name, code_of

_OPERATOR_MODULES = ("_operator", "operator")


def _describe_callee(f):
    """``(name, category, file, line)`` of a callee, for records not made by a ``TraceCtx``."""
    code = code_of(f)
    if type(f) is BuiltinFunctionType and f.__module__ in _OPERATOR_MODULES:
        cat = "operator"
    else:
        cat = "native" if code is None else "python"
    return (callee_name(f), cat) + ((None, None) if code is None else (code.co_filename, code.co_firstlineno))


class _Names:
    """The table of distinct frames: ``[name, category, "file:line", short name]``, each with an index."""

    def __init__(self):
        self.rows = []
        self._index = {}

    def index(self, name, cat, file=None, line=None, short=None):
        where = "" if file is None else "%s:%s" % (file, line)
        key = (name, cat, where)
        i = self._index.get(key)
        if i is None:
            i = self._index[key] = len(self.rows)
            self.rows.append([name, cat, where, short or name.rsplit(".", 1)[-1]])
        return i


def _from_records(roots, describe, segments):
    """Threads of flat events (name index, start ns, duration ns, depth: parents first) from records."""
    names = _Names()
    if not roots:
        return names.rows, []
    now = clock_ns()
    t0 = min(r.start_ns for r in roots)
    by_tid = {}
    order = []
    segments = [s for s in segments if s[0] < len(roots)]
    if not segments or segments[0][0] != 0:
        segments.insert(0, (0, 0, "thread"))
    bounds = [s[0] for s in segments[1:]] + [len(roots)]
    cache = {}
    for (first, tid, tname), stop in zip(segments, bounds):
        thread = by_tid.get(tid)
        if thread is None:
            thread = by_tid[tid] = {"name": tname, "tid": tid, "events": []}
            order.append(thread)
        events = thread["events"]
        todo = [(0, r) for r in reversed(roots[first:stop])]
        while todo:
            depth, rec = todo.pop()
            key = callee_key(rec.callee)
            i = cache.get(key)
            if i is None:
                i = cache[key] = names.index(*describe(rec.callee), short=callee_name(rec.callee, False))
            end = rec.end_ns if rec.end_ns is not None else now
            events.extend((i, rec.start_ns - t0, max(end - rec.start_ns, 0), depth))
            if rec.children:
                todo.extend([(depth + 1, c) for c in reversed(rec.children)])
    return names.rows, order


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _from_file(path):
    """Threads of flat events from a Chrome trace-event JSON file (``X`` and ``B``/``E`` events)."""
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise ValueError("flamegraph: %s is not a Chrome trace file (no traceEvents list)" % path)
    thread_names, process_names = {}, {}
    spans = {}  # (pid, tid) -> [(start ns, end ns, name, cat, file, line)]
    open_calls = {}  # (pid, tid) -> stack of B events
    last = 0
    for ev in events:
        if not isinstance(ev, dict):
            continue
        ph = ev.get("ph")
        track = (ev.get("pid", 0), ev.get("tid", 0))
        args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
        if ph == "M":
            if ev.get("name") == "thread_name":
                thread_names[track] = str(args.get("name"))
            elif ev.get("name") == "process_name":
                process_names[track[0]] = str(args.get("name"))
            continue
        if not _number(ev.get("ts")):
            continue
        ts = round(ev["ts"] * 1000)
        last = max(last, ts)
        if ph == "X":
            dur = round(ev["dur"] * 1000) if _number(ev.get("dur")) else 0
            spans.setdefault(track, []).append((ts, ts + max(dur, 0), ev, args))
            last = max(last, ts + max(dur, 0))
        elif ph == "B":
            open_calls.setdefault(track, []).append((ts, ev, args))
        elif ph == "E":
            stack = open_calls.get(track)
            if stack:
                start, begun, begun_args = stack.pop()
                spans.setdefault(track, []).append((start, ts, begun, begun_args))
    for track, stack in open_calls.items():  # begun and never ended: up to the end of the trace
        for start, begun, begun_args in stack:
            spans.setdefault(track, []).append((start, last, begun, begun_args))
    names = _Names()
    threads = []
    t0 = min((s[0] for track in spans.values() for s in track), default=0)
    for (pid, tid) in sorted(spans, key=lambda t: (str(t[0]), str(t[1]))):
        track = sorted(spans[(pid, tid)], key=lambda s: (s[0], -s[1]))
        flat = []
        ends = []  # the end of each enclosing call
        for start, end, ev, args in track:
            while ends and start >= ends[-1]:
                ends.pop()
            line = args.get("line")
            file = args.get("file")
            where = (str(file), line) if isinstance(file, str) and _number(line) else (None, None)
            i = names.index(str(ev.get("name", "(unnamed)")), str(ev.get("cat", "")), *where)
            flat.extend((i, start - t0, end - start, len(ends)))
            ends.append(end)
        name = thread_names.get((pid, tid), "thread")
        if process_names.get(pid):
            name = "%s, %s" % (process_names[pid], name)
        threads.append({"name": name, "tid": tid, "events": flat})
    return names.rows, threads


def _data(source):
    if hasattr(source, "roots") and hasattr(source, "_kept"):  # a TraceCtx (tracing imports this module)
        source._kept("save")
        return _from_records(source.roots, lambda f: source._describe(f), list(source.roots.threads))
    if isinstance(source, (str, os.PathLike)):
        return _from_file(os.fspath(source))
    try:
        roots = list(source)
    except TypeError:
        raise TypeError("flamegraph: expected a TraceCtx, a list of CallRecord or the path of a trace file, "
                        "got %s" % type(source).__name__) from None
    segments = list(getattr(source, "threads", ()))
    return _from_records(roots, _describe_callee, segments)


def _script_json(value):
    """JSON safe inside a ``<script>`` element: no ``<`` (so no ``</script>``), ASCII only."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c").replace("&", "\\u0026")


def _page(source, title):
    names, threads = _data(source)
    if title is None:
        title = "Flame graph"
        if isinstance(source, (str, os.PathLike)):
            title += " of " + os.path.basename(os.fspath(source))
    before, after = _PAGE.split("$DATA")
    title = html.escape(title)
    page = before.replace("$TITLE", title) + _script_json({"names": names, "threads": threads}) + after
    return page, sum(len(t["events"]) // 4 for t in threads)


def flamegraph_html(source, *, title=None):
    """The HTML text of a self-contained flame graph of ``source`` (see the module's docstring)."""
    return _page(source, title)[0]


def write_flamegraph(path, source, *, title=None):
    """Write ``flamegraph_html(source)`` to ``path`` (through a temporary file); returns the number of calls."""
    page, calls = _page(source, title)
    atomic_write(path, [page.encode("utf-8")])
    return calls


_PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$TITLE</title>
<style>
body { font: 13px system-ui, -apple-system, "Segoe UI", sans-serif; margin: 12px; color: #222; background: #fff; }
h1 { font-size: 17px; margin: 0 0 8px 0; }
h2 { font-size: 14px; margin: 18px 0 4px 0; }
#bar { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin-bottom: 6px; }
#bar label { cursor: pointer; }
#details { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; min-height: 1.4em;
           padding: 4px 6px; background: #f4f4f4; border-radius: 3px; white-space: pre-wrap; }
svg.flame { display: block; width: 100%; }
svg.flame g { cursor: pointer; }
svg.flame rect { stroke: #fff; stroke-width: 0.5; }
svg.flame rect.hit { fill: #e040fb; }
svg.flame text { font: 11px ui-monospace, Menlo, Consolas, monospace; fill: #111; pointer-events: none; }
.note { color: #666; }
</style>
</head>
<body>
<h1>$TITLE</h1>
<div id="bar">
  <span>View:</span>
  <label><input type="radio" name="mode" value="merged" checked> merged (flame graph)</label>
  <label><input type="radio" name="mode" value="timeline"> timeline</label>
  <input id="search" type="search" placeholder="highlight names containing..." size="30">
  <button id="reset" type="button">reset zoom</button>
  <span class="note">hover: details; click: zoom</span>
</div>
<div id="details"> </div>
<div id="graphs"></div>
<noscript><p>This flame graph is drawn by JavaScript: allow scripts for this file to see it.</p></noscript>
<script id="trace-data" type="application/json">$DATA</script>
<script>
"use strict";
(function () {
  var DATA = JSON.parse(document.getElementById("trace-data").textContent);
  var NAMES = DATA.names;
  var ROW = 17;
  var mode = location.hash === "#timeline" ? "timeline" : "merged", query = "", zoom = {};
  if (mode === "timeline") document.querySelector('input[value="timeline"]').checked = true;
  var frames = {};  // "thread index:frame index" -> details, for the hover line

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function fmt(ns) {
    if (ns < 1e3) return ns.toFixed(0) + " ns";
    if (ns < 1e6) return (ns / 1e3).toFixed(3) + " \u00b5s";
    if (ns < 1e9) return (ns / 1e6).toFixed(3) + " ms";
    return (ns / 1e9).toFixed(3) + " s";
  }
  function hash(s) {
    var h = 0;
    for (var i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
    return Math.abs(h);
  }
  function color(n) {
    var name = NAMES[n][0], cat = NAMES[n][1], h = hash(name);
    var base = cat === "python" ? 18 : cat === "operator" ? 110 : cat === "native" ? 205 : 50;
    return "hsl(" + (base + h % 28) + "," + (55 + h % 25) + "%," + (62 + (h >> 5) % 14) + "%)";
  }

  // The merged tree of a thread: one node per path of callers, the heaviest first.
  function merge(ev) {
    var root = {n: -1, total: 0, count: 0, kids: new Map()}, stack = [root];
    for (var i = 0; i < ev.length; i += 4) {
      var d = ev[i + 3], parent = stack[d] || stack[stack.length - 1];
      var node = parent.kids.get(ev[i]);
      if (!node) { node = {n: ev[i], total: 0, count: 0, kids: new Map()}; parent.kids.set(ev[i], node); }
      node.total += ev[i + 2]; node.count += 1;
      if (d === 0) root.total += ev[i + 2];
      stack.length = d + 1; stack[d + 1] = node;
    }
    var out = [];  // flat: [name, x, width, depth, count] per node, parents first
    (function place(node, x, depth) {
      var kids = Array.from(node.kids.values()).sort(function (a, b) { return b.total - a.total; });
      for (var k = 0; k < kids.length; k++) {
        out.push([kids[k].n, x, kids[k].total, depth, kids[k].count]);
        place(kids[k], x, depth + 1);
        x += kids[k].total;
      }
    })(root, 0, 0);
    return {frames: out, total: root.total};
  }
  function timeline(ev) {
    var out = [], total = 0, lo = Infinity, hi = 0;
    for (var i = 0; i < ev.length; i += 4) {
      out.push([ev[i], ev[i + 1], ev[i + 2], ev[i + 3], 1]);
      if (ev[i + 3] === 0) total += ev[i + 2];
      lo = Math.min(lo, ev[i + 1]); hi = Math.max(hi, ev[i + 1] + ev[i + 2]);
    }
    return {frames: out, total: total, lo: out.length ? lo : 0, hi: hi};
  }

  var layouts = DATA.threads.map(function (t) { return {merged: null, timeline: null}; });
  function layout(t) {
    var cached = layouts[t];
    if (!cached[mode]) cached[mode] = mode === "merged" ? merge(DATA.threads[t].events) : timeline(DATA.threads[t].events);
    return cached[mode];
  }

  function draw() {
    var graphs = document.getElementById("graphs");
    var width = Math.max(graphs.clientWidth || document.documentElement.clientWidth || 800, 200);
    var parts = [];
    frames = {};
    DATA.threads.forEach(function (thread, t) {
      var L = layout(t), fr = L.frames;
      var lo = mode === "merged" ? 0 : L.lo, hi = mode === "merged" ? L.total : L.hi;
      var z = zoom[t + mode];
      if (z) { lo = z[0]; hi = z[1]; }
      var span = Math.max(hi - lo, 1), scale = width / span, depth = 0, body = [];
      for (var i = 0; i < fr.length; i++) {
        var f = fr[i], x0 = f[1], x1 = f[1] + f[2];
        if (x1 <= lo || x0 >= hi) continue;
        var px = (Math.max(x0, lo) - lo) * scale, pw = (Math.min(x1, hi) - Math.max(x0, lo)) * scale;
        if (pw < 0.4) continue;
        depth = Math.max(depth, f[3] + 1);
        var nm = NAMES[f[0]], y = f[3] * ROW;
        var share = L.total ? (100 * f[2] / L.total).toFixed(1) + "%" : "";
        var info = nm[0] + "\n" + fmt(f[2]) + (share ? " (" + share + " of the thread)" : "") +
                   (mode === "merged" ? ", " + f[4] + (f[4] === 1 ? " call" : " calls") : "") +
                   (nm[2] ? "\n" + nm[2] : "") + "\n" + nm[1];
        frames[t + ":" + i] = info;
        var hit = query && nm[0].toLowerCase().indexOf(query) >= 0 ? ' class="hit"' : "";
        var label = "";
        if (pw > 30) {
          var fit = Math.floor((pw - 6) / 6.7), text = nm[0].length <= fit ? nm[0] : nm[3];
          if (text.length > fit) text = text.slice(0, Math.max(fit - 2, 1)) + "..";
          label = '<text x="' + (px + 3).toFixed(1) + '" y="' + (y + 12) + '">' + esc(text) + "</text>";
        }
        body.push('<g data-f="' + t + ":" + i + '"><title>' + esc(info) + "</title>" +
                  '<rect x="' + px.toFixed(1) + '" y="' + y + '" width="' + pw.toFixed(1) + '" height="' + (ROW - 1) +
                  '" fill="' + color(f[0]) + '"' + hit + "></rect>" + label + "</g>");
      }
      var calls = thread.events.length / 4;
      parts.push('<h2>' + esc(thread.name) + " (tid " + esc(thread.tid) + "): " + calls + (calls === 1 ? " call, " : " calls, ") +
                 fmt(L.total) + (z ? ", zoomed" : "") + "</h2>" +
                 '<svg class="flame" data-thread="' + t + '" height="' + Math.max(depth * ROW, ROW) + '" viewBox="0 0 ' + width +
                 " " + Math.max(depth * ROW, ROW) + '" preserveAspectRatio="none">' + body.join("") + "</svg>");
    });
    if (!DATA.threads.length) parts.push("<p>No calls were recorded.</p>");
    graphs.innerHTML = parts.join("");
  }

  var graphs = document.getElementById("graphs");
  graphs.addEventListener("mouseover", function (e) {
    var g = e.target.closest ? e.target.closest("g[data-f]") : null;
    if (g) document.getElementById("details").textContent = frames[g.getAttribute("data-f")].replace(/\n/g, "  |  ");
  });
  graphs.addEventListener("click", function (e) {
    var g = e.target.closest ? e.target.closest("g[data-f]") : null;
    if (!g) return;
    var key = g.getAttribute("data-f").split(":"), t = +key[0], f = layout(t).frames[+key[1]];
    zoom[t + mode] = [f[1], f[1] + f[2]];
    draw();
  });
  document.getElementById("reset").addEventListener("click", function () { zoom = {}; draw(); });
  document.getElementById("search").addEventListener("input", function (e) { query = e.target.value.toLowerCase(); draw(); });
  Array.prototype.forEach.call(document.querySelectorAll('input[name="mode"]'), function (r) {
    r.addEventListener("change", function (e) { mode = e.target.value; draw(); });
  });
  var pending = null;
  window.addEventListener("resize", function () { clearTimeout(pending); pending = setTimeout(draw, 100); });
  draw();
})();
</script>
</body>
</html>
"""
