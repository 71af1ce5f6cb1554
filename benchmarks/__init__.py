"""Ember's benchmarks: `python -m benchmarks` (or `make bench`) prints one table of Ember beside
NumPy, optionally another interpreter's PyTorch (--compare-python), and this machine's memory
bandwidth. suite.py holds the definitions (public torch API only), cli.py the runner, report.py the
table, stream.py the bandwidth probe. schema_edit_rebuild.py is a separate script timing the
schema edit-and-rebuild loop."""
