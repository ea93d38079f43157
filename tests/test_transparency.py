"""Transparency: real code that nobody here wrote (the standard library, NumPy)
gives identical results natively and under an empty context.

Each case is a zero-argument function returning plain data (strings, numbers,
tuples, lists, dicts), so results compare by type, repr and equality; floats
compare exactly.
"""

import collections
import typing

import numpy as np
import pytest

import context
from tests.helpers import assert_same, count

CASES = []


def case(fn):
    CASES.append(fn)
    return fn


# ---------------------------------------------------------------- text formats

TOML_DOC = '''
# A configuration file in the style of a real project.
title = "pycassette sample"
version = "1.2.3"
enabled = true
ratio = 0.625
big = 1_000_000
hex = 0xDEADBEEF
oct = 0o755
bin = 0b1101
inf_value = inf
date = 1979-05-27T07:32:00-08:00
local_date = 1979-05-27
local_time = 07:32:00.999
multi = """
Roses are red
  Violets are blue"""
literal = 'C:\\Users\\nodejs\\templates'
raw_multi = \'\'\'
The first newline is
trimmed in raw strings.
\'\'\'
inline = { x = 1, y = 2, name = "point", tags = ["a", "b"] }
matrix = [[1, 2], [3, 4], [5, 6]]
mixed = [ "strings", 'literal', """multi""" ]
escaped = "tab\\tnewline\\nunicode\\u00e9"

[owner]
name = "Tom Preston-Werner"
dob = 1979-05-27T07:32:00Z

[database]
server = "192.168.1.1"
ports = [ 8000, 8001, 8002 ]
connection_max = 5000
enabled = true
temp_targets = { cpu = 79.5, case = 72.0 }

[servers]

  [servers.alpha]
  ip = "10.0.0.1"
  dc = "eqdc10"

  [servers.beta]
  ip = "10.0.0.2"
  dc = "eqdc10"
  country = "\u4e2d\u56fd"

[clients]
data = [ ["gamma", "delta"], [1, 2] ]
hosts = [
  "alpha",
  "omega",
]

[[products]]
name = "Hammer"
sku = 738594937

[[products]]

[[products]]
name = "Nail"
sku = 284758393
color = "gray"

[[fruits]]
name = "apple"

  [fruits.physical]
  color = "red"
  shape = "round"

  [[fruits.varieties]]
  name = "red delicious"

  [[fruits.varieties]]
  name = "granny smith"

[[fruits]]
name = "banana"

  [[fruits.varieties]]
  name = "plantain"

[dotted]
a.b.c = 1
a.b.d = "two"
"quoted key".x = -3.5e-2
site."google.com" = true
'''


@case
def tomllib_loads():
    import tomllib

    return repr(tomllib.loads(TOML_DOC))


PY_SOURCE = '''
import os, sys as system
from collections import OrderedDict as OD, defaultdict

GLOBAL: int = 3

@decorator(arg=1)
class Example(Base, metaclass=Meta):
    """Docstring."""
    attr: dict[str, list[int]] = {}

    def method(self, a, /, b=2, *args, c, d=4, **kwargs) -> "Example":
        global GLOBAL
        x = [i * 2 for i in range(a) if i % 2]
        y = {k: v for k, v in kwargs.items()}
        z = (lambda q: q ** 2)(b)
        with open(a) as f, open(b) as g:
            pass
        try:
            raise ValueError("x") from None
        except (ValueError, TypeError) as exc:
            del exc
        else:
            pass
        finally:
            GLOBAL += 1
        match args:
            case [1, 2, *rest] if rest:
                return f"{rest!r:>10} and {b=}"
            case {"k": v, **others}:
                return v
            case Example(attr=0) | None:
                return None
            case _:
                pass
        return not a and b or c if d else -a

    async def coro(self):
        async with lock:
            async for item in aiter():
                await item
        return [x async for x in gen()]

def gen(n):
    yield from range(n)
    total = yield
    return (a := total) + 1, a[1:2, ::3], {*n}, b"bytes", 1j
'''


@case
def ast_unparse():
    import ast

    tree = ast.parse(PY_SOURCE)
    return ast.unparse(tree), ast.dump(tree)[:2000]


@case
def tokenize_source():
    import io
    import tokenize

    toks = tokenize.generate_tokens(io.StringIO(PY_SOURCE).readline)
    return [(tokenize.tok_name[t.type], t.string, t.start) for t in toks]


JSON_OBJ = {
    "name": "pycassette",
    "numbers": [1, 2.5, -3e-7, 10**20, True, False, None],
    "nested": {"z": {"y": [{"x": "deep"}]}, "a": "\u00e9\u4e2d\n\t\""},
    "empty": [{}, []],
}


@case
def json_dumps_indent():
    import json

    return json.dumps(JSON_OBJ, indent=2, sort_keys=True)


@case
def json_loads():
    import json

    text = json.dumps(JSON_OBJ, indent=1) + "\n"
    return repr(json.loads(text)), repr(json.loads('[1.5, "x\\u00e9", {"a": null}]'))


@case
def difflib_unified_diff():
    import difflib

    a = PY_SOURCE.splitlines(keepends=True)
    b = [line.replace("a", "A") if i % 7 == 0 else line for i, line in enumerate(a)]
    del b[10:13]
    b.insert(20, "    inserted line\n")
    return "".join(difflib.unified_diff(a, b, "before.py", "after.py", n=2))


@case
def difflib_sequence_matcher():
    import difflib

    sm = difflib.SequenceMatcher(None, "private Thread currentThread;",
                                 "private volatile Thread currentThread;")
    return (sm.ratio(), sm.get_opcodes(),
            difflib.get_close_matches("appel", ["ape", "apple", "peach", "puppy"]),
            list(difflib.ndiff(["one\n", "two\n"], ["ore\n", "two\n", "three\n"])))


LOREM = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod "
         "tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, "
         "quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo.")


@case
def textwrap_fill_dedent():
    import textwrap

    block = """
        def f():
            return 1
          odd indent
    """
    return (textwrap.fill(LOREM, width=33, initial_indent="> ", subsequent_indent=". "),
            textwrap.dedent(block), textwrap.indent("a\n\nb\n", "+ "),
            textwrap.shorten(LOREM, width=40, placeholder=" [...]"),
            textwrap.wrap(LOREM, 20, break_long_words=False))


@case
def argparse_parse():
    import argparse

    p = argparse.ArgumentParser(prog="tool", description="A tool.")
    p.add_argument("files", nargs="+")
    p.add_argument("-v", "--verbose", action="count", default=0)
    p.add_argument("--level", type=int, choices=range(5), default=2)
    p.add_argument("--name", default="anon")
    p.add_argument("--flag", action="store_true")
    sub = p.add_subparsers(dest="cmd")
    run = sub.add_parser("run")
    run.add_argument("--jobs", type=int)
    ns = p.parse_args(["-vv", "--flag", "--level", "3", "a.txt", "b.txt", "run", "--jobs", "4"])
    err = None
    try:
        p.parse_args(["--level", "9", "x"])
    except SystemExit as exc:
        err = exc.code
    return sorted(vars(ns).items()), p.format_usage(), err


@case
def dataclasses_asdict():
    import dataclasses
    from dataclasses import dataclass, field

    @dataclass(frozen=True, order=True)
    class Point:
        x: float
        y: float = 0.0

    @dataclass
    class Shape:
        name: str
        points: list = field(default_factory=list)
        meta: dict = field(default_factory=dict)
        center: Point = None

    s = Shape("tri", [Point(0.0, 0.0), Point(1.0, 0.0), Point(0.5, 0.75)],
              {"color": "red"}, Point(0.5, 0.25))
    r = dataclasses.replace(s, name="tri2")
    return (dataclasses.asdict(s), dataclasses.astuple(r), repr(s).split("<locals>.")[-1],
            [dataclasses.astuple(p) for p in sorted(s.points)], s.points[0] == Point(0.0, 0.0),
            [f.name for f in dataclasses.fields(Shape)], hash(Point(1.0, 2.0)) == hash(Point(1.0, 2.0)))


@case
def enum_flags_auto():
    import enum

    class Perm(enum.Flag):
        R = enum.auto()
        W = enum.auto()
        X = enum.auto()
        RWX = R | W | X

    class Color(enum.IntEnum):
        RED = enum.auto()
        GREEN = enum.auto()
        BLUE = 10

    combo = Perm.R | Perm.X
    return (repr(combo), [m.name for m in Perm], Perm.W in combo, repr(~combo),
            Perm(5).name, repr(Color(2)), list(Color), Color.BLUE + 1,
            Color["RED"].value, str(Perm.RWX))


@case
def fractions_arithmetic():
    from fractions import Fraction

    acc = Fraction(0)
    for k in range(1, 30):
        acc += Fraction(1, k * k)
    return (acc, acc.limit_denominator(1000), Fraction("3.1415926535").limit_denominator(100),
            Fraction(7, 3) ** 3, Fraction(1.1), round(Fraction(17, 6), 2), str(Fraction(-6, 8)))


@case
def statistics_functions():
    import statistics

    data = [2.5, 3.25, 5.0, 1.75, 9.5, 4.0, 3.25, 7.125, 6.0, 0.5]
    return (statistics.mean(data), statistics.median(data), statistics.stdev(data),
            statistics.quantiles(data, n=4), statistics.mode(data), statistics.fmean(data),
            statistics.pvariance(data), statistics.geometric_mean(data),
            statistics.median_grouped([1, 2, 2, 3, 4]),
            statistics.correlation(data, sorted(data)))


EMAIL = """\
From: Alice Example <alice@example.com>
To: bob@example.org, "Carol C." <carol@example.net>
Subject: =?utf-8?q?Caf=C3=A9_meeting?=
Date: Tue, 05 Mar 2024 10:00:00 +0000
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="XYZ"

--XYZ
Content-Type: text/plain; charset="utf-8"

Hello Bob,
see you at the caf\u00e9.
--XYZ
Content-Type: text/html; charset="utf-8"

<p>Hello <b>Bob</b></p>
--XYZ--
"""


@case
def email_parse():
    import email
    import email.header
    import email.utils

    msg = email.message_from_string(EMAIL)
    parts = [(p.get_content_type(), p.is_multipart() or p.get_payload()) for p in msg.walk()]
    subject = str(email.header.make_header(email.header.decode_header(msg["Subject"])))
    return (msg["From"], email.utils.getaddresses(msg.get_all("To")), subject,
            msg.get_content_type(), msg.get_param("boundary"), parts,
            email.utils.parsedate_to_datetime(msg["Date"]).isoformat())


@case
def asyncio_program():
    import asyncio

    async def worker(name, n, out):
        for i in range(n):
            out.append((name, i))
            await asyncio.sleep(0)
        return name * n

    async def main():
        out = []
        results = await asyncio.gather(worker("a", 3, out), worker("b", 2, out),
                                       worker("c", 1, out))
        q = asyncio.Queue()
        for i in range(3):
            q.put_nowait(i)
        got = [await q.get() for _ in range(3)]
        return results, out, got

    return asyncio.run(main())


@case
def decimal_context():
    import decimal

    with decimal.localcontext() as ctx:
        ctx.prec = 40
        third = decimal.Decimal(1) / decimal.Decimal(3)
        root = decimal.Decimal(2).sqrt()
    with decimal.localcontext(prec=6, rounding=decimal.ROUND_HALF_EVEN):
        q = decimal.Decimal("2.675").quantize(decimal.Decimal("0.01"))
        s = sum(decimal.Decimal("0.1") for _ in range(10))
    return str(third), str(root), str(q), str(s), decimal.Decimal("1.30") + decimal.Decimal("1.20")


@case
def collections_types():
    Pt = collections.namedtuple("Pt", "x y z", defaults=[0])
    p = Pt(1, 2)
    c = collections.Counter("abracadabra simsalabim")
    od = collections.OrderedDict.fromkeys("abcde")
    od.move_to_end("b")
    od.move_to_end("e", last=False)
    d = collections.deque(range(10), maxlen=7)
    d.rotate(3)
    d.appendleft(-1)
    cm = collections.ChainMap({"a": 1}, {"a": 2, "b": 3})
    dd = collections.defaultdict(list)
    for w in "the quick brown fox jumps over the lazy dog".split():
        dd[len(w)].append(w)
    return (p, p._replace(z=5), p._asdict(), c.most_common(4), list(od), list(d),
            dict(cm), sorted(dd.items()), c["a"] + c["z"])


@case
def heapq_bisect():
    import bisect
    import heapq

    data = [(7, "g"), (3, "c"), (9, "i"), (1, "a"), (5, "e"), (3, "b")]
    heap = list(data)
    heapq.heapify(heap)
    popped = [heapq.heappop(heap) for _ in range(3)]
    merged = list(heapq.merge([1, 4, 9], [2, 3, 10], [0, 11]))
    s = []
    for x in [5, 1, 4, 1, 5, 9, 2, 6]:
        bisect.insort(s, x)
    return (heapq.nsmallest(3, data, key=lambda t: (t[0], t[1])), heapq.nlargest(2, data),
            popped, merged, s, bisect.bisect_left(s, 5), bisect.bisect_right(s, 5),
            bisect.bisect(s, 3, key=None))


@case
def itertools_chains():
    import itertools as it

    words = "alpha beta gamma delta epsilon zeta eta theta".split()
    return (list(it.chain.from_iterable(it.combinations("abcd", 2))),
            [(k, list(g)) for k, g in it.groupby(sorted(words, key=len), key=len)],
            list(it.accumulate([3, 1, 4, 1, 5], func=max)),
            list(it.islice(it.cycle("xyz"), 2, 9)),
            list(it.starmap(pow, [(2, 5), (3, 2)])),
            list(it.zip_longest("ab", "wxyz", fillvalue="-")),
            list(it.pairwise(range(5))), list(it.product("ab", repeat=2)),
            list(it.compress(words, [1, 0, 1])), list(it.takewhile(lambda w: len(w) > 3, words)))


@case
def functools_tools():
    import functools

    @functools.lru_cache(maxsize=None)
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    @functools.total_ordering
    class Version:
        def __init__(self, s):
            self.t = tuple(int(p) for p in s.split("."))

        def __eq__(self, other):
            return self.t == other.t

        def __lt__(self, other):
            return self.t < other.t

    @functools.singledispatch
    def kind(x):
        return "object"

    @kind.register
    def _(x: int):
        return "int"

    vs = sorted(["1.10", "1.2", "0.9.9"], key=Version)
    cmp = sorted([3, 1, 2], key=functools.cmp_to_key(lambda a, b: b - a))
    return (fib(60), fib.cache_info(), functools.reduce(lambda a, b: a * b, range(1, 15)),
            functools.partial(int, base=2)("101101"), vs, cmp, Version("1.0") >= Version("0.9"),
            kind(3), kind("s"))


@case
def re_sub_callable():
    import re

    def repl(m):
        return m.group(1).upper() + str(len(m.group(2)))

    text = "the cat sat on the mat with a hat"
    return (re.sub(r"\b(\w)(\w*)at\b", repl, text), re.findall(r"(\w)a(\w)", text),
            re.split(r"\s+(?=t)", text), re.subn("a", lambda m: "A", text, count=3),
            [m.span() for m in re.finditer(r"at", text)])


@case
def string_template_formatter():
    import string

    t = string.Template("$who likes ${what}; $$5 for $missing")
    return (t.safe_substitute(who="tim", what="kung pao"),
            string.Formatter().format("{0:>8}|{name!r}|{1:.3f}", "x", 3.14159, name="n"),
            string.capwords(" hello   wide world "))


@case
def csv_roundtrip():
    import csv
    import io

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=["id", "name", "note"], quoting=csv.QUOTE_MINIMAL)
    w.writeheader()
    w.writerows([{"id": 1, "name": "a,b", "note": 'say "hi"'},
                 {"id": 2, "name": "line\nbreak", "note": ""}])
    text = buf.getvalue()
    rows = list(csv.DictReader(io.StringIO(text)))
    dialect = csv.Sniffer().sniff("a;b;c\n1;2;3\n")
    return text, rows, dialect.delimiter


@case
def configparser_read():
    import configparser

    cp = configparser.ConfigParser(interpolation=configparser.ExtendedInterpolation())
    cp.read_string("""
[DEFAULT]
home = /home/user
[paths]
data = ${home}/data
cache = ${data}/cache
[server]
port = 8080
debug = yes
ratio = 0.75
""")
    return ({s: dict(cp[s]) for s in cp.sections()}, cp.getint("server", "port"),
            cp.getboolean("server", "debug"), cp.getfloat("server", "ratio"))


@case
def html_escape_and_parser():
    import html
    from html.parser import HTMLParser

    class Collector(HTMLParser):
        def __init__(self):
            super().__init__()
            self.events = []

        def handle_starttag(self, tag, attrs):
            self.events.append(("start", tag, attrs))

        def handle_endtag(self, tag):
            self.events.append(("end", tag))

        def handle_data(self, data):
            if data.strip():
                self.events.append(("data", data.strip()))

    p = Collector()
    p.feed('<html><body class="x"><p id=1>Hi &amp; bye<br/><a href="/u?a=1&b=2">link</a>'
           '</p><!-- c --></body></html>')
    p.close()
    return (p.events, html.escape('<a href="x">&\'</a>'),
            html.unescape("&lt;&eacute;&#x41;&#66;&gt;"))


@case
def urllib_parse():
    from urllib import parse

    u = parse.urlsplit("https://user:pw@example.com:8443/a/b;p?q=1&r=two+words&q=3#frag")
    return (u, u.port, u.hostname, parse.parse_qs(u.query), parse.parse_qsl(u.query),
            parse.urlencode({"a": "x y", "b": ["1", "2"]}, doseq=True),
            parse.quote("/päth with space"), parse.unquote("%E4%B8%AD%20x"),
            parse.urljoin("http://a/b/c/d;p?q", "../../g"), parse.urlunsplit(u))


@case
def base64_codecs():
    import base64

    data = bytes(range(0, 256, 3)) + b"pycassette"
    return (base64.b64encode(data), base64.b32encode(data), base64.a85encode(data),
            base64.b85encode(data), base64.urlsafe_b64decode(base64.urlsafe_b64encode(data)),
            base64.b16decode(base64.b16encode(data)))


@case
def hashlib_digests():
    import hashlib
    import hmac

    data = b"The quick brown fox jumps over the lazy dog" * 10
    return (hashlib.sha256(data).hexdigest(), hashlib.md5(data).hexdigest(),
            hashlib.blake2b(data, digest_size=16).hexdigest(),
            hmac.new(b"key", data, "sha1").hexdigest(),
            hashlib.pbkdf2_hmac("sha256", b"pw", b"salt", 10).hex())


@case
def pprint_pformat():
    import pprint

    obj = {"key%d" % i: [list(range(i)), {"nested": ("x" * i, i * 1.5)}] for i in range(8)}
    return pprint.pformat(obj, width=60, sort_dicts=True), pprint.pformat(JSON_OBJ, compact=True)


@case
def shlex_fnmatch():
    import fnmatch
    import shlex

    cmd = """grep -rn "hello world" --include='*.py' a\\ b "it's" $HOME # comment"""
    names = ["a.py", "b.txt", "test_x.py", "README", "x.PY", "[ab].c"]
    return (shlex.split(cmd, comments=True), shlex.join(["a b", "c'd", "e"]), shlex.quote("x y"),
            fnmatch.filter(names, "*.py"), fnmatch.fnmatchcase("x.PY", "*.py"),
            fnmatch.translate("[!a]*.?y"))


@case
def copy_deepcopy_cyclic():
    import copy

    a = [1, {"k": [2, 3]}]
    a.append(a)
    d = {"self": None, "list": a}
    d["self"] = d
    c = copy.deepcopy(d)
    return (c is not d, c["self"] is c, c["list"][2] is c["list"], c["list"] is not a,
            c["list"][:2], repr(c))


@case
def operator_sorting():
    import operator

    rows = [("bob", 3, 7.5), ("alice", 3, 9.0), ("carol", 1, 7.5), ("dave", 2, 9.0)]
    return (sorted(rows, key=operator.itemgetter(1, 0)),
            sorted(rows, key=operator.itemgetter(2), reverse=True),
            list(map(operator.attrgetter("real", "imag"), [1 + 2j, 3j])),
            operator.methodcaller("replace", "a", "A")("banana"))


@case
def datetime_arithmetic():
    import datetime as dt

    start = dt.datetime(2024, 2, 28, 22, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    later = start + dt.timedelta(days=1, hours=3, minutes=45)
    return (later.isoformat(), later.strftime("%A %d %B %Y %H:%M %z %j"),
            (later - start).total_seconds(), later.astimezone(dt.timezone.utc).isoformat(),
            dt.date(2024, 3, 1) - dt.date(2023, 3, 1), dt.date.fromisoformat("2024-12-31").isocalendar(),
            dt.datetime.strptime("2021-07-04 12:00", "%Y-%m-%d %H:%M").timetuple()[:6])


@case
def calendar_month():
    import calendar

    return (calendar.TextCalendar(calendar.SUNDAY).formatmonth(2024, 2),
            calendar.monthrange(2023, 2), calendar.isleap(2100),
            calendar.HTMLCalendar().formatmonth(2025, 1)[:300])


@case
def graphlib_toposort():
    import graphlib

    graph = {"d": {"b", "c"}, "c": {"a"}, "b": {"a"}, "e": {"d", "a"}, "f": set()}
    order = list(graphlib.TopologicalSorter(graph).static_order())
    ts = graphlib.TopologicalSorter({"x": {"y"}, "y": {"x"}})
    try:
        ts.prepare()
        cycle = None
    except graphlib.CycleError as exc:
        cycle = sorted(exc.args[1])
    return order, cycle


@case
def ipaddress_networks():
    import ipaddress

    net = ipaddress.ip_network("192.168.0.0/22")
    v6 = ipaddress.ip_network("2001:db8::/126")
    return (list(net.subnets(new_prefix=24)), net.num_addresses, str(net.supernet(prefixlen_diff=2)),
            ipaddress.ip_address("192.168.3.7") in net, list(v6.hosts()),
            list(ipaddress.collapse_addresses([ipaddress.ip_network("10.0.0.0/25"),
                                               ipaddress.ip_network("10.0.0.128/25")])),
            ipaddress.ip_address("::ffff:1.2.3.4").ipv4_mapped, net.is_private)


@case
def uuid_parsing():
    import uuid

    u = uuid.UUID("{12345678-1234-5678-1234-567812345678}")
    return (u.hex, u.int, u.fields, u.version, str(u.urn), repr(uuid.UUID(bytes=u.bytes_le)),
            uuid.uuid5(uuid.NAMESPACE_DNS, "python.org"), uuid.uuid3(uuid.NAMESPACE_URL, "x"))


@case
def colorsys_conversions():
    import colorsys

    out = []
    for rgb in [(0.2, 0.4, 0.4), (1.0, 0.0, 0.5), (0.3, 0.3, 0.3), (0.9, 0.1, 0.05)]:
        out.append((colorsys.rgb_to_hls(*rgb), colorsys.rgb_to_hsv(*rgb), colorsys.rgb_to_yiq(*rgb)))
        out.append(colorsys.hls_to_rgb(*colorsys.rgb_to_hls(*rgb)))
    return out


@case
def zipfile_roundtrip():
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for i, name in enumerate(["a.txt", "dir/b.txt", "dir/c.bin"]):
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 2, 3, 4, 6))
            zf.writestr(info, (name * (i + 5)).encode(), compress_type=zipfile.ZIP_DEFLATED)
    raw = buf.getvalue()
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        contents = {n: zf.read(n) for n in zf.namelist()}
        infos = [(i.filename, i.file_size, i.CRC) for i in zf.infolist()]
    return raw, contents, infos


@case
def tarfile_roundtrip():
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for name, data in [("x.txt", b"hello"), ("sub/y.txt", b"world" * 50)]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 1700000000
            tf.addfile(info, io.BytesIO(data))
    raw = buf.getvalue()
    with tarfile.open(fileobj=io.BytesIO(raw)) as tf:
        members = [(m.name, m.size, m.mtime) for m in tf.getmembers()]
        data = tf.extractfile("sub/y.txt").read()
    return raw, members, data


@case
def gzip_roundtrip():
    import gzip

    data = LOREM.encode() * 20
    packed = gzip.compress(data, mtime=0)
    return packed, gzip.decompress(packed) == data


def _sample(a, b: int = 2, *args, c: "list[str]" = (), **kw) -> float:
    return 0.0


@case
def inspect_signature():
    import inspect

    sig = inspect.signature(_sample)
    bound = sig.bind(1, 2, 3, c=["x"], d=4)
    bound.apply_defaults()
    return (str(sig), [(p.name, str(p.kind), p.default) for p in sig.parameters.values()],
            dict(bound.arguments), str(inspect.signature(collections.OrderedDict.move_to_end)),
            inspect.getfullargspec(_sample).args)


@case
def typing_type_hints():
    class Node(typing.NamedTuple):
        value: int
        children: "list[Node]" = []

    class Movie(typing.TypedDict, total=False):
        title: str
        year: "typing.Optional[int]"

    T = typing.TypeVar("T")

    class Box(typing.Generic[T]):
        item: "T"

    hints = typing.get_type_hints(_sample)
    return (repr(hints), repr(typing.get_type_hints(Node, localns={"Node": Node})),
            repr(typing.get_type_hints(Movie)), repr(typing.get_type_hints(Box, localns={"T": T})),
            typing.get_origin(dict[str, int]), typing.get_args(typing.Union[int, str]))


@case
def random_seeded():
    import random

    r = random.Random(12345)
    items = list(range(20))
    r.shuffle(items)
    return ([r.random() for _ in range(5)], [r.randint(1, 100) for _ in range(5)], items,
            r.sample(range(1000), 5), r.choice("abcdef"), r.gauss(0.0, 1.0),
            r.choices("abc", weights=[5, 1, 1], k=6), r.uniform(2.0, 3.0))


XML = """<?xml version="1.0"?>
<catalog xmlns:x="urn:x">
  <book id="bk101" lang="en"><author>Gambardella</author><price>44.95</price></book>
  <book id="bk102"><author>Ralls, Kim</author><price>5.95</price><x:note>n &amp; m</x:note></book>
</catalog>"""


@case
def xml_etree():
    import xml.etree.ElementTree as ET

    root = ET.fromstring(XML)
    prices = [float(b.find("price").text) for b in root.iter("book")]
    root[0].set("checked", "yes")
    ET.SubElement(root, "book", id="bk103").text = "new <one>"
    ET.indent(root)
    return (ET.tostring(root, encoding="unicode"), prices, [b.get("id") for b in root.findall("book")],
            root.find("book/{urn:x}note").text)


@case
def xml_minidom():
    from xml.dom import minidom

    doc = minidom.parseString(XML)
    return doc.toprettyxml(indent=" "), [n.getAttribute("id") for n in doc.getElementsByTagName("book")]


@case
def pathlib_pure():
    from pathlib import PurePosixPath, PureWindowsPath

    p = PurePosixPath("/usr/local/lib/python3.12/site-packages/pkg/__init__.py")
    w = PureWindowsPath(r"C:\Users\Me\Documents\report.final.docx")
    return (p.parts, p.parent.name, p.suffixes, str(p.with_suffix(".pyi")), p.stem,
            str(p.relative_to("/usr/local")), p.match("*/pkg/*.py"), w.drive, w.suffix,
            str(w.with_name("x.txt")), str(PurePosixPath("a") / "b" / ".." / "c"))


@case
def struct_pack():
    import struct

    packed = struct.pack("<hiQd3s?", -2, 70000, 2**63 + 5, 2.5, b"abc", True)
    return packed, struct.unpack("<hiQd3s?", packed), struct.calcsize("@iq"), list(struct.iter_unpack(">H", b"\x01\x02\x03\x04"))


@case
def traceback_format():
    import traceback

    def inner():
        raise KeyError("missing")

    try:
        inner()
    except KeyError as exc:
        lines = traceback.format_exception_only(type(exc), exc)
        frames = [(fs.name, fs.line) for fs in traceback.extract_tb(exc.__traceback__)]
    return lines, frames


@case
def logging_records():
    import io
    import logging

    stream = io.StringIO()
    logger = logging.getLogger("pycassette.tests.transparency")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(funcName)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        logger.info("hello %s", "world")
        logger.warning("count=%d", 3)
        logger.debug("dict %(a)s", {"a": 1})
    finally:
        logger.removeHandler(handler)
    return stream.getvalue()


@case
def warnings_stacklevel():
    import warnings

    def deprecated():
        warnings.warn("old api", DeprecationWarning, stacklevel=2)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        deprecated()
    return [(str(w.message), w.category.__name__, w.filename, w.lineno) for w in caught]


@case
def contextlib_exitstack():
    import contextlib

    log = []

    @contextlib.contextmanager
    def managed(name):
        log.append("enter " + name)
        try:
            yield name.upper()
        finally:
            log.append("exit " + name)

    with contextlib.ExitStack() as stack:
        vals = [stack.enter_context(managed(n)) for n in "abc"]
        stack.callback(log.append, "callback")
    with contextlib.suppress(ZeroDivisionError):
        1 / 0
    return vals, log


@case
def dis_disassembly():
    import dis
    import io

    def target(x, y=3):
        return [x * i + y for i in range(4)]

    out = io.StringIO()
    dis.dis(target, file=out)
    return out.getvalue(), [i.opname for i in dis.get_instructions(target)]


@case
def numpy_polyfit():
    x = np.linspace(-1.0, 2.0, 25)
    y = 0.5 * x**3 - x**2 + 0.25 * x - 1.0 + 0.01 * np.cos(7.0 * x)
    p = np.polynomial.Polynomial.fit(x, y, 3)
    return p.convert().coef.tolist(), p(0.3).item(), p.domain.tolist(), p.deriv()(1.0).item()


@case
def numpy_polyval():
    coef = [2.0, -3.0, 0.5, 1.25]
    x = np.array([-2.0, -0.5, 0.0, 0.75, 3.0])
    return (np.polyval(coef, x).tolist(), np.polyfit(x, np.polyval(coef, x), 3).round(12).tolist(),
            np.roots([1.0, -3.0, 2.0]).tolist(), np.polyder(coef).tolist())


@case
def numpy_percentile():
    data = np.array([[3.5, 1.0, 7.25, 9.0], [2.0, 8.5, 4.75, 0.5], [6.0, 6.0, 1.5, 10.0]])
    return (np.percentile(data, [10, 50, 90]).tolist(), np.percentile(data, 25, axis=0).tolist(),
            np.median(data, axis=1).tolist(),
            np.quantile(data, 0.3, method="nearest").item(), np.nanpercentile([1.0, np.nan, 3.0], 50).item())


@case
def numpy_linalg():
    a = np.array([[4.0, -2.0, 1.0], [-2.0, 4.0, -2.0], [1.0, -2.0, 4.0]])
    b = np.array([11.0, -16.0, 17.0])
    return (np.linalg.solve(a, b).tolist(), np.linalg.det(a).item(), np.linalg.inv(a).tolist(),
            np.linalg.norm(a).item(), np.linalg.cholesky(a).tolist(), np.linalg.matrix_rank(a).item())


@case
def numpy_histogram():
    data = np.sin(np.arange(200) * 0.37) * 3.0 + np.arange(200) % 7
    counts, edges = np.histogram(data, bins=12, range=(-3.0, 9.0))
    h2, xe, ye = np.histogram2d(data[:100], data[100:], bins=4)
    return (counts.tolist(), edges.tolist(), np.histogram(data, bins="auto")[0].tolist(),
            h2.tolist(), np.bincount(np.arange(20) % 6).tolist(), np.digitize([0.5, 2.5], [0, 1, 2, 3]).tolist())


@case
def numpy_array_api():
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    return (np.einsum("ijk,k->ij", a, np.array([1.0, -1.0, 2.0, 0.5])).tolist(),
            np.unique(np.array([3, 1, 3, 2, 1]), return_counts=True)[1].tolist(),
            np.convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5]).tolist(),
            np.interp([0.5, 1.5, 9.0], [0.0, 1.0, 2.0], [10.0, 20.0, 0.0]).tolist(),
            np.cumsum(a, axis=2)[1, 2].tolist(), np.pad(np.eye(2), 1).tolist(),
            np.array2string(a[0], precision=2, separator=", "))


# ------------------------------------------------------------------- the tests

def test_corpus_is_large_enough():
    assert len(CASES) >= 45
    assert len({fn.__name__ for fn in CASES}) == len(CASES)


@pytest.mark.parametrize("fn", CASES, ids=[fn.__name__ for fn in CASES])
def test_same_result_under_empty_context(fn):
    native = fn()
    dubbed = context.overdub(context.Context(), fn)
    assert_same(native, dubbed)
    # and once more, now that rewritten code may be cached
    assert_same(native, context.overdub(context.Context(), fn))


class PassThrough(context.Context):
    """Overrides only ``overdub`` (its code calls ``STATE.run(f, *args)``) and counts the calls."""

    def overdub(self, f, /, *args, **kwargs):
        self.metadata += 1
        return context.Context.overdub(self, f, *args, **kwargs)


class AfterEach(context.Context):
    """Counts the calls in a posthook: each call runs inside the engine's frames and the hook's."""

    def posthook(self, out, f, /, *args, **kwargs):
        self.metadata += 1


@pytest.mark.parametrize("kind", [PassThrough, AfterEach], ids=["overdub only", "posthook"])
@pytest.mark.parametrize("fn", CASES, ids=[fn.__name__ for fn in CASES])
def test_same_result_under_contexts_that_run_frames_of_their_own(fn, kind):
    # code that walks the stack (logging, warnings, tracebacks) sees the user's frames only
    ctx = kind(metadata=0)
    assert_same(fn(), context.overdub(ctx, fn))
    assert ctx.metadata > 1


# ------------------------------------ a counting context sees the inner calls

def test_json_dumps_inner_calls_are_seen():
    import json

    out, seen = count(lambda: json.dumps(JSON_OBJ, indent=2, sort_keys=True))
    assert out == json.dumps(JSON_OBJ, indent=2, sort_keys=True)
    assert seen["dumps"] == 1
    assert seen["JSONEncoder.encode"] == 1
    assert seen["JSONEncoder.iterencode"] == 1


def test_json_pure_python_encoder_calls_are_seen():
    import json

    # Not one-shot, so the pure-Python encoder runs on every version.
    def encode():
        return "".join(json.JSONEncoder(indent=2, sort_keys=True).iterencode(JSON_OBJ))

    out, seen = count(encode)
    assert out == encode()
    assert seen["JSONEncoder.iterencode"] == 1
    assert seen["_make_iterencode"] == 1
    # five dicts: the top level, JSON_OBJ["nested"], ["nested"]["z"], the
    # {"x": "deep"} inside a list, and the empty {} inside "empty"
    assert seen["_make_iterencode.<locals>._iterencode_dict"] == 5


def test_tomllib_inner_calls_are_seen():
    import tomllib
    import tomllib._parser as parser

    names = {n for n in dir(parser) if callable(getattr(parser, n))
             and getattr(getattr(parser, n), "__module__", None) == "tomllib._parser"}
    out, seen = count(lambda: tomllib.loads(TOML_DOC))
    assert out == tomllib.loads(TOML_DOC)
    assert seen["loads"] == 1
    assert "parse_key_value_pair" in names and seen["parse_key_value_pair"] >= 10
    assert seen["parse_value"] >= 10
    assert len(names & set(seen)) >= 10


def test_ast_unparse_visits_are_seen():
    import ast

    tree = ast.parse(PY_SOURCE)
    out, seen = count(lambda: ast.unparse(tree))
    assert out == ast.unparse(tree)
    assert seen["_Unparser.visit_ClassDef"] == 1
    assert seen["_Unparser.visit_FunctionDef"] == 2
    assert seen["_Unparser.visit_AsyncFunctionDef"] == 1
    assert seen["_Unparser.visit_Match"] == 1


def test_difflib_matcher_internals_are_seen():
    import difflib

    def ratio():
        return difflib.SequenceMatcher(None, "abcdefgh" * 3, "abxdefgy" * 3).ratio()

    out, seen = count(ratio)
    assert out == ratio()
    assert seen["SequenceMatcher"] == 1          # the class call ...
    assert seen["SequenceMatcher.set_seqs"] == 1  # ... runs __init__, whose calls are seen
    assert seen["SequenceMatcher.get_matching_blocks"] == 1
    assert seen["SequenceMatcher.find_longest_match"] >= 2


def test_polynomial_fit_internals_are_seen():
    x = np.linspace(0.0, 1.0, 9)

    def fit():
        return np.polynomial.Polynomial.fit(x, x * x, 2).coef.tolist()

    out, seen = count(fit)
    assert out == fit()
    # Polynomial.fit is a Python classmethod that maps the domain and calls the
    # module-level polyfit helper (pure Python in numpy.polynomial).
    assert seen["ABCPolyBase.fit"] == 1
    assert seen["mapparms"] >= 1
    assert seen["_fit"] >= 1
