"""How the ready-made contexts show the values of a call: arguments, results, exceptions.

By default a value is shown without running any code of the program's own: a tracer that
calls a program's ``__repr__`` at every call changes what the program does where the repr
has effects (a cache whose repr drops expired entries, a lazily computed value, a repr
that makes a coroutine) and may cost more than the call (a repr listing 100,000 items).
So values whose type's ``__repr__`` is the program's Python code are shown as
``<module.Class object at 0x...>``, as ``object.__repr__`` shows them; classes, exceptions,
enum members, dataclasses, bound methods, subclasses of the built-in containers (named tuples
among them) and the standard library's containers are shown from what they store, each part
shown the same way; everything else (built-in and C types, the standard library's and
NumPy's reprs, this package's) by its repr. ``reprs=True`` calls the program's ``__repr__``
methods as ``repr`` would.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import dataclasses
import enum
import os
import reprlib
import sys
from collections import ChainMap, UserDict, UserList
from functools import partial
from itertools import islice
from types import FunctionType, MemberDescriptorType, MethodType, ModuleType, SimpleNamespace

from ..resolve import lookup_special
from ..weakcache import IdentityCache
from .display import callee_name


class _ProgramFreeRepr(reprlib.Repr):
    """reprlib's cut reprs (deques, arrays, long strings), whose items of other kinds are shown as
    ``short_repr`` shows them by default: with no code of the program's own."""

    def repr_instance(self, x, level):
        text = _without_program_code(x, type(x), self.maxother)
        return super().repr_instance(x, level) if text is None else text


def _cut_repr(kind):
    r = kind()
    r.maxstring = 60
    r.maxother = 60
    r.maxlist = r.maxtuple = r.maxdict = r.maxset = r.maxarray = 6
    return r


_REPR = _cut_repr(reprlib.Repr)
_PROGRAM_FREE_REPR = _cut_repr(_ProgramFreeRepr)
_REPRLIB_KINDS = frozenset(name[5:] for name in dir(reprlib.Repr) if name.startswith("repr_")) - {"instance"}


_PLAIN_SCALARS = frozenset([float, bool, type(None), complex])
_UNCUT = 1 << 30  # the limit of a container's text where no limit is given (six items are still shown)
_BIG = 10**18


def short_repr(value, limit=80, reprs=False):
    """``repr(value)`` cut to about ``limit`` characters; never raises. ``reprs``: call the
    program's own ``__repr__`` methods (else such values are shown as ``object.__repr__`` does)."""
    kind = type(value)
    if kind is str:  # the common cases first, without reprlib's dispatch
        # only what is shown of a long one (a 30 kB document passed at every call)
        text = repr(value) if limit is None or len(value) <= limit else repr(value[:limit])
    elif (kind is int and -_BIG < value < _BIG) or kind in _PLAIN_SCALARS:
        text = repr(value)
    elif kind in _CONTAINERS:
        text = _container_repr(value, kind, _UNCUT if limit is None else limit, 3, reprs)
    elif kind is type:
        text = repr(value)
    elif reprs:
        text = _long_repr(value, _REPR)
    else:
        text = _without_program_code(value, kind, limit)
        if text is None:  # (reprlib's containers, a deque, show their items: each as here)
            text = _long_repr(value, _PROGRAM_FREE_REPR if kind.__name__ in _REPRLIB_KINDS else _REPR)
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 3, 1)] + "..."
    return text


_CONTAINER_ITEMS = 6  # items shown of a container, as reprlib does


def _container_repr(value, kind, limit, level, reprs):
    """A tuple, list, set, frozenset or dict, its first items shown short (insertion or iteration
    order, as repr shows them; reprlib sorts sets, which costs more than the call traced)."""
    if level == 0:
        return "..."
    n = len(value)
    if n <= _CONTAINER_ITEMS and kind is not dict and limit >= _QUICK_REPR:
        # a few short atoms ((pos, value) results): repr itself, when it says no more than the items would
        for item in value:
            k = type(item)
            if not ((k is str and len(item) <= _SHORT and item.isascii()) or (k is int and -_BIG < item < _BIG)
                    or k in _PLAIN_SCALARS):
                break
        else:
            text = repr(value)
            if len(text) <= limit:
                return text
    items = []
    shown = 0
    length = 0
    containers = _CONTAINERS
    for item in (value.items() if kind is dict else value):
        if shown == _CONTAINER_ITEMS:
            items.append("...")
            break
        shown += 1
        if kind is dict:
            k, v = item
            text = "%s: %s" % (_item_repr(k, limit, level, reprs), _item_repr(v, limit, level, reprs))
        elif type(item) in containers:
            text = _container_repr(item, type(item), limit, level - 1, reprs)
        else:
            text = short_repr(item, limit, reprs)
        items.append(text)
        length += len(text)
        if length > limit:  # already longer than what is shown
            items.append("...")
            break
    body = ", ".join(items)
    if kind is tuple:
        return "(%s,)" % body if n == 1 else "(%s)" % body
    if kind is list:
        return "[%s]" % body
    if kind is dict:
        return "{%s}" % body
    if not n:
        return "%s()" % kind.__name__
    return "{%s}" % body if kind is set else "frozenset({%s})" % body


def _item_repr(item, limit, level, reprs):
    kind = type(item)
    if kind in _CONTAINERS:
        return _container_repr(item, kind, limit, level - 1, reprs)
    return short_repr(item, limit, reprs)


_CONTAINERS = frozenset([tuple, list, set, frozenset, dict])


def _long_repr(value, cut):
    try:
        text = cut.repr(value)
    except Exception as exc:  # a half-built object, a broken __repr__: say so, do not stop the run
        text = "<%s object (repr failed: %s)>" % (type(value).__qualname__, type(exc).__name__)
    return text


def format_arguments(args, kwargs, limit=80, reprs=False):
    """``a, b, k=v`` for a call's arguments, each value cut to ``limit`` characters (``reprs``: as
    for ``short_repr``)."""
    # short ASCII strings and small ints as they are (most arguments): the test _container_repr makes of
    # its items, written in line here (a function call per argument would cost what it saves)
    if limit is not None and limit >= _QUICK_REPR:
        shown = [repr(a) if (type(a) is str and len(a) <= _SHORT and a.isascii()) or (type(a) is int and -_BIG < a < _BIG)
                 else _argument_repr(a, limit, reprs) for a in args]
    else:
        shown = [_argument_repr(a, limit, reprs) for a in args]
    if kwargs:
        shown.extend("%s=%s" % (k if type(k) is str else _key_text(k), _argument_repr(v, limit, reprs))
                     for k, v in kwargs.items())
    return ", ".join(shown)


# Values that code passes again and again (a document, a set of characters) are shown from
# a cache: id(value) -> (value, limit, text). Holding the value keeps its id from being
# reused while it is cached; the cache is emptied when it fills and at the end of each
# top-level traced or printed call (``forget_shown``). Only values that hold no other
# object a program could watch are cached: strings, bytes, and frozensets of strings and
# numbers. A tuple is never held: code sees the extra reference (itertools reuses a result
# tuple only while nothing else holds it) and the objects in it would outlive their last
# use (weak references, ``__del__``).
_SHOWN = {}
_SHOWN_MAX = 512
_CACHED_KINDS = frozenset([str, frozenset, bytes])
_ATOMS = frozenset([str, bytes, int, float, bool, type(None)])


def forget_shown():
    """Empty the cache of argument texts (a top-level call ended)."""
    _SHOWN.clear()


_SHORT = 16  # characters: a string this short is shown from its repr, not from the cache
_QUICK_REPR = 2 + 4 * _SHORT  # the longest repr of such a string if ASCII ("\x00" escapes), and of an int below _BIG


def _argument_repr(value, limit, reprs):
    kind = type(value)
    if kind not in _CACHED_KINDS or (kind is str and len(value) <= _SHORT):
        return short_repr(value, limit, reprs)
    entry = _SHOWN.get(id(value))
    if entry is not None and entry[0] is value and entry[1] == limit:
        return entry[2]
    text = short_repr(value, limit)  # (strings, bytes, frozensets of atoms: no program code either way)
    if kind is frozenset:
        atoms = _ATOMS
        if not all(type(item) in atoms for item in value):
            return text  # holding it would keep the objects in it alive
    if len(_SHOWN) >= _SHOWN_MAX:
        _SHOWN.clear()
    _SHOWN[id(value)] = (value, limit, text)
    return text


# -- values shown without the program's code --------------------------------------------------

_TYPE_REPR = type.__repr__
_OBJECT_REPR = object.__repr__
_EXCEPTION_ARGS = BaseException.__dict__["args"].__get__
_OBJECT_DICT = object.__getattribute__
_TYPE_MRO = type.__dict__["__mro__"].__get__
_MODULE_DICT = ModuleType.__dict__["__dict__"].__get__
_BASES = (list, tuple, dict, set, frozenset)


def _without_program_code(value, kind, limit):
    """The text of ``value`` where its repr would run the program's code or show what it stores
    through code that can (a subclass of a container, an exception's arguments), else None:
    its repr runs no code of the program's own."""
    found = lookup_special(kind, "__repr__")
    entry = _SHOWERS.values.get(id(kind))
    if entry is None or entry[0] is not found:  # (a class can be given a repr)
        entry = (found, _shower(kind, found))
        _SHOWERS.set(kind, entry)
    show = entry[1]
    if show is None:
        return None
    if id(value) in _BEING_SHOWN:  # it holds itself (a partial among its own arguments)
        return "..."
    _BEING_SHOWN.add(id(value))
    try:
        return show(value, kind, limit)
    except Exception as exc:  # a half-built object (a partial before its __init__): say so, never raise
        return "<%s object (not shown: %s)>" % (kind.__qualname__, type(exc).__name__)
    finally:
        _BEING_SHOWN.discard(id(value))


_BEING_SHOWN = set()  # ids of the values whose parts are being shown


_SHOWERS = IdentityCache()  # type -> (its __repr__, how its values are shown or None: by repr)


def _shower(kind, found):
    """How values of ``kind`` are shown, ``text = show(value, kind, limit)``, or None where
    their repr runs no code of the program's own."""
    if issubclass(kind, type):  # a class (whatever its metaclass's repr says)
        return lambda value, kind, limit: _TYPE_REPR(value)
    if issubclass(kind, BaseException):
        return _exception_text
    if issubclass(kind, _BASES):
        return _subclass_shower(kind)
    if issubclass(type(kind), enum.EnumType):
        return _member_text
    if issubclass(kind, ModuleType) and kind is not ModuleType:  # its repr reads attributes through its class
        return _module_text
    names = [(c.__module__, c.__qualname__) for c in _TYPE_MRO(kind)]
    for stored, view in _STORED_VIEWS.items():
        # a subclass, or a copy of the type from a module imported afresh (as CPython's tests make)
        if (stored.__module__, stored.__qualname__) in names:
            name = view[0] if names[0] == (stored.__module__, stored.__qualname__) else kind.__name__
            return lambda value, kind, limit, show=view[1]: "%s(%s)" % (name, show(value, limit))
    if kind is MethodType:  # its repr shows the receiver's
        return _method_text
    program = _written_by_the_program(found)
    fields = lookup_special(kind, "__dataclass_fields__")
    if type(fields) is dict and not program:  # the repr dataclasses made: its fields
        return lambda value, kind, limit: _dataclass_text(value, kind, fields, limit)
    np = sys.modules.get("numpy")
    if np is not None and issubclass(kind, np.ndarray) and not program:
        return _array_text
    return (lambda value, kind, limit: _OBJECT_REPR(value)) if program else None


def _exception_text(value, kind, limit):
    return "%s(%s)" % (kind.__qualname__, format_arguments(_EXCEPTION_ARGS(value), None, limit))


def _module_text(value, kind, limit):
    name = _MODULE_DICT(value).get("__name__")
    return "<%s %s>" % (kind.__qualname__, short_repr(name, limit))


def _key_text(key):
    """A keyword's name: a ``str`` subclass's own characters (not its ``__str__``)."""
    return str.__str__(key) if issubclass(type(key), str) else short_repr(key)


def _method_text(value, kind, limit):
    return "<bound method %s of %s>" % (callee_name(value.__func__, False), short_repr(value.__self__, limit))


def _member_text(value, kind, limit):
    try:
        name = _OBJECT_DICT(value, "__dict__").get("_name_")
    except AttributeError:
        name = None
    return "%s.%s" % (kind.__qualname__, name) if type(name) is str else _OBJECT_REPR(value)


def _array_text(value, kind, limit):
    if value.dtype.hasobject:  # its repr shows the objects' reprs
        return "<%s of shape %s, dtype object>" % (kind.__qualname__, value.shape)
    return _long_repr(value, _REPR)


def _subclass_shower(kind):
    """How a subclass of a built-in container is shown: ``Name(items)`` from the items it stores
    (the base type's own iteration, not an override); a named tuple's fields by name."""
    base = next(b for b in _BASES if issubclass(kind, b))
    fields = lookup_special(kind, "_fields") if base is tuple else None
    if type(fields) is tuple and all(type(f) is str for f in fields):
        def show(value, kind, limit):
            if tuple.__len__(value) == len(fields):
                return "%s(%s)" % (kind.__qualname__, format_arguments((), dict(zip(fields, tuple.__iter__(value))), limit))
            return _subclass_text(value, kind, limit, tuple)
        return show
    return lambda value, kind, limit: _subclass_text(value, kind, limit, base)


class _Pairs(list):
    """A dict's first pairs, shown as the dict's items."""

    __slots__ = ()

    def items(self):
        return self


def _subclass_text(value, kind, limit, base):
    # What is shown (a seventh item shows as "..."), in a list: a new set or dict of the items
    # would hash them again, calling the program's ``__hash__`` (test_set counts the calls).
    cut = _UNCUT if limit is None else limit
    if base is dict:
        return "%s(%s)" % (kind.__qualname__, _container_repr(
            _Pairs(islice(dict.items(value), _CONTAINER_ITEMS + 1)), dict, cut, 3, False))
    first = list(islice(base.__iter__(value), _CONTAINER_ITEMS + 1))
    if base is set or base is frozenset:
        if not first:
            return "%s()" % kind.__qualname__
        return "%s({%s})" % (kind.__qualname__, _container_repr(first, list, cut, 3, False)[1:-1])
    return "%s(%s)" % (kind.__qualname__, _container_repr(base(first), base, cut, 3, False))


def _dataclass_text(value, kind, fields, limit):
    """``Name(field=value, ...)`` as the repr dataclasses made shows it, each value shown as here."""
    try:
        stored = _OBJECT_DICT(value, "__dict__")
    except AttributeError:
        stored = {}
    shown = {}
    for name, field in fields.items():
        if type(field) is not dataclasses.Field or not field.repr or field._field_type is not _FIELD:
            continue
        if name in stored:
            shown[name] = stored[name]
            continue
        slot = lookup_special(kind, name)
        if type(slot) is not MemberDescriptorType:  # a field read through code of the program's: not shown
            return _OBJECT_REPR(value)
        try:
            shown[name] = slot.__get__(value, kind)
        except AttributeError:
            return _OBJECT_REPR(value)
    return "%s(%s)" % (kind.__qualname__, format_arguments((), shown, limit))


def _items_text(items, limit):
    return format_arguments(tuple(items), None, limit)


# types of the standard library whose repr shows what they hold through the held objects' reprs:
# type -> (name shown, what is shown inside the parentheses)
_STORED_VIEWS = {
    SimpleNamespace: ("namespace", lambda v, limit: format_arguments((), _OBJECT_DICT(v, "__dict__"), limit)),
    partial: ("functools.partial", lambda v, limit: format_arguments((v.func, *v.args), v.keywords, limit)),
    UserDict: ("UserDict", lambda v, limit: short_repr(_OBJECT_DICT(v, "__dict__").get("data"), limit)),
    UserList: ("UserList", lambda v, limit: short_repr(_OBJECT_DICT(v, "__dict__").get("data"), limit)),
    ChainMap: ("ChainMap", lambda v, limit: _items_text(_OBJECT_DICT(v, "__dict__").get("maps", ()), limit)),
    slice: ("slice", lambda v, limit: _items_text((v.start, v.stop, v.step), limit)),
}
_FIELD = getattr(dataclasses, "_FIELD", None)


_verdicts = {}  # a __repr__'s file -> whether it is the program's (not the standard library's, NumPy's, ours)
_STDLIB = os.path.dirname(os.__file__) + os.sep
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_OURS = tuple(os.path.join(_ROOT, name) + os.sep for name in ("context", "ad"))


def _written_by_the_program(found):
    """Whether ``found``, a type's ``__repr__``, is code the program wrote (not a built-in's, the
    standard library's, NumPy's or this package's)."""
    if type(found) is not FunctionType:  # a built-in or C type's own repr
        return False
    path = found.__code__.co_filename
    verdict = _verdicts.get(path)
    if verdict is None:
        verdict = _verdicts[path] = not _trusted_file(path)
    return verdict


def _trusted_file(path):
    if path.startswith("<frozen "):
        return True
    if path.startswith(_STDLIB):  # not its installed packages, nor its own test suites (programs too)
        rest = path[len(_STDLIB):].split(os.sep)
        return not any(part.endswith("-packages") or part in ("test", "tests", "idle_test") for part in rest[:-1])
    np = sys.modules.get("numpy")
    if np is not None and path.startswith(os.path.dirname(np.__file__) + os.sep):
        return True
    return path.startswith(_OURS)

