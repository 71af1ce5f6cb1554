"""c10: core values shared by every layer (dtypes, devices, dispatch keys, storage, TensorImpl).

Nothing here imports aten or torch. Submodules are imported where they are used.
"""
