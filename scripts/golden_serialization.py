"""Record PyTorch checkpoints for tests/test_serialization_golden.py.

Run with a Python that has PyTorch:  python scripts/golden_serialization.py [FILE ...]
It writes (only the FILEs named, when some are), under tests/golden/serialization/:

  state_dict.pt    a small model's state_dict (OrderedDict with _metadata)
  optimizer.pt     an Adam optimizer's state_dict after two steps
  nested.pt        nested containers, every dtype, views sharing storage,
                   non-contiguous / expanded / 0-d / empty tensors, Parameters
  legacy.pt        nested.pt's object in PyTorch's legacy (non-zip) format
  big_endian.pt    nested.pt with every storage byte-swapped and byteorder=big
  unsigned.pt      uint16/uint32/uint64 tensors, which PyTorch saves as untyped
                   storages rebuilt by _rebuild_tensor_v3
  expected.json    skeleton() of each object as PyTorch sees it after loading

skeleton() turns an object into plain JSON (tensors as dtype, shape, stride,
offset, storage group and raw bytes), so the test compares what torchlike
loads against what PyTorch loaded, exactly.  The function takes the library
as an argument and is shared by the test and scripts/check_torch_roundtrip.py."""
import collections
import io
import json
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "tests", "golden", "serialization")
FILES = ("state_dict.pt", "optimizer.pt", "nested.pt", "legacy.pt", "big_endian.pt",
         "unsigned.pt")


def skeleton(obj, lib, storages=None):
    """A JSON-able description of obj; lib is torch or torchlike."""
    if storages is None:
        storages = {}
    if isinstance(obj, lib.Tensor):
        t = obj.detach()
        storage = t.untyped_storage()
        ptr, nbytes = storage.data_ptr(), storage.nbytes()
        group = storages.setdefault(ptr, len(storages)) if nbytes else -1
        flat = t.reshape(-1).contiguous()
        raw = flat.view(lib.uint8) if flat.numel() else flat
        return {"type": "tensor", "class": type(obj).__name__,
                "dtype": str(obj.dtype).split(".")[-1], "shape": list(obj.shape),
                "stride": list(obj.stride()), "offset": obj.storage_offset(),
                "requires_grad": obj.requires_grad, "storage": group,
                "storage_nbytes": nbytes,
                "bytes": bytes(raw.cpu().numpy().tobytes()).hex() if flat.numel() else ""}
    if isinstance(obj, lib.dtype):
        return {"type": "dtype", "value": str(obj).split(".")[-1]}
    if isinstance(obj, lib.device):
        return {"type": "device", "value": str(obj)}
    if isinstance(obj, lib.Size):
        return {"type": "Size", "value": list(obj)}
    if isinstance(obj, collections.OrderedDict):
        return {"type": "OrderedDict", "items": [[skeleton(k, lib, storages),
                                                  skeleton(v, lib, storages)]
                                                 for k, v in obj.items()],
                "attrs": sorted(skeleton(vars(obj), lib, storages)["items"])
                if vars(obj) else []}
    if isinstance(obj, dict):
        return {"type": "dict", "items": [[skeleton(k, lib, storages), skeleton(v, lib, storages)]
                                          for k, v in obj.items()]}
    if isinstance(obj, (list, tuple)):
        return {"type": type(obj).__name__, "items": [skeleton(v, lib, storages) for v in obj]}
    if isinstance(obj, (set, frozenset)):
        return {"type": type(obj).__name__,
                "items": sorted(json.dumps(skeleton(v, lib, storages)) for v in obj)}
    if isinstance(obj, float):
        return {"type": "float", "value": obj.hex()}
    if isinstance(obj, complex):
        return {"type": "complex", "value": [obj.real.hex(), obj.imag.hex()]}
    if isinstance(obj, bytes):
        return {"type": "bytes", "value": obj.hex()}
    if obj is None or isinstance(obj, (bool, int, str)):
        return {"type": type(obj).__name__, "value": obj}
    if type(obj).__module__ == "numpy":
        return {"type": "numpy", "dtype": str(obj.dtype), "value": obj.tolist()}
    raise TypeError(f"skeleton: unexpected {type(obj)}")


def nested_object(torch):
    """Every dtype, views sharing storage, odd layouts, containers, scalars."""
    g = torch.Generator().manual_seed(0)
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    dtypes = {
        "bool": torch.tensor([[True, False, True], [False, False, True]]),
        "uint8": torch.tensor([[0, 1, 255], [7, 128, 3]], dtype=torch.uint8),
        "int8": torch.tensor([[-128, 0, 127], [1, -1, 5]], dtype=torch.int8),
        "int16": torch.tensor([[-32768, 0, 32767], [1, -1, 300]], dtype=torch.int16),
        "int32": torch.tensor([[-2**31, 0, 2**31 - 1], [1, -1, 70000]], dtype=torch.int32),
        "int64": torch.tensor([[-2**63, 0, 2**63 - 1], [1, -1, 2**40]], dtype=torch.int64),
        "float16": torch.randn(2, 3, generator=g).half(),
        "bfloat16": torch.randn(2, 3, generator=g).bfloat16(),
        "float32": torch.randn(2, 3, generator=g),
        "float64": torch.tensor([[float("inf"), -0.0, float("nan")], [1e300, -1e-300, 3.5]],
                                dtype=torch.float64),
        "complex64": torch.randn(2, 3, dtype=torch.complex64, generator=g),
        "complex128": torch.randn(2, 3, dtype=torch.complex128, generator=g),
    }
    shared = {
        "base": base, "row": base[1], "column": base[:, 2], "transposed": base.t(),
        "strided": base[::2, 1::2], "flat_slice": base.view(24)[5:9],
        "expanded": torch.ones(3).expand(2, 3),
    }
    return {
        "dtypes": dtypes,
        "shared": shared,
        "zero_d": torch.tensor(3.5, dtype=torch.float64),
        "zero_d_int": torch.tensor(7),
        "empty": torch.empty(0, 3),
        "grad_leaf": torch.ones(3, requires_grad=True),
        "param": torch.nn.Parameter(torch.randn(2, 2, generator=g)),
        "frozen_param": torch.nn.Parameter(torch.zeros(2), requires_grad=False),
        "containers": {
            "list": [1, 2.5, "s", None, True],
            "tuple": (1, (2, 3)),
            "od": collections.OrderedDict([("a", 1), ("b", torch.tensor([1.0, 2.0]))]),
            "set": {1, 2, 3},
            "bytes": b"\x00\xff\x10",
            "complex": 1 + 2j,
            "big_int": 2 ** 70,
            "int_keys": {0: "a", 1: "b"},
            "deep": [[{"deep": [torch.tensor([1, 2])]}]],
        },
        "dtype": torch.float16,
        "device": torch.device("cpu"),
        "size": torch.Size([2, 3]),
    }


def unsigned_object(torch):
    """The wide unsigned dtypes: extremes, a view sharing its base's storage,
    a transposed view, 0-d, empty, and a frozen Parameter."""
    out = {}
    for bits in (16, 32, 64):
        dtype = getattr(torch, f"uint{bits}")
        base = torch.tensor([[0, 1, 2 ** bits - 1], [7, 2 ** (bits - 1), 3]], dtype=dtype)
        out[f"uint{bits}"] = {"base": base, "row": base[1], "transposed": base.t(),
                              "zero_d": torch.tensor(2 ** bits - 2, dtype=dtype),
                              "empty": torch.empty(0, 2, dtype=dtype)}
    out["param"] = torch.nn.Parameter(torch.tensor([5, 6], dtype=torch.uint32),
                                      requires_grad=False)
    return out


def model_and_optimizer(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3),
                                torch.nn.Linear(3, 2))
    opt = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.9))
    x = torch.randn(8, 4)
    for _ in range(2):
        opt.zero_grad()
        model(x).square().sum().backward()
        opt.step()
    return model.state_dict(), opt.state_dict()


def _storage_dtypes(data_pkl):
    """key -> element size of each storage named in a data.pkl."""
    import pickle

    sizes = {"Bool": 1, "Byte": 1, "Char": 1, "Short": 2, "Int": 4, "Long": 8, "Half": 2,
             "BFloat16": 2, "Float": 4, "Double": 8, "ComplexFloat": 4, "ComplexDouble": 8}
    found = {}

    class Anything(dict):  # what every other global builds: absorbs any pickle op
        def __init__(self, *args, **kwargs):
            pass

        def __setstate__(self, state):
            pass

    class Names(pickle.Unpickler):
        def find_class(self, module, name):
            if name.endswith("Storage"):
                return name[:-len("Storage")]
            return Anything

        def persistent_load(self, pid):
            found[pid[2]] = sizes[pid[1]]
            return None

    Names(io.BytesIO(data_pkl)).load()
    return found


def byteswapped(path_in, path_out):
    """Rewrite a checkpoint with big-endian storages and byteorder 'big'."""
    import numpy as np

    with zipfile.ZipFile(path_in) as zin, zipfile.ZipFile(path_out, "w") as zout:
        prefix = next(n for n in zin.namelist() if n.endswith("/data.pkl"))[:-len("data.pkl")]
        widths = _storage_dtypes(zin.read(prefix + "data.pkl"))
        for info in zin.infolist():
            data = zin.read(info)
            name = info.filename[len(prefix):]
            if name == "byteorder":
                data = b"big"
            elif name.startswith("data/") and widths[name[5:]] > 1:
                data = np.frombuffer(data, f"<u{widths[name[5:]]}").byteswap().tobytes()
            zout.writestr(info.filename.replace(prefix, "big_endian/", 1), data)


def main(names):
    import torch

    os.makedirs(GOLDEN, exist_ok=True)
    path = {name: os.path.join(GOLDEN, name) for name in FILES}
    if {"state_dict.pt", "optimizer.pt"} & names:
        state, optim = model_and_optimizer(torch)
        torch.save(state, path["state_dict.pt"])
        torch.save(optim, path["optimizer.pt"])
    if {"nested.pt", "legacy.pt", "big_endian.pt"} & names:
        nested = nested_object(torch)
        torch.save(nested, path["nested.pt"])
        torch.save(nested, path["legacy.pt"], _use_new_zipfile_serialization=False)
        byteswapped(path["nested.pt"], path["big_endian.pt"])
    if "unsigned.pt" in names:
        torch.save(unsigned_object(torch), path["unsigned.pt"])
    expected_path = os.path.join(GOLDEN, "expected.json")
    expected = {}
    if names != set(FILES):
        with open(expected_path) as f:
            expected = json.load(f)
    for name in FILES:
        if name in names:
            expected[name] = skeleton(torch.load(path[name], weights_only=True), torch)
    if expected["big_endian.pt"] != expected["nested.pt"]:
        sys.exit("big_endian.pt does not load in PyTorch as nested.pt does")
    expected["torch_version"] = torch.__version__
    with open(expected_path, "w") as f:
        json.dump(expected, f, indent=0, sort_keys=True)
    print(f"wrote {len(names)} checkpoints and expected.json to {os.path.normpath(GOLDEN)}")


if __name__ == "__main__":
    main(set(sys.argv[1:]) or set(FILES))
