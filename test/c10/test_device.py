"""torch.device parsing and its errors, as PyTorch's."""
import pytest

import torch


@pytest.mark.parametrize("text, type_, index", [("cpu", "cpu", None), ("cuda", "cuda", None), ("cuda:0", "cuda", 0),
                                                 ("cuda:3", "cuda", 3), ("cpu:0", "cpu", 0)])
def test_device_string_parses_to_type_and_index(text, type_, index):
    d = torch.device(text)
    assert (d.type, d.index) == (type_, index)
    assert str(d) == text


def test_device_from_type_and_index_and_from_int():
    assert torch.device("cuda", 1) == torch.device("cuda:1")
    assert torch.device(0) == torch.device("cuda:0")
    assert repr(torch.device("cuda", 1)) == "device(type='cuda', index=1)"


def test_devices_compare_equal_to_their_strings_and_hash_alike():
    assert torch.device("cpu") == "cpu"
    assert hash(torch.device("cuda:0")) == hash(torch.device("cuda", 0))


@pytest.mark.parametrize("bad, message", [
    ("gpu", "Expected one of cpu, cuda, .* device type at start of device string: gpu"),
    ("cuda:-1", "Invalid device string: 'cuda:-1'"),
    ("cuda:x", "Invalid device string: 'cuda:x'"),
    ("", "device type at start of device string"),
])
def test_bad_device_string_raises_runtime_error_naming_it(bad, message):
    with pytest.raises(RuntimeError, match=message):
        torch.device(bad)


def test_known_but_unsupported_device_type_is_a_device_that_holds_no_tensors():
    assert torch.device("mps").type == "mps"        # as PyTorch: any known type is a device
    with pytest.raises(RuntimeError, match="only cpu and cuda"):
        torch.empty(1, device="mps")


def test_device_is_immutable():
    with pytest.raises(AttributeError):
        torch.device("cpu").type = "cuda"
