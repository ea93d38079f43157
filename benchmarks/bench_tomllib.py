"""Standard-library code: `tomllib.loads` of a generated 30 KB TOML document, natively and under an empty context.

The document is generated deterministically (tables, arrays of tables, inline
tables, strings with escapes, integers, floats, booleans, dates and times).
The first overdubbed call also rewrites every function it reaches; it is
reported separately as the cold call, and the warm calls are timed after it.
"""

import random
import time
import tomllib

import context
from _harness import compare, ratio_row, row, fmt_time

WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu "
         "nu xi omicron pi rho sigma tau upsilon phi chi psi omega").split()


def document(size=30_000, seed=0):
    """A TOML document of at least ``size`` characters."""
    rnd = random.Random(seed)
    word = lambda: rnd.choice(WORDS)
    quoted = lambda: f'"{word()}"'
    text = lambda: " ".join(word() for _ in range(rnd.randint(2, 6)))
    out = ['title = "benchmark document"', 'version = "1.0.0"', ""]
    i = 0
    while sum(map(len, out)) + len(out) < size:
        i += 1
        out += [
            f"[server.{word()}_{i}]",
            f'host = "10.{rnd.randint(0, 255)}.{rnd.randint(0, 255)}.{rnd.randint(1, 254)}"',
            f"port = {rnd.randint(1024, 65535)}",
            f"enabled = {rnd.choice(['true', 'false'])}",
            f"weight = {rnd.uniform(-1e3, 1e3):.6f}",
            f"ratio = {rnd.random():.3e}",
            f"mask = 0x{rnd.getrandbits(32):08x}",
            f"count = {rnd.randint(0, 10**6):_}",
            f'description = "{text()}\\t\\"quoted\\" \\u00e9"',
            f"literal = '{text()}'",
            f"created = {1990 + rnd.randint(0, 35)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"
            f"T{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}Z",
            f"day = {2000 + rnd.randint(0, 25)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}",
            f"at = {rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:00.{rnd.randint(0, 999):03d}",
            f"ports = [{', '.join(str(rnd.randint(1, 9999)) for _ in range(rnd.randint(1, 8)))}]",
            f"tags = [{', '.join(quoted() for _ in range(3))}]",
            f"matrix = [[1, 2], [{rnd.randint(0, 9)}, {rnd.randint(0, 9)}], []]",
            f'owner = {{ name = "{word()}", id = {i}, active = true, limits = {{ cpu = {rnd.random():.2f} }} }}',
            '"quoted key" = """',
            f"{text()}",
            f'{text()}"""',
            "",
            "[[products]]",
            f'name = "{word()}-{i}"',
            f"sku = {rnd.randint(10**5, 10**6)}",
            f"price = {rnd.uniform(0, 100):.2f}",
            "",
        ]
    return "\n".join(out) + "\n"


def run(quick):
    doc = document()
    expected = tomllib.loads(doc)
    ctx = context.Context()
    t0 = time.perf_counter()
    first = context.overdub(ctx, tomllib.loads, doc)
    cold = time.perf_counter() - t0
    assert first == expected
    t = compare({"native": lambda: tomllib.loads(doc),
                 "empty": lambda: context.overdub(ctx, tomllib.loads, doc)},
                repeat=3 if quick else 10)
    return [
        row(f"loads {len(doc) / 1000:.1f} kB, native", fmt_time(t["native"])),
        ratio_row("loads, empty context", t["empty"], "native", t["native"], limit=4),
        ratio_row("loads, empty context, first call (cold)", cold, "native", t["native"]),
    ]
