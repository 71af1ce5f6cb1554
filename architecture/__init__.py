"""The architecture audit (boundaries, cycles, coupling, public surfaces). Nothing imports it.

Until its checks land (issue 3), `.importlinter` holds the layer contracts and `make test`
runs `lint-imports`.
"""
