"""torchlike.hub: models from hubconf.py entry points and weights from URLs,
as ``torch.hub``, without a network.

- ``load``/``list``/``help`` with ``source="local"`` import ``hubconf.py``
  from the directory given (running its code: the caller asked for it).
  With ``source="github"`` ("owner/repo[:ref]") a copy already in the cache
  (``get_dir()/owner_repo_ref``, as PyTorch leaves it) is used, after
  PyTorch's ``trust_repo`` check (the trusted list in ``get_dir()``; an
  untrusted repository is only run when the user says yes at the prompt or
  passes ``trust_repo=True``); downloading one is refused.
- ``download_url_to_file`` and ``load_state_dict_from_url`` read
  ``file://`` URLs (http/https raise: no network here), check the SHA-256
  prefix (``hash_prefix``; ``check_hash`` takes it from the file name's
  ``-<hex>.`` part, as PyTorch's), cache under ``get_dir()/checkpoints``
  and ``torchlike.load`` the file (``weights_only`` as given).
- ``get_dir``/``set_dir``: ``$TORCH_HOME/hub``, ``$TORCH_HOME`` defaulting
  to ``$XDG_CACHE_HOME/torch`` (``~/.cache/torch``)."""
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
import warnings

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load",
           "load_state_dict_from_url", "set_dir"]

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
READ_DATA_CHUNK = 128 * 1024

_hub_dir = None


def _torch_home():
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(
        os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")))


def get_dir():
    """The directory hub caches repositories and checkpoints in."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_torch_home(), "hub")


def set_dir(d):
    """Use ``d`` as the hub directory (``~`` expanded)."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


# ---- hubconf entry points ----------------------------------------------------------------

def _import_hubconf(repo_dir):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"[Errno 2] No such file or directory: '{path}'")
    name = "hubconf"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_dir)   # hubconf imports its repository's modules
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_dir)
    missing = [pkg for pkg in getattr(module, VAR_DEPENDENCY, None) or ()
               if importlib.util.find_spec(pkg) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    func = getattr(module, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _parse_repo(github):
    if ":" in github:
        owner_name, ref = github.split(":", 1)
    else:
        owner_name, ref = github, None
    if "/" not in owner_name:
        raise ValueError(f"Invalid github repo: {github!r} (expected 'repo_owner/repo_name"
                         f"[:ref]')")
    owner, name = owner_name.split("/", 1)
    return owner, name, ref


def _trusted_list():
    path = os.path.join(get_dir(), "trusted_list")
    if not os.path.exists(path):
        return path, set()
    with open(path) as f:
        return path, {line.strip() for line in f if line.strip()}


def _check_trust(owner, name, trust_repo, calling_fn):
    """PyTorch's trust_repo rule for code downloaded from GitHub."""
    path, trusted = _trusted_list()
    entry = f"{owner}_{name}"
    if trust_repo is None:
        warnings.warn(
            "You are about to download and run code from an untrusted repository. In a future "
            "release, this won't be allowed. To add the repository to your trusted list, change "
            f"the command to {calling_fn}(..., trust_repo=False) and a command prompt will "
            f"appear asking for an explicit confirmation of trust, or {calling_fn}(..., "
            "trust_repo=True), which will assume that the prompt is to be answered with 'yes'. "
            "You can also use load(..., trust_repo='check') which will only prompt for "
            "confirmation if the repo is not already trusted. This will eventually be the "
            "default behaviour", stacklevel=3)
        return
    if trust_repo is False or (trust_repo == "check" and entry not in trusted):
        answer = input(f"The repository {name} does not belong to the list of trusted "
                       f"repositories and as such cannot be downloaded. Do you trust this "
                       f"repository and wish to add it to the trusted list of repositories "
                       f"(y/N)?")
        if answer.lower() not in ("y", "yes"):
            raise Exception("Untrusted repository.")  # noqa: TRY002 - PyTorch's type
    elif trust_repo == "check":
        print("The repository is already trusted.")
        return
    if entry not in trusted:
        os.makedirs(get_dir(), exist_ok=True)
        with open(path, "a") as f:
            f.write(entry + "\n")


def _repo_dir(repo_or_dir, source, trust_repo, force_reload, calling_fn):
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "local":
        return repo_or_dir
    owner, name, ref = _parse_repo(repo_or_dir)
    cached = [os.path.join(get_dir(), f"{owner}_{name}_{r.replace('/', '_')}")
              for r in ([ref] if ref else ["main", "master"])]
    found = next((d for d in cached if os.path.isdir(d)), None)
    if found is None or force_reload:
        raise RuntimeError(f"torchlike.hub cannot download {repo_or_dir!r} from GitHub: there "
                           f"is no network access. Clone the repository and pass its directory "
                           f"with source='local', or place a copy at {cached[0]}")
    _check_trust(owner, name, trust_repo, calling_fn)
    return found


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):
    """The entry points (public callables) of a repository's hubconf.py."""
    module = _import_hubconf(_repo_dir(github, "github" if not os.path.isdir(github) else
                                       "local", trust_repo, force_reload, "list"))
    return [f for f in dir(module) if callable(getattr(module, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):
    """The docstring of entry point ``model``."""
    module = _import_hubconf(_repo_dir(github, "github" if not os.path.isdir(github) else
                                       "local", trust_repo, force_reload, "help"))
    return _entry(module, model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """``model(*args, **kwargs)`` from the repository's hubconf.py;
    ``source="local"`` for a directory (see the module docstring)."""
    repo_dir = _repo_dir(repo_or_dir, source, trust_repo, force_reload, "load")
    return _entry(_import_hubconf(repo_dir), model)(*args, **kwargs)


# ---- files from URLs ---------------------------------------------------------------------

def _open_url(url):
    scheme = urllib.parse.urlparse(url).scheme
    if scheme == "file":
        return open(urllib.request.url2pathname(urllib.parse.urlparse(url).path), "rb")
    raise RuntimeError(f"torchlike.hub cannot download {url!r}: there is no network access "
                       f"here; fetch the file yourself and use a file:// URL or load it with "
                       f"torchlike.load")


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Copy ``url`` (file://) to ``dst``, checking the SHA-256 digest starts
    with ``hash_prefix``; a partial copy never replaces ``dst``."""
    dst = os.path.expanduser(dst)
    digest = hashlib.sha256() if hash_prefix is not None else None
    folder = os.path.dirname(os.path.abspath(dst))
    with _open_url(url) as src:
        tmp = tempfile.NamedTemporaryFile(delete=False, dir=folder, prefix=".partial-")
        try:
            with tmp:
                while True:
                    chunk = src.read(READ_DATA_CHUNK)
                    if not chunk:
                        break
                    tmp.write(chunk)
                    if digest is not None:
                        digest.update(chunk)
            if digest is not None:
                got = digest.hexdigest()
                if got[:len(hash_prefix)] != hash_prefix:
                    raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                                       f'"{got}")')
            shutil.move(tmp.name, dst)
        finally:
            if os.path.exists(tmp.name):
                os.remove(tmp.name)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """``torchlike.load`` of the file at ``url``, downloaded once into
    ``model_dir`` (default ``get_dir()/checkpoints``); ``check_hash``
    verifies the SHA-256 prefix in the file name (``name-<hex>.pth``)."""
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead",
                      stacklevel=2)
    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        hash_prefix = None
        if check_hash:
            m = HASH_REGEX.search(filename)
            hash_prefix = m.group(1) if m else None
        download_url_to_file(url, cached, hash_prefix, progress=progress)
    from .serialization import load as tl_load
    return tl_load(cached, map_location=map_location, weights_only=weights_only)
