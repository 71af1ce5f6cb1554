"""`python -m architecture`: see architecture/cli.py."""
from architecture.cli import main

main()
