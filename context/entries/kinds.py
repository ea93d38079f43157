"""How a callee that runs natively is called: one verdict, asked by every call strategy.

A *native callee* is one the engine does not rewrite: a builtin, a method of a C type,
a class, a callable object whose ``__call__`` is native. Most are called as they are;
a few need the engine's help, listed by identity (``SPECIAL_NATIVES``,
``CALLBACK_ARGUMENTS``) or by type and method name (``CALLBACK_METHOD_ARGUMENTS``).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from types import BuiltinFunctionType, MethodWrapperType, ModuleType

from ..callbacks import (
    BUILTIN_METHOD_TYPES,
    CALLBACK_ARGUMENTS,
    CALLBACK_METHOD_ARGUMENTS,
    LASTING_PLAIN_NATIVES,
    METHOD_OWNER_NAMES,
    method_places,
)
from ..frames import CALLING_FRAME_ONLY
from ..native import COPY_NAMES, SPECIAL_NATIVES, special_copy
from ..resolve import _DICT, HEAPTYPE, class_verdict, is_loaded_module

PLAIN = "plain"            # call it as it is
FRAME = "frame"            # acts on its calling frame only: from the user's frame, call it as it is
SPECIAL = "special"        # has a handler in SPECIAL_NATIVES (frame walks, class bodies, recursion limit)
CALLBACKS = "callbacks"    # takes callables that must run under the context: wrap them first
CLASS = "class"            # a class the engine instantiates itself (class_verdict)

# Natives that do the right thing when called straight from the user's frame: they act on
# that frame only. (Those that walk further up, such as ``sys._getframe(1)``, would reach
# the engine's frames above the outermost rewritten one; they go through their handlers.)
FRAME_NATIVES = frozenset(id(f) for f in CALLING_FRAME_ONLY)


def native_kind(f):
    """The verdict for native callee ``f``: one of PLAIN, FRAME, SPECIAL, CALLBACKS, CLASS.

    Only identities and types are consulted (class verdicts are cached per class until a
    class's ``__init__`` or ``__new__`` changes, or a new epoch starts: see
    ``context.watch``), so the answer for any other object never changes while it lives.
    """
    key = id(f)
    if key in SPECIAL_NATIVES:
        return FRAME if key in FRAME_NATIVES else SPECIAL
    kind = type(f)
    if kind is BuiltinFunctionType and f.__name__ in COPY_NAMES and special_copy(f):  # (name first: cheap)
        return SPECIAL
    if key in CALLBACK_ARGUMENTS or (
        kind in BUILTIN_METHOD_TYPES and method_places(type(f.__self__), f.__name__) is not None
    ):
        return CALLBACKS
    if kind is type and class_verdict(f) is not None:
        return CLASS
    return PLAIN


# Bound methods of native objects (``xs.append``, ``s.join``, ``x.__eq__``): made at each
# access, so never remembered by id; the commonest callees of real code (see ``plain_bound_native``).
BOUND_NATIVE_TYPES = BUILTIN_METHOD_TYPES | {MethodWrapperType}


def plain_bound_native(f):
    """Whether ``f`` (of a kind in ``BOUND_NATIVE_TYPES``), bound to an object that
    is neither a module nor a class, is PLAIN: ``native_kind``'s answer for the commonest callees in fewer steps
    (False: ask ``native_kind``). The direct strategy asks it first, on a cache miss.

    The owner type's names of methods that take callbacks, and the names of the bound
    natives of that type registered by identity in ``CALLBACK_ARGUMENTS``, are remembered
    in ``METHOD_OWNER_NAMES`` (while the type lives), so that the direct strategy's
    ``callee`` answers for the next bound native of that type without this frame: plain
    when its name is not among them. (``SPECIAL_NATIVES`` holds functions of modules only,
    whose owners are never remembered.)
    """
    owner = type(f.__self__)
    names = METHOD_OWNER_NAMES.values.get(id(owner))
    if names is None:
        if issubclass(owner, (ModuleType, type)):  # (C.__call__ makes an instance: not plain)
            return False
        names = frozenset([name for (_, name) in CALLBACK_METHOD_ARGUMENTS if method_places(owner, name)]
                          + [g.__name__ for g, _ in CALLBACK_ARGUMENTS.values()
                             if type(g) in BOUND_NATIVE_TYPES and type(g.__self__) is owner])
        METHOD_OWNER_NAMES.set(owner, names)
    return not names or f.__name__ not in names


LASTING_KINDS = frozenset({BuiltinFunctionType, type})  # the kinds ``remember_plain`` may keep


def remember_plain(f):
    """Remember plain native ``f`` in ``LASTING_PLAIN_NATIVES`` if it lasts as long as the process.

    Only natives that live anyway are kept (functions of the modules in ``sys.modules``, such as ``len`` or
    ``math.sqrt``, static types such as ``int``, and the ``__new__`` of a static type,
    such as ``str.__new__``, which ``super().__new__(cls, v)`` calls): keeping the object makes its id a
    safe key, since no other object can have it meanwhile, and keeps nothing else
    alive. Bound methods of objects (``xs.append``) are made at each access and are
    never kept. Returns whether ``f`` was kept.
    """
    kind = type(f)
    if kind is BuiltinFunctionType:
        owner = f.__self__
        if type(owner) is ModuleType:
            if not is_loaded_module(owner):  # a module's copy (``import_fresh_module``)
                return False                                # may go: keeping f would keep it alive
        elif owner is not None and not (
                type(owner) is type and not owner.__flags__ & HEAPTYPE
                and _DICT(owner).get(f.__name__) is f):  # (``str.__new__``, kept in a static type's dict;
            return False                                 # not ``dict.fromkeys``, bound anew at each access)
    elif kind is not type or f.__flags__ & HEAPTYPE:
        return False
    LASTING_PLAIN_NATIVES[id(f)] = f
    return True
