"""What the installed distribution declares: license, version, py.typed, the ``pycassette`` console script."""

import json
import os
import subprocess
import sys
import tomllib
from importlib import metadata

import pytest

import ad
import context

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def installed():
    """The pycassette distribution pip installed (not an egg-info left in the source tree)."""
    for dist in metadata.distributions(name="pycassette"):
        if dist.read_text("INSTALLER") is not None:
            return dist
    pytest.skip("pycassette is not installed (pip install -e '.[test]')")


def editable(dist):
    direct = dist.read_text("direct_url.json")
    return bool(direct) and json.loads(direct).get("dir_info", {}).get("editable", False)


def test_the_license_is_mit_and_declared_in_the_metadata():
    with open(os.path.join(ROOT, "LICENSE")) as fh:
        text = fh.read()
    assert text.startswith("MIT License\n") and "Copyright (c) the pycassette developers" in text
    dist = installed()
    assert dist.metadata["License-Expression"] == "MIT"
    assert dist.metadata.get_all("License-File") == ["LICENSE"]
    assert dist.read_text("licenses/LICENSE") == text


def test_the_version_is_the_installed_one():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        declared = tomllib.load(fh)["project"]["version"]
    assert context.__version__ == ad.__version__ == installed().version == declared


def test_the_version_of_a_source_tree_that_is_not_installed(monkeypatch):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    saved = context.__dict__.pop("__version__", None)
    monkeypatch.setattr(metadata, "version", not_installed)
    try:
        assert context.__version__ == "0+unknown"
    finally:
        context.__dict__.pop("__version__", None)
        if saved is not None:
            context.__version__ = saved
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        context.nope


def test_both_packages_are_marked_typed():
    for package in (context, ad):
        assert os.path.isfile(os.path.join(os.path.dirname(package.__file__), "py.typed"))
    dist = installed()
    if not editable(dist):  # a regular install lists the files it copied
        files = {str(f) for f in dist.files}
        assert {"context/py.typed", "ad/py.typed"} <= files


def test_the_console_script_is_declared_and_runs():
    scripts = [ep for ep in metadata.entry_points(group="console_scripts") if ep.name == "pycassette"]
    assert scripts and {ep.value for ep in scripts} == {"context.cli:console"}
    assert callable(scripts[0].load())
    installed()
    script = os.path.join(os.path.dirname(sys.executable), "pycassette")
    assert os.path.isfile(script), "pip install -e '.[test]' again: the console script is missing"
    done = subprocess.run([script, "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "trace" in done.stdout and done.stdout.startswith("usage: pycassette")
    done = subprocess.run([script, "print", "--depth", "0", "math:factorial", "5"], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "120\n", "factorial(5)\n")
    done = subprocess.run([script, "print"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("pycassette print: missing TARGET")


def test_importing_the_engine_does_not_import_numpy():
    """NumPy takes longer to import than the rest of the package; only the GPU context needs
    it, so ``context.GPUCtx`` and its exceptions are imported when first asked for."""
    script = (
        "import sys, context\n"
        "assert 'numpy' not in sys.modules, 'numpy imported by import context'\n"
        "assert {'GPUCtx', 'GPUHostFallbackWarning', 'GPUUnavailableError'} <= set(dir(context))\n"
        "from context import GPUCtx\n"
        "import context.ready.gpu as gpu\n"
        "assert GPUCtx is gpu.GPUCtx is context.GPUCtx\n"
        "assert context.GPUUnavailableError.__module__ == 'context.ready.devices'\n"
        "assert context.overdub(context.CountCtx(), sorted, [2, 1]) == [1, 2]\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
