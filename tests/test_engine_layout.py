"""The engine's structure: no import cycle, one verdict on native callees, one way to run under a context."""

import ast
import builtins
import graphlib
import pathlib
import sys
from functools import lru_cache

import pytest

import ad
import context
from context.entries import kinds
from context.entries.kinds import CALLBACKS, CLASS, FRAME, PLAIN, SPECIAL, native_kind
from context.state import STATE, call_under

ROOT = pathlib.Path(context.__file__).parent


def _modules(root=None):
    root = root or ROOT
    found = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, is_package)
    return found


def _import_graph(root=None):
    """Module -> the package's modules it imports, at top level or inside functions."""
    modules = _modules(root)
    graph = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    sub = target + "." + alias.name
                    deps.add(sub if sub in modules else target)
            elif isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names)
        graph[name] = {d for d in deps if d in modules and d != name}
    return graph


def test_the_engine_has_no_import_cycle():
    graph = _import_graph()
    assert "context.entries.direct" in graph and "context.activation" in graph
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        pytest.fail("import cycle in the context package: %s" % " -> ".join(exc.args[1]))
    # the helpers rewritten code calls sit below the activation that builds the entry points
    assert order.index("context.state") < order.index("context.entries.running") < order.index("context.activation")


def test_ad_has_no_import_cycle_and_its_engine_is_what_runs_natively():
    """``ad.engine`` holds the modules declared engine code (run natively), ``ad.rules`` none of them."""
    root = pathlib.Path(ad.__file__).parent
    graph = _import_graph(root)
    assert "ad.engine.dual_array" in graph and "ad.rules.tangents" in graph
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        pytest.fail("import cycle in the ad package: %s" % " -> ".join(exc.args[1]))
    declared = {
        name for name, (path, _) in _modules(root).items() if "declare_engine_code(__file__)" in path.read_text()
    }
    engine = {name for name, (_, is_package) in _modules(root).items() if name.startswith("ad.engine.")}
    assert engine and engine == {name for name in declared if name.startswith("ad.engine.")}
    assert not {name for name in declared if name.startswith("ad.rules")}


def test_the_import_graph_sees_a_cycle_when_there_is_one(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from . import b\n")
    (tmp_path / "pkg" / "b.py").write_text("def f():\n    from .a import x\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path / "pkg")
    with pytest.raises(graphlib.CycleError):
        list(graphlib.TopologicalSorter(_import_graph()).static_order())


class _Plain:
    pass


@pytest.mark.parametrize("callee, verdict", [
    (len, PLAIN),
    ([].append, PLAIN),
    (_Plain, PLAIN),
    (int, PLAIN),
    (builtins.locals, FRAME),
    (builtins.super, FRAME),
    (sys._getframe, SPECIAL),
    (builtins.__build_class__, SPECIAL),
    (sys.getrecursionlimit, SPECIAL),
    (builtins.setattr, SPECIAL),
    (map, CALLBACKS),
    (sorted, CALLBACKS),
    ([].sort, CALLBACKS),
    ({}.setdefault, PLAIN),
])
def test_one_verdict_on_native_callees(callee, verdict):
    assert native_kind(callee) == verdict


def test_classes_the_engine_instantiates_itself():
    class WithInit:
        def __init__(self, x):
            self.x = x

    assert native_kind(WithInit) == CLASS
    assert native_kind(lru_cache(maxsize=None)(abs)) == PLAIN
    assert kinds.FRAME_NATIVES and all(native_kind(f) is FRAME for f in (locals, vars, dir, globals))


def test_call_under_runs_a_call_as_the_given_context_sees_it():
    seen = []

    class Seen(context.Context):
        def prehook(self, f, *args):
            seen.append((getattr(f, "__name__", f), args, STATE.act.ctx is self))

    ctx = Seen()

    def inner():
        act = STATE.act
        results = [act is not None and act.ctx is ctx]
        results.append(call_under(act, abs, (-3,), {}))  # the context is current: a call it sees
        results.append(call_under(None, abs, (-4,), {}))  # no context: a plain call, nothing seen
        return act, results

    act, results = context.overdub(ctx, inner)
    assert results == [True, 3, 4]
    abs_calls = [entry for entry in seen if entry[0] == "abs"]
    assert abs_calls == [("abs", (-3,), True)]
    assert STATE.act is None
    assert call_under(act, abs, (-5,), {}) == 5  # a finished context: a plain call
    assert [entry for entry in seen if entry[0] == "abs"] == abs_calls


def test_call_under_switches_to_the_given_context_and_back():
    outer_seen, inner_seen = [], []

    class Outer(context.Context):
        def prehook(self, f, *args):
            outer_seen.append(getattr(f, "__name__", f))

    class Inner(context.Context):
        def prehook(self, f, *args):
            inner_seen.append(getattr(f, "__name__", f))

    outer = Outer()

    def run_inner():
        outer_act = STATE.act

        def body():
            before = type(STATE.act.ctx)
            out = call_under(outer_act, max, (1, 2), {})
            return before, out, type(STATE.act.ctx)  # switched back

        return context.overdub(Inner(), body)

    assert context.overdub(outer, run_inner) == (Inner, 2, Inner)
    assert "max" in outer_seen and "max" not in inner_seen


class _Text(str):
    def __new__(cls, value):
        return super().__new__(cls, value.upper())


def test_a_static_types_new_is_remembered_but_natives_bound_at_each_access_are_not():
    """``str.__new__`` (what ``super().__new__`` finds in ``str``) lives as long as ``str``: it
    is remembered. ``dict.fromkeys`` is bound anew at every access: remembering it would
    keep every one of those objects."""
    from context.callbacks import LASTING_PLAIN_NATIVES

    def work(n):
        return [(_Text("a"), dict.fromkeys("ab"), int.from_bytes(b"\x01", "big")) for _ in range(n)]

    out = context.overdub(context.Context(), work, 3)
    assert out == [("A", {"a": None, "b": None}, 1)] * 3 and type(out[0][0]) is _Text
    assert LASTING_PLAIN_NATIVES.get(id(str.__new__)) is str.__new__
    before = len(LASTING_PLAIN_NATIVES)
    context.overdub(context.Context(), work, 50)
    assert len(LASTING_PLAIN_NATIVES) == before


def test_lasting_plain_natives_are_remembered_and_forgotten_when_the_tables_change():
    from context.callbacks import LASTING_PLAIN_NATIVES, register_callback_positions

    def native_calls(xs):
        xs.append(len(xs))
        return abs(-len(xs)), int("7"), _Plain()

    out = context.overdub(context.Context(), native_calls, [1])
    assert out[:2] == (2, 7) and type(out[2]) is _Plain
    assert LASTING_PLAIN_NATIVES.get(id(len)) is len and LASTING_PLAIN_NATIVES.get(id(int)) is int
    assert _Plain not in LASTING_PLAIN_NATIVES.values()  # a class made at run time: not kept
    assert all(type(f).__name__ != "builtin_function_or_method" or type(f.__self__).__name__ == "module"
               or vars(f.__self__)[f.__name__] is f  # a static type's own, as str.__new__
               for f in LASTING_PLAIN_NATIVES.values())

    # a native registered as taking callbacks afterwards is no longer called as a plain one
    seen = []

    class Seen(context.Context):
        def prehook(self, f, *args):
            seen.append(getattr(f, "__name__", None))

    def apply(fn, g, xs):
        return fn(g, xs)

    def callback(xs):
        return len(xs)

    import _operator

    assert context.overdub(Seen(), apply, _operator.call, callback, [1, 2]) == 2
    assert seen.count("callback") == 0  # called by a native: not seen
    try:
        register_callback_positions(_operator.call, (0,))
        assert id(len) not in LASTING_PLAIN_NATIVES
        seen.clear()
        assert context.overdub(Seen(), apply, _operator.call, callback, [1, 2]) == 2
        assert seen.count("callback") == 1
    finally:
        from context.callbacks import CALLBACK_ARGUMENTS

        del CALLBACK_ARGUMENTS[id(_operator.call)]


def _under_the_context():
    """Whether the calling function runs as code rewritten by the engine (not natively)."""
    from context.rewrite.code import is_rewritten

    return is_rewritten(sys._getframe(1).f_code)


def test_bound_natives_are_known_plain_by_their_owner_type_except_the_methods_that_take_callbacks():
    import gc
    import weakref

    from context.callbacks import (CALLBACK_METHOD_ARGUMENTS, METHOD_OWNER_NAMES, METHOD_OWNER_TYPES,
                                   register_callback_method)

    class Tokens(list):  # a class made at run time whose bound natives are list's
        pass

    seen = []

    def key(x):
        seen.append(_under_the_context())
        return -x

    def work(xs):
        for v in (3, 1, 2):
            xs.append(v)  # the owner type is remembered at the first append
        xs.sort(key=key)  # registered for callbacks: the key runs under the context
        return list(xs), xs.count(1)

    for make in (list, Tokens):  # (a subclass inherits list's registration of sort)
        seen.clear()
        assert context.overdub(context.Context(), work, make()) == ([3, 2, 1], 1)
        assert seen == [True, True, True]
        assert METHOD_OWNER_NAMES.values[id(make)] == {"sort"}

    # a method registered afterwards is no longer called as a plain one
    class Bag(list):
        pass

    def use(bag):
        bag.append(0)
        bag.extend([1])
        return bag.index(1, 0)

    assert context.overdub(context.Context(), use, Bag()) == 1
    assert METHOD_OWNER_NAMES.values[id(Bag)] == {"sort"}
    try:
        register_callback_method(Bag, "index", (0,))
        assert id(Bag) not in METHOD_OWNER_NAMES.values
        assert context.overdub(context.Context(), use, Bag()) == 1  # remembered again with its new method
        assert METHOD_OWNER_NAMES.values[id(Bag)] == {"index", "sort"}  # its own, and list's it inherits
    finally:
        del CALLBACK_METHOD_ARGUMENTS[(Bag, "index")]
        METHOD_OWNER_TYPES.discard(Bag)
        METHOD_OWNER_NAMES.clear()

    # a remembered class made at run time is not kept alive
    context.overdub(context.Context(), use, Bag())
    ref = weakref.ref(Bag)
    del Bag, use
    gc.collect()
    assert ref() is None

def test_every_engine_module_calls_the_builtins_it_was_imported_with():
    """Each module of ``context`` and ``ad`` binds ``__builtins__`` to the engine's copy (see
    ``context/_builtins.py``) before it defines anything, so that a builtin a program replaces
    is never the engine's: read from the sources (optional dependencies need not be
    installed), and checked on the modules loaded."""
    from context._builtins import BUILTINS

    found = {**_modules(), **_modules(pathlib.Path(ad.__file__).parent)}
    found.pop("context._builtins")
    unbound = []
    for name, (path, _) in sorted(found.items()):
        body = ast.parse(path.read_text()).body
        body = [node for node in body if not (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            or isinstance(node, ast.ImportFrom) and node.module == "__future__")]
        first = body[0] if body else None
        if not (isinstance(first, ast.ImportFrom) and first.module == "context._builtins"
                and [(a.name, a.asname) for a in first.names] == [("BUILTINS", "__builtins__")]):
            unbound.append(name)
    assert unbound == []
    loaded = [m for name, m in list(sys.modules.items()) if name in found]
    assert loaded and all(vars(m)["__builtins__"] is BUILTINS for m in loaded)
    assert context.overdub.__builtins__ is BUILTINS


def test_a_bound_native_registered_by_identity_is_not_called_as_plain_after_its_owner_type_was_remembered():
    # The direct strategy's callee answers "plain" for a bound native from its owner type's
    # remembered names alone; a bound native registered by identity must put its name there.
    import operator

    from context.callbacks import CALLBACK_ARGUMENTS, METHOD_OWNER_NAMES, register_callback_positions

    seen = []

    def callback():
        seen.append(_under_the_context())
        return 5

    caller = operator.methodcaller("__call__")
    bound = caller.__call__  # a method-wrapper of a C type's instance: calls its argument

    def work(m):
        return m(callback)

    class Hooked(context.Context):  # call sites ask ``enter`` (the prehook sees the arguments)
        def prehook(self, f, *args):
            pass

    for make in (context.Context, Hooked):
        METHOD_OWNER_NAMES.clear()
        assert context.overdub(make(), work, caller.__call__) == 5  # a fresh one: plain
        assert METHOD_OWNER_NAMES.values[id(operator.methodcaller)] == frozenset()
        assert seen == [False]
        seen.clear()
    try:
        register_callback_positions(bound, (0,))
        for make in (context.Context, Hooked):
            assert context.overdub(make(), work, caller.__call__) == 5  # the owner's names are remembered again
            seen.clear()
            assert context.overdub(make(), work, bound) == 5
            assert seen == [True]  # wrapped: the callback ran under the context
            assert METHOD_OWNER_NAMES.values[id(operator.methodcaller)] == {"__call__"}
            seen.clear()
            assert context.overdub(make(), work, caller.__call__) == 5  # another one: plain, as before
            assert seen == [False]
            seen.clear()
    finally:
        del CALLBACK_ARGUMENTS[id(bound)]
        METHOD_OWNER_NAMES.clear()
