"""`pip install` from the source tree (tests): pyproject.toml and setup.py build the extension with
CMake in the build folder the tests' module came from, and pip installs the package (module,
Python files, stubs, py.typed) into a temporary folder, from which a fresh interpreter imports it."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

import rowjit

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_pip_install_into_a_folder_and_import(tmp_path):
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(rowjit.__file__))))
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        pytest.skip("the module under test was not built in a CMake build folder")
    missing = [m for m in ("pip", "setuptools", "wheel") if importlib.util.find_spec(m) is None]
    if missing:  # Debian's python3-pip, python3-setuptools, python3-wheel
        pytest.skip(f"the install needs {', '.join(missing)}")
    target = tmp_path / "site"
    env = dict(os.environ, ROWJIT_BUILD_DIR=build, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    if os.path.exists("/tmp/rowjit-build.lock"):  # take turns with other builds of a shared folder
        env["ROWJIT_BUILD_LOCK"] = "/tmp/rowjit-build.lock"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
                           "--target", str(target), ROOT], capture_output=True, text=True, env=env, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for name in ["__init__.py", "_api.py", "_pandas.py", "dask.py", "__init__.pyi", "dask.pyi", "py.typed"]:
        assert (target / "rowjit" / name).exists(), name
    child = dict(os.environ, PYTHONPATH=str(target))
    code = textwrap.dedent("""
        import numpy as np, rowjit
        print(rowjit.__file__)
        print(rowjit.__version__, rowjit.evaluate("a * k + 1", a=np.arange(4, dtype=np.int64), k=3).tolist())
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child, cwd=str(tmp_path),
                         timeout=300)
    assert run.returncode == 0, run.stderr
    where, result = run.stdout.splitlines()
    assert where.startswith(str(target) + os.sep)
    assert result == f"{rowjit.__version__} [1, 4, 7, 10]"
