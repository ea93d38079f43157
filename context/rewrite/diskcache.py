"""A persistent cache of rewritten code objects, shared by processes (like pytest's cache
of rewritten assertions).

An entry is keyed by a hash of

* the original code object's content (``_os.marshal_dumps(code)``: bytecode, constants and
  nested code objects, names, file name, first line, line and exception tables);
* the interpreter (``sys.version``, ``sys.implementation.cache_tag``), the ``bytecode``
  package's version and a hash of the engine's rewriting source (``context/rewrite/*.py``
  and ``context/_support.py``), so an upgrade or an edit of the engine never reads an old
  entry (these form a directory of their own);
* every field of the ``RewriteConfig``. Configurations with ``passes`` are not cached on
  disk (a user's pass may change without anything here noticing); functions among the
  fields (the ``handlers``) are named by module and qualified name, and only when that
  name leads back to the same object.

Rewritten code holds constants that ``marshal`` cannot write (the engine's ``STATE``,
helper functions, handlers). Each is written as a placeholder naming where it lives
(module and attribute path) and put back on load. Anything that cannot be named so
makes the code uncacheable (it is rewritten in every process, as before).

An entry is a file: a magic line, a SHA-256 of the rest, then the marshalled
``(key, code)``. A file that fails any check (truncated, corrupt, another key, a
placeholder that no longer resolves) is ignored and rewritten. Files are written to a
temporary name in the same directory and moved into place with ``os.replace``, so
readers in other processes see whole entries or none. The directory is pruned, oldest
``mtime`` first (a hit touches its file if it was last touched over an hour ago), when it
grows past ``PYCASSETTE_CACHE_MAX_MB`` (default 200). Any ``OSError`` (read-only or full
disk, no home directory) turns the disk cache off for the process: rewriting then falls
back to the memory cache alone. A ``RecursionError`` while reading is not about the entry
(the read found no room below the recursion limit): it propagates, and the caller reads
again with room (``rewrite_code``).

Location: ``$PYCASSETTE_CACHE_DIR``, else ``$XDG_CACHE_HOME/pycassette``, else
``~/.cache/pycassette``. ``PYCASSETTE_CACHE=0`` (or ``disable()``) turns it off.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import hashlib
import importlib
import io
import marshal
import os
import sys
import time
import types

import bytecode

# The functions this module uses, bound once, and only natives: a program that patches
# ``builtins.open``, ``os.replace``, ``os.mkdir``, ``tempfile.mkstemp`` or ``random`` (tests do,
# with ``unittest.mock``) must see neither the engine's file work nor its own mocks called by
# it. (``os.makedirs``, ``tempfile.mkstemp``, ``os.walk`` and ``os.path`` are Python code that
# looks up ``os.mkdir``, ``os.scandir``, ``os.fspath`` and a ``random.Random`` at each call.)
_os = types.SimpleNamespace(
    open=io.open, replace=os.replace, stat=os.stat, remove=os.remove, utime=os.utime,
    os_open=os.open, os_read=os.read, os_close=os.close, fstat=os.fstat, time=time.time,
    mkdir=os.mkdir, os_write=os.write, scandir=os.scandir, urandom=os.urandom, fspath=os.fspath,
    sha256=hashlib.sha256, marshal_dumps=marshal.dumps, marshal_loads=marshal.loads,
)
_SEP = os.sep
_SEPS = os.sep + (os.altsep or "")
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # context/, at import
_TEMPORARY_FLAGS = (os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                    | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))

MAGIC = b"pycassette-rewrite-1\n"
_MARK = "\x00pycassette:const"  # first item of a placeholder tuple
_PRUNE_ONE_IN = 512  # a store checks the cache's size with this probability (by its key)
_TOUCH_AFTER = 3600.0  # a hit marks its file used (for pruning) when it was last marked longer ago, in seconds
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)

_state = {"enabled": None, "root": None, "dir": None, "tag": None, "last": None}
_names = {}  # id(obj) -> (module, path) for engine objects found by search
_engine_objects = {}  # (module, path) -> the engine's object it names (placeholders read back)
_config_keys = {}  # RewriteConfig -> its text in keys (None: not cacheable)
_SAFE = (type(None), bool, int, float, complex, str, bytes, type(...))


# ----------------------------------------------------------------------------- settings


def disable():
    """Turn the disk cache off for this process (the memory cache stays)."""
    _state["enabled"] = False


def enable(directory=None):
    """Turn the disk cache on, in ``directory`` if given (else the configured place)."""
    _state.update(enabled=True, dir=None, tag=None, root=None if directory is None else _os.fspath(directory))


def reset():
    """Forget the settings; they are read from the environment again on next use."""
    _state.update(enabled=None, root=None, dir=None, tag=None, last=None)


def base_dir():
    """The cache's root directory: ``enable``'s, else from the environment."""
    if _state["root"] is not None:
        return _state["root"]
    explicit = os.environ.get("PYCASSETTE_CACHE_DIR")
    if explicit:
        return explicit
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return _join(xdg, "pycassette")


def cache_dir():
    """This engine's and interpreter's directory in the cache, or None when the cache is off."""
    if _state["enabled"] is None:
        value = os.environ.get("PYCASSETTE_CACHE", "1").strip().lower()
        _state["enabled"] = value not in ("0", "off", "no", "false")
    if not _state["enabled"]:
        return None
    if _state["dir"] is None:
        _state["dir"] = _join(base_dir(), _engine_tag())
    return _state["dir"]


def _engine_files():
    """``[(relative name, path, stat)]`` of every ``.py`` file of the ``context`` package, in
    a fixed order (``os.scandir``: no path is built twice)."""
    found = []

    def visit(directory, prefix):
        with _os.scandir(directory) as it:
            listed = sorted(it, key=lambda e: e.name)
        for entry in listed:
            if entry.is_dir():
                if entry.name != "__pycache__":
                    visit(entry.path, prefix + entry.name + "/")
            elif entry.name.endswith(".py"):
                found.append((prefix + entry.name, entry.path, entry.stat()))

    visit(_PACKAGE_DIR, "")
    return found


def _engine_tag():
    """The interpreter, the ``bytecode`` version and a hash of the engine's source.

    Every ``.py`` file of the ``context`` package is hashed (anything the rewriter
    imports may shape its output). Hashing them all takes milliseconds, so the hash is
    remembered in the cache under a signature of the files' names, sizes and
    modification times, which takes a fraction of that to compute.
    """
    if _state["tag"] is None:
        head = "\0".join((sys.version, sys.implementation.cache_tag or "", getattr(bytecode, "__version__", "")))
        files = _engine_files()
        sig = _os.sha256(head.encode())
        for name, _, st in files:
            sig.update(("%s\0%d\0%d\0" % (name, st.st_size, st.st_mtime_ns)).encode())
        memo = _join(base_dir(), ".engine-" + sig.hexdigest()[:32])
        try:
            with _os.open(memo) as f:
                tag = f.read().strip()
        except OSError:
            tag = ""
        if not tag.startswith((sys.implementation.cache_tag or "") + "-") or len(tag) > 80:
            h = _os.sha256(head.encode())
            for name, path, _ in files:
                h.update(name.encode() + b"\0")
                with _os.open(path, "rb") as f:
                    h.update(f.read())
            tag = "%s-%s" % (sys.implementation.cache_tag, h.hexdigest()[:16])
            _write_atomically(memo, tag.encode())
        _state["tag"] = tag
    return _state["tag"]


def _join(directory, name):
    """``os.path.join(directory, name)`` for a ``name`` of this module's own (no separator in it)."""
    return directory + name if directory.endswith(tuple(_SEPS)) else directory + _SEP + name


def _parent(path):
    """The directory holding ``path`` ('' when there is none): ``os.path.dirname`` without its lookups."""
    head = path.rstrip(_SEPS)
    cut = max(head.rfind(c) for c in _SEPS)
    if cut < 0:
        return ""
    return head[:cut].rstrip(_SEPS) or head[:cut + 1]


def _makedirs(path):
    """``os.makedirs(path, exist_ok=True)`` with the native ``mkdir`` alone."""
    try:
        _os.mkdir(path)
    except FileExistsError:
        return
    except FileNotFoundError:
        parent = _parent(path)
        if not parent or parent == path:
            raise
        _makedirs(parent)
        try:
            _os.mkdir(path)
        except FileExistsError:
            pass


def _temporary(directory):
    """``(fd, path)`` of a new file in ``directory`` that no one else opened (``tempfile.mkstemp``'s
    promise, from ``os.urandom`` rather than a ``random.Random``)."""
    for _ in range(100):
        path = _join(directory, ".tmp-" + _os.urandom(8).hex())
        try:
            return _os.os_open(path, _TEMPORARY_FLAGS, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError("no unused temporary name in %s" % directory)


def _write_atomically(path, data):
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``; False on failure."""
    try:
        directory = _parent(path)
        _makedirs(directory)
        fd, tmp = _temporary(directory)
        try:
            try:  # (not ``os.fdopen``: it imports ``io`` through ``builtins.__import__``, which a program may replace)
                view = memoryview(data)
                while view:
                    view = view[_os.os_write(fd, view):]
            finally:
                _os.os_close(fd)
            _os.replace(tmp, path)
        except BaseException:
            _remove(tmp)
            raise
    except OSError:
        return False
    return True


# ----------------------------------------------------------------------------- naming objects


def _resolve(module, path):
    obj = sys.modules.get(module)
    if obj is None:
        obj = importlib.import_module(module)
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _name_of(obj):
    """``(module, attribute path)`` leading to ``obj`` itself, or None."""
    name = _names.get(id(obj))
    if name is not None:
        return name
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
        try:
            if _resolve(module, qualname) is obj:
                return module, qualname
        except Exception:
            pass
    # an engine object that has no name of its own (STATE, a constant dict): search the
    # engine's modules
    for modname, mod in list(sys.modules.items()):
        if mod is None or not (modname == "context" or modname.startswith("context.")):
            continue
        for attr, value in list(vars(mod).items()):
            if value is obj:
                _names[id(obj)] = (modname, attr)
                return modname, attr
    return None


def _config_key(config):
    """A text naming every field of ``config``, or None when it cannot be named stably."""
    try:
        return _config_keys[config]
    except (KeyError, TypeError):
        pass
    text = _name_config(config)
    try:
        _config_keys[config] = text
    except TypeError:  # unhashable: named again next time
        pass
    return text


def _name_config(config):
    if getattr(config, "passes", ()):
        return None
    parts = []

    def name(value):
        if isinstance(value, _SAFE):
            return repr(value)
        if isinstance(value, tuple):
            inner = [name(v) for v in value]
            return None if None in inner else "(" + ",".join(inner) + ")"
        found = _name_of(value) if callable(value) else None
        return None if found is None else "<%s:%s>" % found

    for field in type(config)._fields:
        text = name(getattr(config, field))
        if text is None:
            return None
        parts.append("%s=%s" % (field, text))
    return ";".join(parts)


def key(code, config):
    """The hex key of ``code`` rewritten for ``config``, or None when it is not cacheable."""
    last = _state["last"]
    if last is not None and last[0] is code and last[1] is config:
        return last[2]  # a miss in ``load`` followed by ``store``
    ck = _config_key(config)
    k = None
    if ck is not None:
        try:
            # version 0: no back-references or interning flags, which vary between processes
            k = _os.sha256(ck.encode() + b"\0" + _os.marshal_dumps(code, 0)).hexdigest()
        except ValueError:  # a constant marshal cannot write
            pass
    _state["last"] = (code, config, k)
    return k


# ----------------------------------------------------------------------------- (de)serialising


def _encode(code):
    """``code`` with every constant marshal cannot keep replaced by a placeholder, or None."""
    consts = []
    changed = False
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            new = _encode(c)
            if new is None:
                return None
            changed |= new is not c
            consts.append(new)
        elif _plain(c):
            if isinstance(c, tuple) and c and c[0] == _MARK:
                return None  # a user's constant looks like a placeholder
            consts.append(c)
        else:
            name = _name_of(c)
            if name is None:
                return None
            consts.append((_MARK,) + name)
            changed = True
    return code.replace(co_consts=tuple(consts)) if changed else code


def _plain(c):
    if isinstance(c, _SAFE):
        return True
    if type(c) in (tuple, frozenset):
        return all(_plain(x) for x in c)
    return False


def _placeholder(c):
    """The object a placeholder names: the engine's own are looked up once per process."""
    name = (c[1], c[2])
    obj = _engine_objects.get(name)
    if obj is None:
        obj = _resolve(c[1], c[2])
        if c[1] == "context" or c[1].startswith("context."):  # (a user's handler may be redefined)
            _engine_objects[name] = obj
    return obj


def _constant_key(c):
    """What tells constants apart for the compiler (as CPython's ``_PyCode_ConstantKey``): ``0.0``
    and ``-0.0`` are equal but different constants, as are ``(0.0,)`` and ``(-0.0,)``, ``1`` and
    ``True``. (Not ``marshal.dumps``: its output depends on reference counts.)"""
    kind = type(c)
    if kind is float or kind is complex:
        return kind, repr(c)
    if kind is tuple:
        return kind, tuple(_constant_key(x) for x in c)
    if kind is frozenset:
        return kind, frozenset(_constant_key(x) for x in c)
    return kind, c


def _same_constant(a, b):
    return _constant_key(a) == _constant_key(b)


def _decode(code, original=None):
    """Put the real objects back; nested code objects equal to ``original``'s become them, and
    the constants ``original`` starts with become its own objects again (a rewrite keeps them
    first), so that ``is`` finds them as natively (``x = frozenset()`` compiled from an AST
    holds the very object put there; ``marshal`` made copies)."""
    consts = code.co_consts
    kept = original.co_consts if original is not None else ()
    n = len(kept)
    new = None
    for i, c in enumerate(consts):
        kind = type(c)
        if i < n:
            o = kept[i]
            if c is o:
                continue
            if kind is type(o) and kind is not types.CodeType and (
                    c == o if kind is str or kind is int or kind is bytes else _same_constant(c, o)):
                if new is None:
                    new = list(consts)
                new[i] = o
                continue
        if kind is tuple:
            if len(c) != 3 or c[0] != _MARK:
                continue
            c = _placeholder(c)
        elif kind is types.CodeType:
            same = [o for o in original.co_consts if type(o) is types.CodeType and o == c] if original else ()
            c = same[0] if same else _decode(c)
        else:
            continue
        if new is None:
            new = list(consts)
        new[i] = c
    return code if new is None else code.replace(co_consts=tuple(new))


def _read(path):
    """``(bytes, mtime)`` of the file at ``path``; raises ``OSError``."""
    fd = _os.os_open(path, _READ_FLAGS)
    try:
        st = _os.fstat(fd)
        chunks = []
        left = st.st_size
        while True:
            chunk = _os.os_read(fd, max(left, 1 << 12))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        _os.os_close(fd)
    return (chunks[0] if len(chunks) == 1 else b"".join(chunks)), st.st_mtime


# ----------------------------------------------------------------------------- the files


def _path(directory, k):
    return _join(_join(directory, k[:2]), k + ".bin")


def load(code, config):
    """The cached rewrite of ``code`` for ``config``, or None."""
    directory = cache_dir()
    if directory is None:
        return None
    k = key(code, config)
    if k is None:
        return None
    path = _path(directory, k)
    try:
        data, mtime = _read(path)
    except OSError:
        return None
    try:
        n = len(MAGIC)
        if data[:n] != MAGIC or _os.sha256(data[n + 32:]).digest() != data[n:n + 32]:
            raise ValueError("bad checksum")
        stored_key, stored = _os.marshal_loads(data[n + 32:])
        if stored_key != k or not isinstance(stored, types.CodeType):
            raise ValueError("another entry")
        new = _decode(stored, code)
    except RecursionError:  # not about the entry: read where there was no room (see rewrite_code)
        raise
    except Exception:  # corrupt or stale: never trusted, rewritten and stored again
        _remove(path)
        return None
    if _os.time() - mtime > _TOUCH_AFTER:
        try:
            _os.utime(path)  # recently used: pruned last
        except OSError:
            pass
    return new


def store(code, config, new):
    """Write ``new`` (``code`` rewritten for ``config``) to the cache; failures are silent."""
    directory = cache_dir()
    if directory is None:
        return False
    k = key(code, config)
    if k is None:
        return False
    encoded = _encode(new)
    if encoded is None:
        return False
    try:
        payload = _os.marshal_dumps((k, encoded))
    except ValueError:
        return False
    data = MAGIC + _os.sha256(payload).digest() + payload
    if not _write_atomically(_path(directory, k), data):  # read-only, full, or no such place:
        _state["enabled"] = False  # the memory cache alone, from now on
        return False
    if int(k[:8], 16) % _PRUNE_ONE_IN == 0:
        prune()
    return True


def _remove(path):
    try:
        _os.remove(path)
    except OSError:
        pass


def _limit():
    try:
        return float(os.environ.get("PYCASSETTE_CACHE_MAX_MB", "200")) * (1 << 20)
    except ValueError:
        return 200.0 * (1 << 20)


def _entries(directory):
    """``(path, stat)`` of every entry file (and stray temporary file) under ``directory``
    (``os.walk`` without its lookups)."""
    try:
        with _os.scandir(directory) as it:
            listed = list(it)
    except OSError:
        return
    for entry in listed:
        try:
            if entry.is_dir(follow_symlinks=False):
                yield from _entries(entry.path)
            elif entry.name.endswith(".bin"):
                yield entry.path, entry.stat()
        except OSError:
            continue


def prune(limit=None):
    """Delete the least recently used entries until the whole cache fits in ``limit`` bytes
    (80% of it, so that pruning is not needed again at once). Returns the bytes removed."""
    limit = _limit() if limit is None else limit
    files, total = [], 0
    for path, st in _entries(base_dir()):
        files.append((st.st_mtime, st.st_size, path))
        total += st.st_size
    if total <= limit:
        return 0
    removed = 0
    files.sort()
    for _, size, path in files:
        if total - removed <= 0.8 * limit:
            break
        _remove(path)
        removed += size
    return removed
