"""The cache of rewritten function copies under threads: a function made after another died
(often at the same address) never runs the dead one's copy, whichever thread started an epoch."""

import threading

from context import Context, overdub


def _makers():
    """Functions made and dropped one after another: each new one tends to reuse the last one's id."""
    out = []
    for i in range(200):
        f = eval("lambda: %d" % i)  # a new code object each time, so a stale copy gives a wrong answer
        out.append(f())
        del f
    return out


def test_a_function_made_after_another_thread_started_an_epoch_runs_its_own_code():
    def outer():
        before = _makers()
        # another thread's outermost run starts a new epoch while this run still reads the old one
        t = threading.Thread(target=overdub, args=(Context(), _makers))
        t.start()
        t.join()
        return before, _makers()

    before, after = overdub(Context(), outer)
    assert before == list(range(200))
    assert after == list(range(200))


def test_comprehensions_in_threads_started_together():
    src = (
        "def g(xs, gs):\n"
        "    pairs = [(x, g) for x, g in zip(xs, gs) if g is not None]\n"
        "    a, b = pairs[0]\n"
        "    d = {k: v for k, v in zip('abc', xs)}\n"
        "    return a + b + len(d) + sum(y for y in xs)\n"
    )
    fs = []
    for _ in range(100):
        ns = {}
        exec(src, ns)
        fs.append(ns["g"])
    errors = []
    barrier = threading.Barrier(4)

    def work():
        barrier.wait()
        for f in fs:
            try:
                assert overdub(Context(), f, [1, 2, 3], [4, 5, 6]) == 14
            except BaseException as e:  # kept for the assertion below, in the test's thread
                errors.append(repr(e))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
