"""``implicit_handlers``: subscripts and iteration handed to functions called directly."""

import context


class Logged(context.Context):
    """Records each handler call in ``self.metadata`` (a list shared through the handlers' closure)."""


def make(log):
    def getitem(obj, key):
        log.append(("get", key))
        return obj[key]

    def setitem(obj, key, value):
        log.append(("set", key, value))
        obj[key] = value

    def iterable(x):
        log.append(("iter", type(x).__name__))
        return x

    cls = type("Logged", (Logged,), {"implicit_handlers": {"getitem": getitem, "setitem": setitem, "iterable": iterable}})
    return cls()


def subscripts(xs):
    xs[0] = xs[1] + 1
    xs[1:3] = [7, 8]
    return xs[0], xs[:2], xs[-1]


def test_subscripts_and_slices_call_the_handlers():
    log = []
    out = context.overdub(make(log), subscripts, [1, 2, 3, 4])
    assert out == (3, [3, 7], 4)
    assert log == [
        ("get", 1), ("set", 0, 3), ("set", slice(1, 3), [7, 8]),
        ("get", 0), ("get", slice(None, 2)), ("get", -1),
    ]


def loops(pairs):
    total = 0
    for a, b in pairs:
        total += a * b
    first, *rest = pairs
    return total, first, len(rest), [x for x, _ in pairs]


def test_loops_and_unpacking_ask_for_what_to_iterate():
    log = []
    pairs = [(1, 2), (3, 4)]
    assert context.overdub(make(log), loops, pairs) == loops(pairs)
    kinds = [entry[1] for entry in log if entry[0] == "iter"]
    # the loop, each unpacked pair, the starred unpacking, and the comprehension with its unpacked pairs
    assert kinds == ["list", "tuple", "tuple", "list", "list", "tuple", "tuple"]


def test_handlers_can_change_what_is_read():
    def clamped(obj, key):
        return obj[min(key, len(obj) - 1)] if type(key) is int else obj[key]

    cls = type("Clamped", (context.Context,), {"implicit_handlers": {"getitem": clamped}})
    assert context.overdub(cls(), lambda xs: xs[5] + xs[0], [10, 20]) == 30


def test_handlers_see_no_hooks():
    seen = []

    class Hooked(context.Context):
        implicit_handlers = {"getitem": lambda obj, key: obj[key]}

        def prehook(self, f, *args):
            seen.append(getattr(f, "__name__", f))

    def g(xs):
        return len(xs) + xs[0]

    assert context.overdub(Hooked(), g, [5]) == 6
    assert seen == ["len"]
