"""Rewrite a code object for a context configuration, with a weak per-config cache."""

import dis

from bytecode import Bytecode, Instr

from ..errors import RewriteError
from ..state import STATE
from ..weakcache import IdentityCache
from .calls import rewrite_calls
from .framewalks import rewrite_frame_walks
from .operators import rewrite_direct, rewrite_implicit

_caches = {}  # RewriteConfig -> IdentityCache(code -> rewritten code)
_KNOWN = frozenset(dis.opmap)


def is_rewritten(code):
    """True for code objects this module produced (they load the engine's state object)."""
    return any(c is STATE for c in code.co_consts)


def _check(items, code):
    for item in items:
        if isinstance(item, Instr) and (item.name not in _KNOWN or item.name.startswith("INSTRUMENTED_")):
            raise RewriteError(
                "cannot rewrite %s (%s, line %s): instruction %s is not understood; "
                "make the context's canrecurse return False for it to run it natively"
                % (code.co_qualname, code.co_filename, item.lineno, item.name)
            )


def _visible_f_back():
    from ..frames import visible_f_back  # frames imports this module

    return visible_f_back


def _rewrite(code, config):
    bc = Bytecode.from_code(code, conserve_exception_block_stackdepth=True)
    for apply in config.passes:
        result = apply(bc)
        if not isinstance(result, Bytecode):
            raise TypeError(
                "pass %r must return a bytecode.Bytecode, got %s"
                % (getattr(apply, "__name__", apply), type(result).__name__)
            )
        bc = result
    items = list(bc)
    _check(items, code)
    items = rewrite_calls(rewrite_implicit(items, config), config.callees_at_load, config.callee_as_argument)
    items = rewrite_direct(items, config.handlers)
    items = rewrite_frame_walks(items, _visible_f_back())
    bc.clear()
    bc.extend(items)
    try:
        return bc.to_code()
    except Exception as exc:  # the bytecode library rejected what we built
        raise RewriteError(
            "cannot rewrite %s (%s, line %s): %s: %s"
            % (code.co_qualname, code.co_filename, code.co_firstlineno, type(exc).__name__, exc)
        ) from exc


def rewrite_code(code, config):
    """The code object ``code`` with every call routed through the current context."""
    cache = _caches.get(config)
    if cache is None:
        cache = _caches[config] = IdentityCache()
    new = cache.values.get(id(code))
    if new is None:
        new = _rewrite(code, config)
        cache.set(code, new)
    return new


def cache_size(config=None):
    """Number of cached rewritten code objects (for one config, or all)."""
    if config is not None:
        return len(_caches.get(config, ()))
    return sum(len(c) for c in _caches.values())
