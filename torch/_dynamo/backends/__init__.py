"""torch._dynamo.backends: the compilers a captured graph can be handed to (registry.py)."""
