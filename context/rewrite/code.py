"""Rewrite a code object for a context configuration, with a weak per-config cache."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import dis
import weakref

from bytecode import Bytecode, Instr

from ..clock import engine_work
from ..depth import engine_room
from ..errors import RewriteError
from ..stackview import is_rewritten, visible_f_back  # noqa: F401 (is_rewritten is exported)
from ..watch import WATCHED, attribute_changed
from ..state import STATE
from ..weakcache import IdentityCache
from . import codec, diskcache, exctable
from .calls import rewrite_calls
from .attrwatch import rewrite_attribute_stores
from .framewalks import rewrite_frame_walks
from .operators import plain_attribute_loads, rewrite_direct, rewrite_implicit

_caches = weakref.WeakValueDictionary()  # RewriteConfig -> IdentityCache(code -> rewritten code)
_KNOWN = frozenset(name for name in dis.opmap if not name.startswith("INSTRUMENTED_"))


def _check(items, code):
    for item in items:
        if isinstance(item, Instr) and item.name not in _KNOWN:
            raise RewriteError(
                "cannot rewrite %s (%s, line %s): instruction %s is not understood; "
                "make the context's canrecurse return False for it to run it natively"
                % (code.co_qualname, code.co_filename, item.lineno, item.name)
            )


def _engine_passes(items, code, config, decoded=False):
    """The engine's own passes over ``items`` (after the context's, if any).

    ``decoded``: the items are ``codec.decode``'s, unchanged: every opcode is known (decode
    refuses others), and the names the code loads are its ``co_names``, so passes looking
    for a name it lacks are skipped.
    """
    if not decoded:
        _check(items, code)
    items = rewrite_implicit(items, config)
    attribute_loads = plain_attribute_loads(items) if any(k == "getattr" for k, _ in config.handlers) else frozenset()
    items = rewrite_calls(items, config.callees_at_load, config.callee_as_argument)
    items = rewrite_direct(items, config.handlers, attribute_loads)  # (the original items stay alive: ids hold)
    names = code.co_names if decoded else None
    if names is None or "f_back" in names:
        items = rewrite_frame_walks(items, visible_f_back)
    if names is None or not WATCHED.isdisjoint(names):
        items = rewrite_attribute_stores(items, WATCHED, attribute_changed)
    return items


def _rewrite(code, config):
    fast = not config.passes and codec.AVAILABLE
    if not fast:  # a pass's own errors (a wrong return type) reach the user as they are
        bc, original_items = _context_passes(code, config)
    try:
        if fast:
            try:
                return _marked(_rewrite_fast(code, config))
            except codec.Unsupported:  # something the fast codec does not know: bytecode does it all
                bc, original_items = _context_passes(code, config)
        return _marked(_rewrite_general(bc, original_items, code, config))
    except (RecursionError, MemoryError, RewriteError):
        raise  # not about the code (as natively, the program's own condition), or already said
    except Exception as exc:  # the bytecode library rejected what we built, or the check failed
        raise RewriteError(
            "cannot rewrite %s (%s, line %s): %s: %s"
            % (code.co_qualname, code.co_filename, code.co_firstlineno, type(exc).__name__, exc)
        ) from exc


def _rewrite_fast(code, config):
    """The rewrite with ``codec`` reading and writing the code (no pass of the context's own)."""
    original_items, raw = codec.decode(code)
    items = _engine_passes(original_items, code, config, decoded=True)
    if not code.co_exceptiontable:  # no depth to carry: one simulation of the result gives the size
        new = codec.encode(items, code, 0, raw)
        return new.replace(co_stacksize=exctable.stack_size(new))
    stacksize = exctable.carry_depths(original_items, items, code.co_flags)
    new = codec.encode(items, code, stacksize, raw)
    exctable.verify(code, new)
    return new


def _context_passes(code, config):
    """``(bytecode, original items)`` after the context's own passes."""
    bc = Bytecode.from_code(code, conserve_exception_block_stackdepth=True)
    original_items = list(bc)  # their TryBegins carry CPython's depths (see exctable)
    for apply in config.passes:
        result = apply(bc)
        if not isinstance(result, Bytecode):
            raise TypeError(
                "pass %r must return a bytecode.Bytecode, got %s"
                % (getattr(apply, "__name__", apply), type(result).__name__)
            )
        bc = result
    return bc, original_items


def _rewrite_general(bc, original_items, code, config):
    """The rewrite through the ``bytecode`` package (contexts with passes of their own)."""
    items = _engine_passes(list(bc), code, config)
    bc.clear()
    list.extend(bc, items)  # every item is one that bytecode checked, or an Instr of the passes
    # exception-table depths are carried over and verified, never recomputed by bytecode
    return exctable.assemble(bc, original_items, code, compare=not config.passes)


def _marked(code):
    """``code`` with the engine's state object among its constants, so that ``is_rewritten``
    knows it (code with no call site would not load it); an unused constant changes nothing."""
    if any(c is STATE for c in code.co_consts):
        return code
    return code.replace(co_consts=code.co_consts + (STATE,))


def code_cache(config):
    """The cache of code rewritten for ``config``. It lives as long as something holds it
    (the function cache of a context class with that configuration), so configurations
    made at run time (classes with passes of their own) do not accumulate."""
    cache = _caches.get(config)
    if cache is None:
        cache = _caches[config] = IdentityCache()
    return cache


def rewrite_code(code, config):
    """The code object ``code`` with every call routed through the current context."""
    cache = _caches.get(config)
    if cache is None:
        cache = code_cache(config)
    new = cache.values.get(id(code))
    if new is None:
        with engine_work():  # not the user's time
            try:  # another process may have rewritten it already: a load needs a few frames
                new, loaded = diskcache.load(code, config), True
            except RecursionError:  # the first call came at the recursion limit: tried again below
                new, loaded = None, False
            if new is None:
                with engine_room():  # whatever depth the first call came at
                    if not loaded:
                        new = diskcache.load(code, config)
                    if new is None:
                        new = _rewrite(code, config)
                        diskcache.store(code, config, new)
            cache.set(code, new)
    return new


def cache_size(config=None):
    """Number of cached rewritten code objects (for one config, or all)."""
    if config is not None:
        return len(_caches.get(config, ()))
    return sum(len(c) for c in _caches.values())
