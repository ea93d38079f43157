"""The persistent cache of rewritten code (``context/rewrite/diskcache.py``).

Every test uses a directory of its own (``tmp_path``), never the user's cache.
"""

import dis
import multiprocessing
import os
import subprocess
import sys
import textwrap
import types

import pytest

import context
from context.activation import _class_plan
from context.rewrite import diskcache
from context.rewrite.code import _rewrite, rewrite_code
from context.state import STATE
from tests.helpers import OverdubRecorder, Recorder

EMPTY = _class_plan(context.Context)[0]
CONFIGS = [EMPTY, _class_plan(Recorder)[0], _class_plan(OverdubRecorder)[0]]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.delenv("PYCASSETTE_CACHE", raising=False)
    diskcache.enable(tmp_path)
    yield tmp_path
    diskcache.reset()


def entries(root):
    return sorted(p for p in root.rglob("*.bin") if not p.name.startswith(".tmp-"))


def sample(xs, factor=2):
    out = []
    with open(os.devnull) as f:
        out.append(f.closed)
    try:
        out.append(sorted(xs, key=lambda v: -v)[0] * factor)
    except IndexError:
        out.append(None)
    finally:
        out.append(len([x for x in xs if x]))
    return out, {k: v for k, v in zip("abc", xs)}


def fresh_code(fn):
    """A copy of ``fn``'s code that no memory cache has seen."""
    return fn.__code__.replace(co_consts=fn.__code__.co_consts + (object.__new__(type("X", (), {})).__class__.__name__,))


@pytest.mark.parametrize("config", CONFIGS, ids=["empty", "prehook", "overdub"])
def test_round_trip(cache, config):
    code = sample.__code__
    fresh = _rewrite(code, config)
    assert diskcache.load(code, config) is None
    assert diskcache.store(code, config, fresh)
    assert len(entries(cache)) == 1
    loaded = diskcache.load(code, config)
    assert loaded is not None and loaded is not fresh
    assert loaded.co_code == fresh.co_code
    assert loaded.co_exceptiontable == fresh.co_exceptiontable
    assert loaded.co_stacksize == fresh.co_stacksize
    assert loaded == fresh  # the same constants, names, tables
    assert any(c is STATE for c in loaded.co_consts)  # the real objects are back
    nested = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    assert all(any(c is n for c in loaded.co_consts) for n in nested)  # the original nested code
    fn = types.FunctionType(loaded, sample.__globals__, "sample", sample.__defaults__)
    assert fn([3, 0, 5]) == sample([3, 0, 5])  # outside a context, rewritten code runs natively


def test_rewrite_code_uses_the_disk(cache):
    code = fresh_code(sample)
    first = rewrite_code(code, EMPTY)
    assert len(entries(cache)) == 1
    again = rewrite_code(code.replace(), EMPTY)  # an equal code object: memory misses, disk hits
    assert again is not first and again == first


def test_a_hit_runs_as_natively_under_contexts(cache):
    def work():
        import json
        return json.loads(json.dumps({"a": [1, 2.5, None]}, sort_keys=True, indent=1))

    native = work()
    assert context.overdub(context.Context(), work) == native
    n = len(entries(cache))
    assert n > 3
    script = textwrap.dedent(f"""
        import json, context
        from context.rewrite import code, diskcache
        diskcache.enable({str(cache)!r})
        rewrites = []
        real = code._rewrite
        code._rewrite = lambda c, config: rewrites.append(c) or real(c, config)
        def work():
            import json
            return json.loads(json.dumps({{"a": [1, 2.5, None]}}, sort_keys=True, indent=1))
        assert context.overdub(context.Context(), work) == {native!r}
        print(len(rewrites))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) < n  # the other process found the rewrites on disk


def test_corrupt_entries_are_rebuilt(cache):
    code = sample.__code__
    diskcache.store(code, EMPTY, _rewrite(code, EMPTY))
    [path] = entries(cache)
    good = path.read_bytes()
    for bad in (good[:-7], good[:40] + bytes([good[40] ^ 1]) + good[41:], b"", b"garbage" * 10,
                diskcache.MAGIC + bytes(32) + good[len(diskcache.MAGIC) + 32:]):
        path.write_bytes(bad)
        assert diskcache.load(code, EMPTY) is None
        assert not path.exists()  # removed, to be written again
        new = rewrite_code(fresh_code(sample), EMPTY)
        assert new is not None
        diskcache.store(code, EMPTY, _rewrite(code, EMPTY))
        assert path.read_bytes() == good


def test_an_entry_under_another_key_is_not_used(cache):
    code, other = sample.__code__, fresh_code.__code__
    diskcache.store(other, EMPTY, _rewrite(other, EMPTY))
    [src] = entries(cache)
    k = diskcache.key(code, EMPTY)
    dst = src.parent.parent / k[:2] / (k + ".bin")
    dst.parent.mkdir(exist_ok=True)
    src.rename(dst)
    assert diskcache.load(code, EMPTY) is None


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores permissions")
def test_read_only_directory_is_tolerated(cache):
    os.chmod(cache, 0o500)
    try:
        assert context.overdub(context.Context(), sample, [1, 2]) == sample([1, 2])
        assert diskcache.cache_dir() is None  # turned itself off for the process
    finally:
        os.chmod(cache, 0o700)


def test_a_hit_keeps_the_constants_the_code_holds(cache):
    # test_ast's test_singletons: code compiled from an AST holds the very object put in it
    import ast
    import marshal

    config = _class_plan(context.Context)[0]

    def compiled(value):
        tree = ast.parse("x = (123, 0.0)")
        tree.body[0].value = ast.copy_location(ast.Constant(value=value), tree.body[0].value)
        return compile(tree, "<string>", "exec")

    value = frozenset()
    for value in (frozenset({1.5}), (1, "a " * 50), 10**30, "b " * 30, frozenset()):
        twin = marshal.loads(marshal.dumps(value))  # equal, another object
        assert twin is not value or value == frozenset()  # (an empty frozenset may be one object)
        first = compiled(twin)
        assert diskcache.store(first, config, _rewrite(first, config))
        code = compiled(value)
        loaded = diskcache.load(code, config)
        assert loaded is not None
        assert all(a is b for a, b in zip(loaded.co_consts, code.co_consts)), (loaded.co_consts, code.co_consts)
        ns = {}
        exec(loaded, ns)
        assert ns["x"] is code.co_consts[0]
    assert compiled(value).co_consts[0] is value  # (what test_singletons checks, natively)

    # the constants that differ only for the compiler stay what the entry says
    assert not diskcache._same_constant(0.0, -0.0) and not diskcache._same_constant((0.0,), (-0.0,))
    assert diskcache._same_constant(frozenset({1}), frozenset({1}))


def test_entries_are_written_while_the_program_has_replaced_import(cache):
    # test_ast's test_sys_modules makes every import return a bare object; the store that
    # a first call makes meanwhile must not import anything (os.fdopen imports io)
    import builtins

    lazy = object()
    fn = types.FunctionType(fresh_code(sample), sample.__globals__, None, sample.__defaults__)
    real = builtins.__import__
    builtins.__import__ = lambda name, *args, **kwargs: lazy
    try:
        out = context.overdub(context.Context(), fn, [1, 2])
    finally:
        builtins.__import__ = real
    assert out == sample([1, 2])
    assert diskcache.cache_dir() is not None and entries(cache)


def test_the_cache_calls_none_of_the_functions_a_program_patches(cache, monkeypatch):
    # test_pathlib replaces os.mkdir with a function that pops from a list, test_random
    # replaces random.Random.random with a mock of a few answers: the engine's first store of
    # an entry (it makes directories and a temporary name) called both
    import os.path
    import random
    import tempfile

    called = []

    def patched(name):
        return lambda *args, **kwargs: called.append(name) or pytest.fail("the engine called the program's " + name)

    for owner, name in [(os, "mkdir"), (os, "makedirs"), (os, "walk"), (os, "fspath"), (os.path, "join"),
                        (os.path, "dirname"), (os.path, "abspath"), (tempfile, "mkstemp"),
                        (random.Random, "random"), (random.Random, "choices")]:
        monkeypatch.setattr(owner, name, patched("%s.%s" % (getattr(owner, "__name__", owner), name)))
    fn = types.FunctionType(fresh_code(sample), sample.__globals__, None, sample.__defaults__)
    out = context.overdub(context.Context(), fn, [1, 2])
    assert diskcache.prune(limit=0) > 0  # (walks the entries)
    monkeypatch.undo()
    assert not called
    assert out == sample([1, 2])


def test_unwritable_place_is_tolerated(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    diskcache.enable(blocker / "cache")
    try:
        code = fresh_code(sample)
        assert rewrite_code(code, EMPTY) is not None
        assert diskcache.store(sample.__code__, EMPTY, _rewrite(sample.__code__, EMPTY)) is False
        assert diskcache.cache_dir() is None
        assert context.overdub(context.Context(), sample, [1, 2]) == sample([1, 2])
    finally:
        diskcache.reset()


def test_disabled_by_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PYCASSETTE_CACHE", "0")
    monkeypatch.setenv("PYCASSETTE_CACHE_DIR", str(tmp_path))
    diskcache.reset()
    try:
        assert diskcache.cache_dir() is None
        rewrite_code(fresh_code(sample), EMPTY)
        assert not entries(tmp_path)
    finally:
        diskcache.reset()


def test_disable_function(cache):
    diskcache.disable()
    rewrite_code(fresh_code(sample), EMPTY)
    assert not entries(cache)


def test_location_from_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("PYCASSETTE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    diskcache.reset()
    try:
        assert diskcache.base_dir() == str(tmp_path / "pycassette")
        monkeypatch.setenv("PYCASSETTE_CACHE_DIR", str(tmp_path / "x"))
        diskcache.reset()
        assert diskcache.cache_dir().startswith(str(tmp_path / "x"))
    finally:
        diskcache.reset()


def test_key_changes_with_config_and_code():
    code = sample.__code__
    keys = {diskcache.key(code, c) for c in CONFIGS}
    keys.add(diskcache.key(code, EMPTY._replace(operators=True)))
    keys.add(diskcache.key(fresh_code.__code__, EMPTY))
    keys.add(diskcache.key(code.replace(co_firstlineno=code.co_firstlineno + 1), EMPTY))
    assert None not in keys and len(keys) == 6
    assert diskcache.key(code, EMPTY) == diskcache.key(code.replace(), EMPTY)


def test_configs_that_cannot_be_named_are_not_cached(cache):
    def a_pass(bc):
        return bc

    code = sample.__code__
    assert diskcache.key(code, EMPTY._replace(passes=(a_pass,))) is None
    assert diskcache.key(code, EMPTY._replace(handlers=(("getitem", lambda o, k: o[k]),))) is None
    assert diskcache.key(code, EMPTY._replace(handlers=(("getitem", dis.dis),))) is not None
    assert not diskcache.store(code, EMPTY._replace(passes=(a_pass,)), _rewrite(code, EMPTY))


def test_unnameable_constants_are_not_cached(cache):
    code = sample.__code__
    rewritten = _rewrite(code, EMPTY).replace(co_consts=_rewrite(code, EMPTY).co_consts + (object(),))
    assert not diskcache.store(code, EMPTY, rewritten)
    assert not entries(cache)


def test_prune_keeps_the_newest(cache):
    for i in range(6):
        code = sample.__code__.replace(co_firstlineno=1000 + i)
        diskcache.store(code, EMPTY, _rewrite(code, EMPTY))
        os.utime(entries(cache)[0].parent, None)
    paths = entries(cache)
    for i, p in enumerate(sorted(paths)):
        os.utime(p, (1000 + i, 1000 + i))
    size = sum(p.stat().st_size for p in paths)
    removed = diskcache.prune(limit=size // 2)
    left = entries(cache)
    assert removed > 0 and 0 < len(left) < len(paths)
    assert set(left) <= set(sorted(paths)[len(paths) - len(left):])  # the newest stay


def test_a_hit_marks_its_entry_used_once_an_hour(cache):
    """A hit touches its file (pruning keeps the recently used) only when it was last
    touched over an hour ago: a file written or touched since then is left as it is."""
    code = sample.__code__
    diskcache.store(code, EMPTY, _rewrite(code, EMPTY))
    [path] = entries(cache)
    recent = os.stat(path).st_mtime - 600
    os.utime(path, (recent, recent))
    assert diskcache.load(code, EMPTY) is not None
    assert os.stat(path).st_mtime == recent
    old = recent - 3 * 3600
    os.utime(path, (old, old))
    assert diskcache.load(code, EMPTY) is not None
    assert os.stat(path).st_mtime > recent


def test_placeholders_of_user_objects_are_looked_up_at_each_load(cache, monkeypatch):
    """The engine's own objects are found once per process; any other named constant is
    looked up again at each load (a module reloaded or a function redefined is seen)."""
    holder = types.ModuleType("pycassette_test_holder")
    monkeypatch.setitem(sys.modules, "pycassette_test_holder", holder)

    def first():
        return 1

    def second():
        return 2

    first.__module__ = second.__module__ = holder.__name__
    first.__qualname__ = second.__qualname__ = "handler"
    holder.handler = first
    code = sample.__code__
    rewritten = _rewrite(code, EMPTY)
    assert diskcache.store(code, EMPTY, rewritten.replace(co_consts=rewritten.co_consts + (first,)))
    assert diskcache.load(code, EMPTY).co_consts[-1] is first
    holder.handler = second
    loaded = diskcache.load(code, EMPTY)
    assert loaded.co_consts[-1] is second
    assert any(c is STATE for c in loaded.co_consts)


def test_a_hit_that_finds_no_room_is_read_again_with_room(cache, monkeypatch):
    """A hit is read where the first call came, without raising the recursion limit; at the
    limit the read fails with RecursionError (not taken for a corrupt entry: the file stays)
    and is made again with the engine's room, and the code comes from the disk all the same."""
    from context import depth
    from context.rewrite import code as code_module

    code = sample.__code__
    diskcache.store(code, EMPTY, _rewrite(code, EMPTY))
    [path] = entries(cache)
    copy = code.replace()  # equal content, so the same entry, but not in the memory cache
    assert copy is not code and diskcache.key(copy, EMPTY) == diskcache.key(code, EMPTY)
    real_load, calls = diskcache.load, []

    def load(c, config):
        calls.append(len(depth._users))  # the engine's room shows as an entry here
        if len(calls) == 1:
            raise RecursionError("maximum recursion depth exceeded")
        return real_load(c, config)

    monkeypatch.setattr(diskcache, "load", load)
    monkeypatch.setattr(code_module, "_rewrite", lambda *a: pytest.fail("rewritten instead of read"))
    new = rewrite_code(copy, EMPTY)
    assert calls[0] == 0 and calls[1] == 1 and len(calls) == 2
    assert new.co_code == _rewrite(code, EMPTY).co_code
    assert path.exists()
    monkeypatch.setattr(diskcache, "_decode", lambda *a: (_ for _ in ()).throw(RecursionError()))
    with pytest.raises(RecursionError):  # and a load never takes it for a bad entry
        real_load(copy, EMPTY)
    assert path.exists()


def test_the_engine_tag_covers_every_source_file_and_survives_a_bad_memo(cache):
    """The cache's directory is named by a hash of every ``.py`` file of the ``context``
    package (remembered under their names, sizes and times); a memo that does not look
    like a tag is recomputed, to the same tag."""
    import pathlib

    package = pathlib.Path(context.__file__).parent
    expected = sorted(p.relative_to(package).as_posix() for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    assert sorted(name for name, _, _ in diskcache._engine_files()) == expected
    tag = diskcache._engine_tag()
    [memo] = cache.glob(".engine-*")
    assert memo.read_text() == tag
    memo.write_text("not a tag")
    diskcache.reset()
    diskcache.enable(cache)
    assert diskcache._engine_tag() == tag and memo.read_text() == tag


def _writer(root, n, queue):
    from context.rewrite import diskcache
    from context.rewrite.code import _rewrite

    diskcache.enable(root)
    ok = 0
    for i in range(n):
        code = sample.__code__.replace(co_firstlineno=2000 + i % 5)
        ok += diskcache.store(code, EMPTY, _rewrite(code, EMPTY))
        ok += diskcache.load(code, EMPTY) is not None
    queue.put(ok)


def test_concurrent_writers(cache):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(str(cache), 20, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(60)
    assert results == [40, 40]
    assert len(entries(cache)) == 5
    assert not [p for p in cache.rglob(".tmp-*")]
    for i in range(5):
        code = sample.__code__.replace(co_firstlineno=2000 + i)
        assert diskcache.load(code, EMPTY) == _rewrite(code, EMPTY)
