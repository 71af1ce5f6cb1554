"""torch.frombuffer, UntypedStorage.from_file and byte slices, asarray over a storage (what
safetensors loads through), and the devices Ember names but holds no tensors on."""
import numpy as np
import pytest

import torch


def test_frombuffer_shares_the_buffer():
    raw = bytearray(np.arange(4, dtype=np.float32).tobytes())
    t = torch.frombuffer(raw, dtype=torch.float32, offset=4, count=2)
    assert t.tolist() == [1.0, 2.0]
    t[0] = 7.0
    assert np.frombuffer(bytes(raw), dtype=np.float32).tolist() == [0.0, 7.0, 2.0, 3.0]
    assert torch.frombuffer(raw, dtype=torch.bfloat16).shape == (8,)


@pytest.mark.parametrize("kwargs,message", [
    ({"offset": 9}, r"offset \(9 bytes\) must be non-negative and no greater than buffer length \(8 bytes\) minus 1"),
    ({"count": 3}, r"requested buffer length \(3 \* 4 bytes\) after offset \(0 bytes\) must not be greater"),
    ({"count": 0}, r"both buffer length \(8\) and count \(0\) must not be 0"),
])
def test_frombuffer_errors_as_pytorch(kwargs, message):
    with pytest.raises(ValueError, match=message):
        torch.frombuffer(bytearray(8), dtype=torch.int32, **kwargs)
    with pytest.warns(UserWarning, match="The given buffer is not writable"):
        torch.frombuffer(b"abcd", dtype=torch.uint8)


def test_storage_from_file_private_and_shared(tmp_path):
    path = tmp_path / "bytes.bin"
    path.write_bytes(np.arange(16, dtype=np.uint8).tobytes())
    private = torch.UntypedStorage.from_file(str(path), shared=False, nbytes=16)
    part = private[4:8]
    assert isinstance(part, torch.UntypedStorage) and part.nbytes() == 4 and part.tolist() == [4, 5, 6, 7]
    as_ints = torch.asarray(part, dtype=torch.int32)
    assert as_ints.tolist() == [int.from_bytes(bytes([4, 5, 6, 7]), "little")]
    torch.asarray(private, dtype=torch.uint8)[0] = 99
    assert path.read_bytes()[0] == 0                 # a private mapping: the file is untouched
    shared = torch.UntypedStorage.from_file(str(path), shared=True, nbytes=16)
    torch.asarray(shared, dtype=torch.uint8)[1] = 42
    del shared
    assert path.read_bytes()[1] == 42
    with pytest.raises(RuntimeError, match="file is too small"):
        torch.UntypedStorage.from_file(str(path), nbytes=64)


def test_a_storage_with_a_byte_range_view_stays_where_it_is():
    t = torch.arange(8, dtype=torch.uint8)
    part = t.untyped_storage()[2:4]
    with pytest.raises(RuntimeError, match="byte-range storages view its memory"):
        t.share_memory_()
    assert part.tolist() == [2, 3]
    del part
    t.share_memory_()
    assert t.is_shared() and t.tolist() == list(range(8))


@pytest.mark.parametrize("name", ["meta", "mps", "xpu:1"])
def test_named_devices_exist_but_hold_no_tensors(name):
    dev = torch.device(name)
    assert str(dev) == name and dev == torch.device(name) and torch.ones(1).device != dev
    with pytest.raises(RuntimeError, match=f"Ember is not built with support for {dev.type} devices"):
        torch.zeros(2, device=dev)
    with pytest.raises(RuntimeError, match=f"Ember is not built with support for {dev.type} devices"):
        torch.ones(2).to(dev)
