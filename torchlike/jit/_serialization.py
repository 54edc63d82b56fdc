"""``jit.save`` and ``jit.load``.

``save`` writes the scripted module or function with ``torchlike.save``'s
(zip) format, tagged as a jit file, so that ``load`` of it round-trips: the
object is pickled, its classes and functions by reference (importable from
the same modules when loaded).  Loading unpickles code references, so, as
with PyTorch's ``jit.load``, load only files you trust.

A TorchScript archive written by PyTorch holds TorchScript code (``code/``,
``constants.pkl``) that torchlike cannot run: ``load`` refuses it, saying so."""
import io
import os
import zipfile

from ._script import ScriptFunction, ScriptModule, _deprecated

_TAG = "torchlike.jit"


def save(m, f, _extra_files=None):
    """Write ``m`` (what ``jit.script``/``trace`` returned) to ``f`` (a path
    or a binary file); ``_extra_files`` maps names to str/bytes stored with it."""
    _deprecated("save", "switch to `torchlike.export`")
    if not isinstance(m, (ScriptModule, ScriptFunction)):
        raise AttributeError(f"'{type(m).__name__}' object has no attribute 'save_to_buffer'")
    from ..serialization import save as tl_save
    extra = {k: (v.encode() if isinstance(v, str) else bytes(v))
             for k, v in (_extra_files or {}).items()}
    tl_save({_TAG: 1, "object": m, "extra_files": extra}, f)


def _is_torchscript(names):
    return any(n.endswith("/constants.pkl") or "/code/" in n for n in names)


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """The object ``jit.save`` wrote to ``f``; ``_extra_files`` (a dict of
    names) is filled with the stored contents (bytes) of those names."""
    from ..serialization import load as tl_load
    _deprecated("load", "switch to `torchlike.export`")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise RuntimeError("torchlike.jit.load: the file is not a zip archive written by "
                           "torchlike.jit.save")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        if _is_torchscript(z.namelist()):
            raise RuntimeError(
                "torchlike.jit.load: this is a TorchScript archive written by PyTorch's "
                "torch.jit.save; it holds TorchScript code, which torchlike cannot run. Save "
                "the model's state_dict() with torch.save instead, build the model in Python "
                "and load_state_dict() it.")
    obj = tl_load(io.BytesIO(data), map_location=map_location, weights_only=False)
    if not (isinstance(obj, dict) and obj.get(_TAG) == 1):
        raise RuntimeError("torchlike.jit.load: the file was written by torchlike.save, not "
                           "torchlike.jit.save; load it with torchlike.load")
    if _extra_files is not None:
        for name in _extra_files:
            if name in obj["extra_files"]:
                _extra_files[name] = obj["extra_files"][name]
    return obj["object"]
