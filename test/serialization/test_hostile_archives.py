"""torch.load against hostile or damaged archives: each record's size is checked against what the
pickle declares before a byte is read, records stream into their storage without a second full
copy (and never inflate past their declared size), and member names must stay in the archive's
folder; PyTorch's RuntimeErrors throughout."""
from __future__ import annotations

import io
import tracemalloc
import zipfile

import numpy as np
import pytest

import torch


def _records(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as z:
        return [(info.filename, z.read(info)) for info in z.infolist()]


def _archive(records, compression=zipfile.ZIP_STORED):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as z:
        for name, data in records:
            z.writestr(name, data)
    return out.getvalue()


def _load_traced(blob):
    """torch.load, and the peak of the Python allocations it made (decompressed bytes objects)."""
    tracemalloc.start()
    try:
        result = torch.load(io.BytesIO(blob))
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_record_inflating_far_past_its_storage_is_refused_before_it_is_read():
    records = [(n, b"\0" * (64 << 20) if n.endswith("data/0") else d) for n, d in _records(torch.zeros(4))]
    blob = _archive(records, zipfile.ZIP_DEFLATED)
    assert len(blob) < 1 << 20                      # a small file that inflates to 64 MiB
    tracemalloc.start()
    try:
        with pytest.raises(RuntimeError, match=r"^record size \(67108864 bytes\) does not match expected size "
                                               r"\(16 bytes = 16 elements \* 1 bytes/element\) for dtype Byte$"):
            torch.load(io.BytesIO(blob))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20


@pytest.mark.parametrize("change", ["longer", "shorter"])
def test_a_record_of_another_size_than_its_storage_is_pytorchs_error(change):
    records = [(n, (d + b"\0" * 64 if change == "longer" else d[:8]) if n.endswith("data/0") else d)
               for n, d in _records(torch.arange(4.0))]
    size = 80 if change == "longer" else 8
    with pytest.raises(RuntimeError, match=rf"record size \({size} bytes\) does not match expected size \(16 bytes"):
        torch.load(io.BytesIO(_archive(records)))


def test_a_large_compressed_record_streams_into_its_storage_without_a_second_copy():
    values = torch.arange(16 << 20, dtype=torch.float32).remainder_(7)       # 64 MiB, compressible
    blob = _archive(_records({"w": values}), zipfile.ZIP_DEFLATED)
    loaded, peak = _load_traced(blob)
    assert torch.equal(loaded["w"], values)
    assert peak < 24 << 20        # chunks of 16 MiB at most; the whole record would be 64 MiB


def test_a_stored_record_is_read_straight_into_its_storage_and_its_crc_checked():
    values = torch.arange(4 << 20, dtype=torch.float64)
    records = _records({"w": values})
    loaded, peak = _load_traced(_archive(records))
    assert torch.equal(loaded["w"], values)
    assert peak < 4 << 20
    blob = bytearray(_archive(records))
    raw = values.numpy().tobytes()
    start = bytes(blob).index(raw[1024:1056])
    blob[start] ^= 0xFF                                  # one flipped byte inside the record
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading file data/0.*CRC"):
        torch.load(io.BytesIO(bytes(blob)))


@pytest.mark.parametrize("name", ["/evil", "other/evil", "../evil", "archive/../evil", "archive/../../x/data.pkl",
                                  "archive/data/../../evil"])
def test_member_names_outside_the_archive_folder_are_refused(name):
    records = _records(torch.ones(2)) + [(name, b"x")]
    with pytest.raises(RuntimeError, match=r"^file in archive is not in a subdirectory archive/: "):
        torch.load(io.BytesIO(_archive(records)))


def test_an_archive_whose_records_all_climb_out_finds_no_version_record():
    records = [("archive/../" + n.split("/", 1)[1], d) for n, d in _records(torch.ones(2))]
    with pytest.raises(RuntimeError):
        torch.load(io.BytesIO(_archive(records)))


def test_a_legitimate_checkpoint_with_every_dtype_still_loads(tmp_path):
    state = {name: torch.arange(6).to(getattr(torch, name)).reshape(2, 3)
             for name in ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")}
    path = tmp_path / "ok.pt"
    torch.save(state, path)
    for kwargs in ({}, {"mmap": True}):
        loaded = torch.load(path, **kwargs)
        for key, value in state.items():
            np.testing.assert_array_equal(loaded[key].numpy(), value.numpy())
