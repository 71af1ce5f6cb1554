"""DataLoader internals: collation, fetching, the iterators and the worker process loop."""
from __future__ import annotations

# How long a worker or the main process blocks on a queue before checking that its peer lives.
MP_STATUS_CHECK_INTERVAL = 5.0
