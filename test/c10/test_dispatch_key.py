"""DispatchKey priorities and DispatchKeySet."""
import pytest

from c10.dispatch_key import DispatchKey, DispatchKeySet


def test_highest_key_wins_in_pytorchs_order():
    ks = DispatchKeySet([DispatchKey.CPU, DispatchKey.AutogradCPU, DispatchKey.ADInplaceOrView])
    assert ks.highest_priority_key() is DispatchKey.AutogradCPU
    assert (ks - DispatchKey.AutogradCPU).highest_priority_key() is DispatchKey.ADInplaceOrView
    assert DispatchKeySet([DispatchKey.CPU, DispatchKey.CUDA]).highest_priority_key() is DispatchKey.CUDA


def test_key_sets_union_and_membership():
    ks = DispatchKeySet(DispatchKey.CPU) | DispatchKey.CUDA
    assert DispatchKey.CUDA in ks and DispatchKey.AutogradCPU not in ks
    assert list(ks) == [DispatchKey.CPU, DispatchKey.CUDA]
    assert len(ks) == 2 and DispatchKeySet().highest_priority_key() is None


def test_alias_keys_are_never_in_a_key_set():
    with pytest.raises(ValueError, match="CompositeImplicitAutograd is an alias key"):
        DispatchKeySet(DispatchKey.CompositeImplicitAutograd)
