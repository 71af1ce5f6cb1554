"""Print pyproject.toml's [build-system] requires, one per line (make installs them into .venv)."""
import tomllib
from pathlib import Path

for requirement in tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["build-system"]["requires"]:
    print(requirement)
