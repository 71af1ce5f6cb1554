"""torch.save / torch.load in PyTorch's zip checkpoint format, and tensor pickling.

The fixture fixtures/reference_checkpoint.pt was saved by real PyTorch 2.13 (its generating script,
fixtures/make_reference_checkpoint.py, says how to rerun it); the error messages below are PyTorch's,
pasted from its output. Checking that PyTorch loads Ember's files needs PyTorch at
/work/ref-torch/bin/python (skipped elsewhere); the format itself is checked without it.
"""
import collections
import copy
import io
import os
import pathlib
import pickle
import pickletools
import struct
import subprocess
import zipfile

import numpy as np
import pytest

import torch

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
REFERENCE = FIXTURES / "reference_checkpoint.pt"
REF_PYTHON = "/work/ref-torch/bin/python"


def assert_tensor(t, values, dtype, requires_grad=False):
    assert isinstance(t, torch.Tensor)
    assert t.dtype == dtype
    assert t.requires_grad == requires_grad
    np.testing.assert_array_equal(t.detach().numpy(), np.array(values, dtype=dtype.numpy_dtype))


def sample():
    weight = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    model = collections.OrderedDict([("weight", weight), ("row", weight[1]), ("column", weight[:, 2]),
                                     ("ids", torch.tensor([5, -6], dtype=torch.int64)),
                                     ("mask", torch.tensor([True, False])),
                                     ("half", torch.tensor([1.5, -2.0], dtype=torch.float16))])
    optimizer = {"state": {0: {"step": 4, "momentum_buffer": torch.tensor([0.5, 0.25])}},
                 "param_groups": [{"lr": 0.01, "momentum": 0.9, "nesterov": False, "params": [0],
                                   "betas": (0.9, 0.999), "foreach": None}]}
    return {"model": model, "optimizer": optimizer, "epoch": 3, "dtype": torch.float64,
            "shape": torch.Size([3, 4]), "device": torch.device("cpu"), "tags": {"a", "b"}, "z": complex(1, 2)}


def assert_pytorch_runs(script, path):
    """The reference PyTorch runs script on the checkpoint at path (sys.argv[1]) and prints ok."""
    out = subprocess.run([REF_PYTHON, "-c", script, str(path)], cwd=path.parent, capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "ok", out.stderr


def saved_bytes(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


# -- the PyTorch-saved fixture --------------------------------------------------------------------

def test_reference_checkpoint_loads_every_value():
    ckpt = torch.load(REFERENCE)
    model = ckpt["model"]
    assert isinstance(model, collections.OrderedDict)
    assert list(model) == ["linear.weight", "linear.bias", "row", "column", "steps", "mask", "scalar", "param"]
    weight = np.arange(12, dtype=np.float32).reshape(3, 4) / 4
    assert_tensor(model["linear.weight"], weight, torch.float32)
    assert_tensor(model["linear.bias"], [0.5, -1.5, 2.25], torch.float32)
    assert_tensor(model["row"], weight[1], torch.float32)
    assert_tensor(model["column"], weight[:, 2], torch.float32)
    assert model["column"].stride() == (4,) and model["column"].storage_offset() == 2
    assert_tensor(model["steps"], [1, -2, 3], torch.int64)
    assert_tensor(model["mask"], [True, False, True], torch.bool)
    assert_tensor(model["scalar"], 7.0, torch.float64)
    assert model["scalar"].shape == torch.Size([])
    assert_tensor(model["param"], [1.0, 2.0], torch.float32, requires_grad=True)
    assert model["param"].is_leaf
    opt = ckpt["optimizer"]
    assert_tensor(opt["state"][0]["step"], 3.0, torch.float32)
    assert_tensor(opt["state"][0]["exp_avg"], [0.25, 0.5], torch.float32)
    assert_tensor(opt["state"][0]["exp_avg_sq"], [0.0, 0.0], torch.float32)
    assert opt["param_groups"] == [{"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0,
                                    "amsgrad": False, "maximize": False, "foreach": None, "params": [0]}]
    assert ckpt["epoch"] == 5 and ckpt["name"] == "tiny" and ckpt["history"] == [1.5, 0.75]
    assert ckpt["pair"] == (1, "a")
    assert ckpt["dtype"] is torch.float16
    assert type(ckpt["shape"]) is torch.Size and ckpt["shape"] == (3, 4)


def test_reference_checkpoint_views_share_memory():
    model = torch.load(REFERENCE)["model"]
    weight, row, column = model["linear.weight"], model["row"], model["column"]
    assert row._untyped_storage is weight._untyped_storage is column._untyped_storage
    assert weight._base is None and row._base is None   # plain tensors, as PyTorch's set_
    weight[1, 2] = 100.0
    assert row[2].item() == 100.0 and column[1].item() == 100.0


def test_reference_pickled_tensor_loads():
    # PyTorch's pickle.dumps(tensor): its storage is a legacy-format torch.save inside the pickle.
    t = pickle.loads((FIXTURES / "reference_tensor.pickle").read_bytes())
    weight = np.arange(12, dtype=np.float32).reshape(3, 4) / 4
    assert_tensor(t, weight[1:, 1:], torch.float32)
    assert t.stride() == (4, 1) and t.storage_offset() == 5


@pytest.mark.parametrize("mmap", [False, True])
def test_reference_checkpoint_map_locations(mmap):
    for map_location in (None, "cpu", torch.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage,
                         lambda storage, loc: None):
        model = torch.load(REFERENCE, map_location=map_location, mmap=mmap)["model"]
        assert model["linear.bias"].device.type == "cpu"
        assert_tensor(model["linear.bias"], [0.5, -1.5, 2.25], torch.float32)


# -- Ember's files: round trips and format ---------------------------------------------------------

def check_sample(loaded):
    model = loaded["model"]
    assert list(model) == ["weight", "row", "column", "ids", "mask", "half"]
    assert_tensor(model["weight"], np.arange(12).reshape(3, 4), torch.float32)
    assert_tensor(model["column"], [2, 6, 10], torch.float32)
    assert_tensor(model["ids"], [5, -6], torch.int64)
    assert_tensor(model["mask"], [True, False], torch.bool)
    assert_tensor(model["half"], [1.5, -2.0], torch.float16)
    assert model["row"]._untyped_storage is model["weight"]._untyped_storage
    assert loaded["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)
    assert_tensor(loaded["optimizer"]["state"][0]["momentum_buffer"], [0.5, 0.25], torch.float32)
    assert loaded["optimizer"]["state"][0]["step"] == 4
    assert loaded["dtype"] is torch.float64 and loaded["shape"] == torch.Size([3, 4])
    assert loaded["device"] == torch.device("cpu") and loaded["tags"] == {"a", "b"} and loaded["z"] == 1 + 2j


def test_round_trip_path_pathlib_and_buffer(tmp_path):
    torch.save(sample(), str(tmp_path / "a.pt"))
    check_sample(torch.load(str(tmp_path / "a.pt")))
    torch.save(sample(), tmp_path / "b.pt")
    check_sample(torch.load(tmp_path / "b.pt", weights_only=False))
    check_sample(torch.load(io.BytesIO(saved_bytes(sample()))))


def test_saved_file_layout_matches_pytorch(tmp_path):
    torch.save(sample(), tmp_path / "model.pt")
    raw = (tmp_path / "model.pt").read_bytes()
    with zipfile.ZipFile(tmp_path / "model.pt") as z:
        infos = z.infolist()
        names = [i.filename for i in infos]
        assert names == ["model/data.pkl", "model/.format_version", "model/.storage_alignment", "model/byteorder",
                         "model/data/0", "model/data/1", "model/data/2", "model/data/3", "model/data/4", "model/version",
                         "model/.data/serialization_id"]
        assert all(i.compress_type == zipfile.ZIP_STORED for i in infos)
        assert z.read("model/version") == b"3\n" and z.read("model/byteorder") == b"little"
        assert z.read("model/.format_version") == b"1" and z.read("model/.storage_alignment") == b"64"
        assert len(z.read("model/.data/serialization_id")) == 40
        # one record per storage: the views add none; the bytes are the raw little-endian values
        assert z.read("model/data/0") == np.arange(12, dtype="<f4").tobytes()
        assert z.read("model/data/3") == np.array([1.5, -2.0], dtype="<f2").tobytes()
        for info in infos:   # every record's bytes start on a 64-byte boundary
            name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
            assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0
        data = z.read("model/data.pkl")
    ops = list(pickletools.genops(data))
    assert ops[0][0].name == "PROTO" and ops[0][1] == 2 and ops[-1][0].name == "STOP"
    globals_ = {arg for op, arg, _ in ops if op.name == "GLOBAL"}
    assert globals_ == {"collections OrderedDict", "torch._utils _rebuild_tensor_v2", "torch FloatStorage",
                        "torch LongStorage", "torch BoolStorage", "torch HalfStorage", "torch float64",
                        "torch Size", "torch device", "__builtin__ set", "__builtin__ complex"}
    assert sum(op.name == "BINPERSID" for op, _, _ in ops) == 7   # 7 tensors over 5 storages


def test_buffer_archive_is_named_archive():
    with zipfile.ZipFile(io.BytesIO(saved_bytes({"x": torch.zeros(2)}))) as z:
        assert z.namelist()[0] == "archive/data.pkl"


def test_parameter_like_and_requires_grad_round_trip():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    loaded = torch.load(io.BytesIO(saved_bytes([x, x * 2])))
    assert_tensor(loaded[0], [1.0, 2.0], torch.float32, requires_grad=True)
    assert loaded[0].is_leaf and loaded[1].is_leaf and loaded[1].requires_grad


def test_same_storage_as_two_dtypes_is_refused():
    t = torch.zeros(4)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        saved_bytes([t, t.view(torch.int32)])


@pytest.mark.skipif(not os.path.exists(REF_PYTHON), reason="needs the reference PyTorch")
def test_pytorch_loads_ember_checkpoint(tmp_path):
    torch.save(sample(), tmp_path / "ember.pt")
    script = (
        "import sys, torch\n"
        "c = torch.load(sys.argv[1])\n"
        "m = c['model']\n"
        "assert m['weight'].tolist() == [[0.,1,2,3],[4,5,6,7],[8,9,10,11]]\n"
        "assert m['row'].untyped_storage().data_ptr() == m['weight'].untyped_storage().data_ptr()\n"
        "assert m['column'].tolist() == [2., 6., 10.] and m['column'].stride() == (4,)\n"
        "assert m['ids'].dtype == torch.int64 and m['mask'].tolist() == [True, False]\n"
        "assert m['half'].dtype == torch.float16 and m['half'].tolist() == [1.5, -2.0]\n"
        "assert c['optimizer']['state'][0]['step'] == 4 and c['dtype'] is torch.float64\n"
        "assert c['shape'] == torch.Size([3, 4]) and c['device'] == torch.device('cpu')\n"
        "print('ok')\n")
    assert_pytorch_runs(script, tmp_path / "ember.pt")


# -- weights_only ------------------------------------------------------------------------------------

class Custom:
    def __init__(self, value):
        self.value = value


def test_weights_only_refuses_other_globals_with_pytorchs_message():
    data = saved_bytes({"c": Custom(3)})
    with pytest.raises(pickle.UnpicklingError) as info:
        torch.load(io.BytesIO(data))
    message = str(info.value)
    assert message.startswith("Weights only load failed. This file can still be loaded, to do so you have two "
                              "options, \033[1mdo those steps only if you trust the source of the checkpoint\033[0m.")
    name = f"{__name__}.Custom"
    assert (f"WeightsUnpickler error: Unsupported global: GLOBAL {name} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{name}])` or the "
            f"`torch.serialization.safe_globals([{name}])` context manager to allowlist this global if you trust "
            "this class/function.") in message
    assert torch.load(io.BytesIO(data), weights_only=False)["c"].value == 3
    with torch.serialization.safe_globals([Custom]):
        assert torch.load(io.BytesIO(data))["c"].value == 3
    assert torch.serialization.get_safe_globals() == []
    assert torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == [name]


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def test_weights_only_never_calls_a_refused_function():
    data = saved_bytes([Evil()])
    with pytest.raises(pickle.UnpicklingError, match="whose module posix is blocked"):
        torch.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL print was not an allowed global"):
        torch.load(io.BytesIO(_with_pickle(b"\x80\x02cbuiltins\nprint\nX\x01\x00\x00\x00a\x85R.")))


def _with_pickle(data_pkl):
    """A checkpoint archive whose data.pkl is the given bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("archive/data.pkl", data_pkl)
        z.writestr("archive/version", "3\n")
    return buffer.getvalue()


def test_weights_only_refuses_build_on_classes():
    # BUILD on the torch.Tensor class itself would set class attributes
    payload = b"\x80\x02ctorch\nTensor\nN}X\x03\x00\x00\x00__x\x88s\x86b."
    with pytest.raises(pickle.UnpicklingError, match="Can only build"):
        torch.load(io.BytesIO(_with_pickle(payload)))
    assert not hasattr(torch.Tensor, "__x")


def test_weights_only_with_pickle_module_is_refused():
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        torch.load(io.BytesIO(saved_bytes(1)), pickle_module=pickle, weights_only=True)


# -- malformed files ---------------------------------------------------------------------------------

CENTRAL = ("PytorchStreamReader failed reading zip archive: failed finding central directory. This is an internal "
           "miniz error. If you are seeing this error, there is a high likelihood that your checkpoint file is "
           "corrupted. This can happen if the checkpoint was not saved properly, was transferred incorrectly, or "
           "the file was modified after saving.")


@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_truncated_checkpoint_raises_pytorchs_error(cut):
    raw = REFERENCE.read_bytes()
    with pytest.raises(RuntimeError) as info:
        torch.load(io.BytesIO(raw[:int(len(raw) * cut)]))
    assert str(info.value) == CENTRAL


@pytest.mark.parametrize("length", [4, 10, 21])
def test_checkpoint_shorter_than_a_zip_directory_is_not_a_zip_archive(length):
    raw = REFERENCE.read_bytes()
    with pytest.raises(RuntimeError) as info:
        torch.load(io.BytesIO(raw[:length]))
    assert str(info.value) == CENTRAL.replace("failed finding central directory", "not a ZIP archive")


def test_malformed_inputs_raise_clear_errors():
    with pytest.raises(EOFError):
        torch.load(io.BytesIO(b""))
    with pytest.raises(RuntimeError, match="not a zip archive"):
        torch.load(io.BytesIO(b"hello world this is not a zip"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("x/foo", "1")
    with pytest.raises(RuntimeError, match=r'Expected hasRecord\("version"\) to be true'):
        torch.load(io.BytesIO(buffer.getvalue()))


def test_missing_or_short_storage_record():
    raw = saved_bytes({"a": torch.zeros(3), "b": torch.ones(4)})
    with zipfile.ZipFile(io.BytesIO(raw)) as zin:
        records = {n: zin.read(n) for n in zin.namelist()}
    for change in ("drop", "short"):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as z:
            for name, data in records.items():
                if name == "archive/data/1":
                    if change == "drop":
                        continue
                    data = data[:5]
                z.writestr(name, data)
        expected = "data/1" if change == "drop" else \
            r"record size \(5 bytes\) does not match expected size \(16 bytes = 16 elements"
        with pytest.raises(RuntimeError, match=expected):
            torch.load(io.BytesIO(buffer.getvalue()))


def test_corrupt_record_bytes_fail_the_crc():
    raw = bytearray(saved_bytes({"a": torch.arange(16.0)}))
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as z:
        info = z.getinfo("archive/data/0")
    start = info.header_offset + 30 + struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])[0]
    start += struct.unpack("<H", raw[info.header_offset + 28:info.header_offset + 30])[0]
    raw[start + 3] ^= 0xFF
    with pytest.raises(RuntimeError, match="failed reading file data/0"):
        torch.load(io.BytesIO(bytes(raw)))


def test_bad_geometry_in_pickle_is_refused():
    # size (4,) -> (40,): more elements than the storage holds
    raw = _edit_pickle(saved_bytes(torch.zeros(4)), b"K\x04\x85", b"K\x28\x85")
    with pytest.raises(RuntimeError, match="need 40 elements, but the storage has 4"):
        torch.load(io.BytesIO(raw))


# -- map_location and mmap ---------------------------------------------------------------------------

def test_cuda_location_without_cuda_raises_pytorchs_error():
    raw = _edit_pickle(saved_bytes(torch.zeros(2)), b"X\x03\x00\x00\x00cpu", b"X\x04\x00\x00\x00cuda")
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    with pytest.raises(RuntimeError, match=r"Attempting to deserialize object on a CUDA device but "
                                           r"torch.cuda.is_available\(\) is False"):
        torch.load(io.BytesIO(raw))
    assert_tensor(torch.load(io.BytesIO(raw), map_location="cpu"), [0.0, 0.0], torch.float32)
    assert_tensor(torch.load(io.BytesIO(raw), map_location={"cuda": "cpu"}), [0.0, 0.0], torch.float32)


def _edit_pickle(raw, old, new):
    """The archive with one replacement made in its data.pkl."""
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        records = {n: z.read(n) for n in z.namelist()}
    records["archive/data.pkl"] = records["archive/data.pkl"].replace(old, new, 1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for name, data in records.items():
            out.writestr(name, data)
    return buffer.getvalue()


def test_mmap_maps_the_records_copy_on_write(tmp_path):
    path = tmp_path / "m.pt"
    w = torch.arange(6.0)
    torch.save({"w": w, "v": w[2:]}, path)
    before = path.read_bytes()
    loaded = torch.load(path, mmap=True)
    assert_tensor(loaded["w"], np.arange(6.0), torch.float32)
    if os.path.exists("/proc/self/maps"):   # the tensor's memory is a mapping of the checkpoint file
        address = loaded["w"].data_ptr()
        with open("/proc/self/maps") as maps:
            spans = [line.split()[0].split("-") for line in maps if line.rstrip().endswith(str(path))]
        assert any(int(lo, 16) <= address < int(hi, 16) for lo, hi in spans)
    assert loaded["v"]._untyped_storage is loaded["w"]._untyped_storage
    loaded["w"][0] = 42.0
    assert path.read_bytes() == before
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        torch.load(io.BytesIO(before), mmap=True)


# -- pickling and deepcopy ---------------------------------------------------------------------------

def test_tensor_pickles_through_rebuild_tensor_v2():
    t = torch.arange(6.0).reshape(2, 3)[:, 1:]
    data = pickle.dumps(t, protocol=2)
    assert b"torch._utils\n_rebuild_tensor_v2" in data and b"torch.storage\n_load_from_bytes" in data
    back = pickle.loads(data)
    assert_tensor(back, [[1.0, 2.0], [4.0, 5.0]], torch.float32)
    assert back.stride() == (3, 1) and back.storage_offset() == 1


def test_deepcopy_keeps_views_sharing_and_refuses_non_leaves():
    a = torch.arange(4.0)
    copied = copy.deepcopy([a, a[1:]])
    copied[0][1] = 9.0
    assert copied[1][0].item() == 9.0 and a[1].item() == 1.0
    p = torch.ones(2, requires_grad=True)
    q = copy.deepcopy(p)
    assert q.requires_grad and q.is_leaf and q is not p
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(p * 2)


# -- bfloat16, bit for bit both ways ---------------------------------------------------------------

def _records(path_or_bytes):
    with zipfile.ZipFile(io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else path_or_bytes) as z:
        return {name.split("/", 1)[1]: z.read(name) for name in z.namelist() if "/data/" in name}


def test_a_pytorch_bfloat16_checkpoint_loads_bit_for_bit_and_saves_the_same_records():
    path = FIXTURES / "reference_bfloat16.pt"
    ckpt = torch.load(path)
    values, bits, view = ckpt["values"], ckpt["bits"], ckpt["view"]
    assert values.dtype is torch.bfloat16 and bits.dtype is torch.int16
    assert values.view(torch.int16).tolist() == bits.tolist()
    assert view.view(torch.int16).tolist() == bits[3::5].tolist()
    assert view.untyped_storage().data_ptr() == values.untyped_storage().data_ptr()
    pytorch_records = set(_records(path).values())
    ember_records = set(_records(saved_bytes(ckpt)).values())
    assert ember_records == pytorch_records


@pytest.mark.skipif(not os.path.exists(REF_PYTHON), reason="needs the reference PyTorch")
def test_pytorch_loads_an_ember_bfloat16_checkpoint_bit_for_bit(tmp_path):
    bits = torch.from_numpy(np.array([0x3F80, 0x7FC1, 0xFF80, 0x0001, 0xFFFF, 0x4049], dtype=np.uint16).view(np.int16))
    torch.save({"values": bits.view(torch.bfloat16), "bits": bits.clone()}, tmp_path / "ember.pt")
    script = ("import sys, torch\n"
              "c = torch.load(sys.argv[1])\n"
              "assert c['values'].dtype == torch.bfloat16\n"
              "assert c['values'].view(torch.int16).tolist() == c['bits'].tolist()\n"
              "print('ok')\n")
    assert_pytorch_runs(script, tmp_path / "ember.pt")


# -- float8: bytes records rebuilt with their dtype (_rebuild_tensor_v3) ---------------------------

FLOAT8 = ("float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz")


def test_a_pytorch_float8_checkpoint_loads_bit_for_bit_and_saves_the_same_records():
    path = FIXTURES / "reference_float8.pt"
    ckpt = torch.load(path)
    for name in FLOAT8:
        assert ckpt[name].dtype is getattr(torch, name)
        assert ckpt[name].view(torch.uint8).tolist() == ckpt["bits"].tolist()
    assert ckpt["view"].view(torch.uint8).tolist() == ckpt["bits"][7::9].tolist()
    assert ckpt["view"].untyped_storage().data_ptr() == ckpt["float8_e4m3fn"].untyped_storage().data_ptr()
    assert set(_records(saved_bytes(ckpt)).values()) == set(_records(path).values())
    with zipfile.ZipFile(io.BytesIO(saved_bytes(ckpt))) as z:
        pickled = z.read(next(n for n in z.namelist() if n.endswith("data.pkl")))
    assert b"_rebuild_tensor_v3" in pickled and b"UntypedStorage" in pickled


@pytest.mark.skipif(not os.path.exists(REF_PYTHON), reason="needs the reference PyTorch")
def test_pytorch_loads_an_ember_float8_checkpoint_bit_for_bit(tmp_path):
    bits = torch.arange(256, dtype=torch.int32).to(torch.uint8)
    torch.save({"bits": bits, **{name: bits.clone().view(getattr(torch, name)) for name in FLOAT8}},
               tmp_path / "ember.pt")
    script = ("import sys, torch\n"
              "c = torch.load(sys.argv[1])\n"
              f"for name in {FLOAT8!r}:\n"
              "    assert c[name].dtype == getattr(torch, name), name\n"
              "    assert c[name].view(torch.uint8).tolist() == c['bits'].tolist(), name\n"
              "print('ok')\n")
    assert_pytorch_runs(script, tmp_path / "ember.pt")


def test_pytorch_file_reader_reads_a_checkpoints_records(tmp_path):
    path = tmp_path / "ckpt.pt"
    torch.save({"w": torch.arange(6.0)}, path)
    reader = torch.PyTorchFileReader(str(path))
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        prefix = names[0].split("/", 1)[0]
        assert reader.get_all_records() == [n.split("/", 1)[1] for n in names]
        assert reader.get_record("data.pkl") == archive.read(f"{prefix}/data.pkl")
        info = archive.getinfo(f"{prefix}/data/0")
    assert reader.has_record("data/0") and not reader.has_record("data/9")
    assert (reader.get_record_size("data/0"), reader.get_record_header_offset("data/0")) == (24, info.header_offset)
    assert reader.get_record_offset("data/0") % 64 == 0
    assert reader.serialization_id() == reader.get_record(".data/serialization_id").decode()
    empty = reader.get_storage_from_record("data/0", 6, torch.float32)
    assert empty.shape == (0,) and empty.untyped_storage().nbytes() == 24
    assert torch.frombuffer(bytearray(bytes(empty.untyped_storage())), dtype=torch.float32).tolist() == \
        [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert reader.get_storage_from_record("data/0", 24, torch.UntypedStorage).dtype == torch.uint8
    with pytest.raises(RuntimeError, match="^PytorchStreamReader failed locating file nope: file not found."):
        reader.get_record("nope")
