"""Checkpoints written by PyTorch load in torchlike exactly as PyTorch loads
them (recorded by scripts/golden_serialization.py), and a mutation fuzz of
checkpoints: a damaged or hostile file raises a Python exception, nothing more."""
import importlib.util
import io
import json
import os
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import torchlike as tl

ROOT = os.path.join(os.path.dirname(__file__), "..")
GOLDEN = os.path.join(ROOT, "tests", "golden", "serialization")

_spec = importlib.util.spec_from_file_location(
    "golden_serialization", os.path.join(ROOT, "scripts", "golden_serialization.py"))
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)

with open(os.path.join(GOLDEN, "expected.json")) as _f:
    EXPECTED = json.load(_f)


def expected(name):
    """PyTorch's view of the file.  Until torchlike.nn has Parameter, a
    Parameter loads as a leaf tensor that requires grad (class Tensor)."""
    skel = EXPECTED[name]
    if hasattr(tl.nn, "Parameter"):
        return skel
    return json.loads(json.dumps(skel).replace('"class": "Parameter"', '"class": "Tensor"'))


@pytest.mark.parametrize("name", golden.FILES)
@pytest.mark.parametrize("mmap", [False, True])
def test_pytorch_checkpoint_loads_as_in_pytorch(name, mmap):
    if mmap and name == "legacy.pt":
        with pytest.raises(RuntimeError, match="mmap can only be used"):
            tl.load(os.path.join(GOLDEN, name), mmap=True)
        return
    loaded = tl.load(os.path.join(GOLDEN, name), mmap=mmap)
    assert golden.skeleton(loaded, tl) == expected(name)


def test_golden_files_cover_what_the_issue_asks():
    nested = EXPECTED["nested.pt"]
    text = json.dumps(nested)
    for dtype in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                  "float32", "float64", "complex64", "complex128"):
        assert f'"dtype": "{dtype}"' in text
    shared = [item[1] for item in nested["items"] if item[0]["value"] == "shared"][0]
    groups = {v[1]["storage"] for v in shared["items"][:6]}
    assert len(groups) == 1  # base and its five views: one storage
    optim = EXPECTED["optimizer.pt"]
    assert [k[0]["value"] for k in optim["items"]] == ["state", "param_groups"]
    assert EXPECTED["state_dict.pt"]["attrs"]  # the OrderedDict's _metadata


def test_state_dict_matches_the_model_pytorch_saved():
    state = tl.load(os.path.join(GOLDEN, "state_dict.pt"))
    assert list(state) == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                           "1.running_var", "1.num_batches_tracked", "2.weight", "2.bias"]
    assert state["1.num_batches_tracked"].dtype == tl.int64
    assert state["1.num_batches_tracked"].shape == () and state["1.num_batches_tracked"].item() == 2
    assert state._metadata[""]["version"] == 1
    optim = tl.load(os.path.join(GOLDEN, "optimizer.pt"))
    group = optim["param_groups"][0]
    assert group["betas"] == (0.8, 0.9) and group["lr"] == 0.01 and group["params"] == list(
        range(6))
    assert optim["state"][0]["step"].item() == 2.0


def test_resaved_golden_files_reload_identically():
    for name in golden.FILES:
        obj = tl.load(os.path.join(GOLDEN, name))
        for zip_format in (True, False):
            buf = io.BytesIO()
            tl.save(obj, buf, _use_new_zipfile_serialization=zip_format)
            buf.seek(0)
            assert golden.skeleton(tl.load(buf), tl) == expected(name)


# ---- fuzz --------------------------------------------------------------------------------

def _seed_files():
    with open(os.path.join(GOLDEN, "nested.pt"), "rb") as f:
        zipped = f.read()
    with open(os.path.join(GOLDEN, "legacy.pt"), "rb") as f:
        legacy = f.read()
    with zipfile.ZipFile(io.BytesIO(zipped)) as zf:
        records = [(i.filename, zf.read(i)) for i in zf.infolist()]
    return zipped, legacy, records


ZIPPED, LEGACY, RECORDS = _seed_files()
FUZZ = settings(max_examples=int(os.environ.get("TL_FUZZ_EXAMPLES", 150)), deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


def _load_or_fail_cleanly(data, **kwargs):
    try:
        tl.load(io.BytesIO(data), **kwargs)
    except Exception:  # any Python exception is an acceptable answer; a crash is not
        pass


mutation = st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)), min_size=1,
                    max_size=8)


def _mutate(data, edits, cut):
    data = bytearray(data)
    for pos, value in edits:
        data[pos % len(data)] = value
    return bytes(data[:cut]) if cut else bytes(data)


@FUZZ
@given(edits=mutation, cut=st.integers(0, 9000), legacy=st.booleans())
def test_fuzz_mutated_checkpoint_bytes(edits, cut, legacy):
    _load_or_fail_cleanly(_mutate(LEGACY if legacy else ZIPPED, edits, cut))


@FUZZ
@given(edits=mutation, cut=st.integers(0, 4000))
def test_fuzz_mutated_pickle_inside_a_valid_zip(edits, cut):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, body in RECORDS:
            zf.writestr(name, _mutate(body, edits, cut) if name.endswith("data.pkl") else body)
    _load_or_fail_cleanly(out.getvalue())
