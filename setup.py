"""Build Ember: torchgen generates sources from the schema, Cython compiles them (both cores)."""
import os
import sys

from setuptools import find_packages, setup

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tools.setup_hook import extensions  # noqa: E402

setup(
    packages=find_packages(include=["c10*", "aten*", "torch*", "functorch*", "torchgen*"]),
    # the CUDA kernels include headers from their folder and, by their path from the root, c10's and aten's
    package_data={"aten.native": ["*.yaml", "*.h"], "aten.native.cuda": ["*.cu", "*.cuh", "kernels/*.cu", "kernels/*.cuh"],
                  "torchgen": ["templates/*.j2", "templates/*.cuh"], "": ["*.pxd", "*.pyi", "*.h", "py.typed"]},
    ext_modules=extensions(),
    zip_safe=False,
)
