"""The HTML flame graph: self-contained, from kept records or trace files, and drawn by a real
browser when one is installed (headless Chromium or Chrome)."""

import html.parser
import json
import re
import shutil
import subprocess

import pytest

import context
from context.ready.flamegraph import flamegraph_html, write_flamegraph
from context.ready.tracing import TraceCtx


def leaf(x):
    return x + 1


def middle(x):
    return leaf(x) * 2


def top(x):
    return middle(x) + leaf(x=x)


def odd_name():
    return 1


odd_name.__qualname__ = "weird</script><b>&name"


def calls_odd():
    return odd_name() + len("x")


NAMES = ["top", "middle", "leaf"]


class Page(html.parser.HTMLParser):
    """Collects the tags, the attributes, and the text of each script and title."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.scripts, self.svg_titles, self.texts = [], [], [], [], []
        self._in = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)
        self._in.append(tag)

    def handle_endtag(self, tag):
        while self._in and self._in.pop() != tag:
            pass

    def handle_data(self, data):
        if not self._in:
            return
        if self._in[-1] == "script":
            self.scripts.append(data)
        elif self._in[-1] == "title" and "svg" in self._in:
            self.svg_titles.append(data)
        elif self._in[-1] == "text":
            self.texts.append(data)


def parse(text):
    page = Page()
    page.feed(text)
    page.close()
    return page


def check_self_contained(text):
    assert text.startswith("<!DOCTYPE html>")
    assert not re.search(r"https?://", text), "a URL in the page"
    page = parse(text)
    for key, value in page.attrs:  # nothing to load: no src or href, no url() in styles
        assert key not in ("src", "href", "srcset", "action"), (key, value)
    assert "url(" not in text and "@import" not in text and "fetch(" not in text and "XMLHttpRequest" not in text
    assert page.tags.count("script") == 2 and "svg" not in page.tags  # the graph is drawn by the script
    data = json.loads(page.scripts[0])  # the embedded trace
    assert set(data) == {"names", "threads"}
    return page, data


def names_in(data):
    return {row[0] for row in data["names"]}


def traced(fn, *args):
    ctx = TraceCtx()
    context.overdub(ctx, fn, *args)
    return ctx


def test_page_of_kept_records_is_self_contained_and_names_the_calls():
    ctx = traced(top, 3)
    text = flamegraph_html(ctx)
    page, data = check_self_contained(text)
    assert names_in(data) == {"%s.%s" % (__name__, n) for n in NAMES}
    (thread,) = data["threads"]
    assert len(thread["events"]) == 4 * 4  # name, start, duration, depth per call
    starts, durations, depths = thread["events"][1::4], thread["events"][2::4], thread["events"][3::4]
    assert depths == [0, 1, 2, 1] and starts[0] == 0 and all(d > 0 for d in durations)
    assert durations[0] == ctx.roots[0].end_ns - ctx.roots[0].start_ns
    rows = {row[0]: row for row in data["names"]}
    row = rows["%s.middle" % __name__]
    assert row[1] == "python" and row[2] == "%s:%d" % (middle.__code__.co_filename, middle.__code__.co_firstlineno)
    assert row[3] == "middle"
    assert flamegraph_html(ctx.roots) .count("middle") == text.count("middle")  # a list of records works too


def test_page_of_a_trace_file_streamed_or_kept(tmp_path):
    streamed = tmp_path / "streamed.json"
    with TraceCtx(streamed) as ctx:
        context.overdub(ctx, top, 3)
    kept = tmp_path / "kept.json"
    traced(top, 3).save(kept)
    for path in (streamed, kept):
        _, data = check_self_contained(flamegraph_html(path))
        assert names_in(data) == {"%s.%s" % (__name__, n) for n in NAMES}
        (thread,) = data["threads"]
        assert thread["events"][3::4] == [0, 1, 2, 1]  # nested by time, whatever the order in the file
        assert thread["name"].endswith("MainThread")
    assert "Flame graph of streamed.json" in flamegraph_html(streamed)


def test_page_of_a_begin_end_trace_from_another_tool(tmp_path):
    events = [
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 7, "ts": 0, "args": {"name": "worker"}},
        {"ph": "B", "name": "outer", "pid": 1, "tid": 7, "ts": 10},
        {"ph": "B", "name": "inner", "pid": 1, "tid": 7, "ts": 12},
        {"ph": "E", "name": "inner", "pid": 1, "tid": 7, "ts": 15},
        {"ph": "E", "name": "outer", "pid": 1, "tid": 7, "ts": 20},
        {"ph": "X", "name": "other", "pid": 1, "tid": 8, "ts": 11, "dur": 2},
    ]
    path = tmp_path / "be.json"
    path.write_text(json.dumps(events))  # the array form
    _, data = check_self_contained(flamegraph_html(path))
    assert [t["name"] for t in data["threads"]] == ["worker", "thread"]
    assert data["threads"][0]["events"] == [0, 0, 10_000, 0, 1, 2_000, 3_000, 1]
    assert data["threads"][1]["events"] == [2, 1_000, 2_000, 0]
    with pytest.raises(ValueError, match="not a Chrome trace"):
        bad = tmp_path / "bad.json"
        bad.write_text('{"x": 1}')
        flamegraph_html(bad)
    with pytest.raises(TypeError, match="TraceCtx"):
        flamegraph_html(3)


def test_names_cannot_break_out_of_the_page():
    text = flamegraph_html(traced(calls_odd), title="<i>title</i>")
    page, data = check_self_contained(text)
    assert text.count("</script>") == 2
    assert "<i>" not in text and "&lt;i&gt;title&lt;/i&gt;" in text
    assert "%s.weird</script><b>&name" % __name__ in names_in(data)


def test_write_flamegraph_and_an_empty_trace(tmp_path):
    path = tmp_path / "f.html"
    assert write_flamegraph(path, traced(top, 3)) == 4
    check_self_contained(path.read_text(encoding="utf-8"))
    _, data = check_self_contained(flamegraph_html(TraceCtx()))
    assert data == {"names": [], "threads": []}


# -- drawn by a real browser -----------------------------------------------------------------

BROWSERS = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"]


def browser():
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    if shutil.which("firefox"):
        pytest.skip("only Firefox is installed, and it has no --dump-dom; the test needs Chromium or Chrome")
    pytest.skip("no headless browser installed (looked for %s)" % ", ".join(BROWSERS + ["firefox"]))


def dump_dom(path, fragment=""):
    exe = browser()
    args = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
            "--window-size=1200,800", "--user-data-dir=%s" % (path.parent / "profile"),
            "--dump-dom", path.as_uri() + fragment]
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.skip("the browser %s did not finish in 120 s" % exe)
    if done.returncode != 0 or "<html" not in done.stdout:
        pytest.skip("the browser %s could not run headless here: %s" % (exe, done.stderr.strip()[-300:]))
    return done.stdout


@pytest.mark.parametrize("view", ["", "#timeline"])
def test_a_headless_browser_draws_the_calls(tmp_path, view):
    path = tmp_path / "flame.html"
    write_flamegraph(path, traced(top, 3))
    dom = dump_dom(path, view)
    page = parse(dom)
    assert "svg" in page.tags and page.tags.count("rect") >= 3  # drawn by the script
    hovers = "\n".join(page.svg_titles)
    for n in NAMES:
        assert "%s.%s" % (__name__, n) in hovers  # the hover text of each call
    assert "%s:%d" % (middle.__code__.co_filename, middle.__code__.co_firstlineno) in hovers
    assert re.search(r"\d+\.\d{3} (ns|µs|ms)", hovers)
    assert any("top" in t for t in page.texts)  # the widest frame is labelled
    merged = ", 1 call" in hovers  # the merged view counts the calls it adds up; the timeline draws each
    assert merged == (view == "")


def five():
    return [leaf(i) for i in range(5)]


def test_the_merged_view_adds_up_the_calls_along_one_path(tmp_path):
    path = tmp_path / "five.html"
    write_flamegraph(path, traced(five))
    hovers = "\n".join(parse(dump_dom(path)).svg_titles)
    assert re.search(r"%s\.leaf\n[^\n]*, 5 calls" % re.escape(__name__), hovers)
