"""The architecture audit: module boundaries and public surfaces, checked against the code.

`python -m architecture --help` lists the commands. Nothing in the runtime imports this package.
"""
