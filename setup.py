"""The build of the Python package (pyproject.toml names it): the extension rowjit._rowjit is
CMake's target _rowjit, built in an existing configured build folder when there is one (quick:
only what changed is rebuilt) or in a new one, then copied where setuptools packages it with
python/rowjit/*.py, the stubs and py.typed.

Environment: ROWJIT_BUILD_DIR names the CMake build folder (default: ./build when it holds a
CMakeCache.txt, else ./build-python, configured Release here); ROWJIT_BUILD_LOCK names a file
whose lock is held while building (to take turns with other builds of the same folder)."""
import fcntl
import glob
import os
import re
import shutil
import subprocess
import sys
from contextlib import contextmanager

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(rowjit VERSION ([0-9.]+)", f.read()).group(1)


@contextmanager
def build_lock():
    path = os.environ.get("ROWJIT_BUILD_LOCK")
    if not path:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def build_folder():
    """(folder, whether it is configured already)."""
    folder = os.environ.get("ROWJIT_BUILD_DIR")
    if not folder:
        existing = os.path.join(ROOT, "build")
        folder = existing if os.path.exists(os.path.join(existing, "CMakeCache.txt")) else os.path.join(ROOT, "build-python")
    return os.path.abspath(folder), os.path.exists(os.path.join(folder, "CMakeCache.txt"))


class CMakeBuild(build_ext):
    """Builds the extension with CMake instead of setuptools' compiler."""

    def build_extension(self, ext):
        folder, configured = build_folder()
        with build_lock():
            if not configured:
                subprocess.run(["cmake", "-S", ROOT, "-B", folder, "-DCMAKE_BUILD_TYPE=Release",
                                f"-DPython_EXECUTABLE={sys.executable}", "-DROWJIT_BUILD_TESTS=OFF",
                                "-DROWJIT_BUILD_BENCH=OFF", "-DROWJIT_BUILD_TOOLS=OFF"], check=True)
            subprocess.run(["cmake", "--build", folder, "--target", "_rowjit"], check=True)
        built = glob.glob(os.path.join(folder, "python", "rowjit", "_rowjit*.so"))
        if len(built) != 1:
            raise RuntimeError(f"rowjit: the build left {len(built)} modules in {folder}/python/rowjit")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


# setuptools' own files go beside CMake's folders, not into ./build (CMake's) nor python/.
SETUPTOOLS_DIR = os.path.join(ROOT, "build-setuptools")
os.makedirs(SETUPTOOLS_DIR, exist_ok=True)
setup(version=version(), ext_modules=[Extension("rowjit._rowjit", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": SETUPTOOLS_DIR}, "egg_info": {"egg_base": SETUPTOOLS_DIR}})
