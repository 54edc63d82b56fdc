"""torchlike.hub, torchlike.utils._pytree and torchlike.GradScaler against
PyTorch's recorded answers (scripts/golden_api_modules.py), and hub's
offline behaviour: local hubconf entry points, file:// downloads with hash
checks, the trust check for cached GitHub repositories, network refusals."""
import builtins
import os

import pytest

import torchlike as torch
from api_modules_golden import GOLDEN, check

DIFFERENT = {
    # torchlike.Size stays a leaf, as the function transforms have always treated it
    "T.utils._pytree.tree_flatten(T.Size([2, 3]))": [[[2, 3]], "*"],
}


@pytest.mark.parametrize("call,expected", GOLDEN["extras"], ids=[c for c, _ in GOLDEN["extras"]])
def test_matches_pytorch(call, expected):
    if "Point" in call:   # recorded when the script ran as __main__
        expected = [expected[0], expected[1].replace("__main__.", "golden_api_modules.")]
    check("extras", call, expected, different=DIFFERENT)


def _repo(tmp_path, name="repo"):
    repo = tmp_path / name
    repo.mkdir()
    (repo / "hubconf.py").write_text(
        "dependencies = []\n"
        "def make(n=1):\n    'Makes n.'\n    return ['made'] * n\n"
        "def _hidden():\n    return 0\n")
    return repo


def test_local_list_help_load(tmp_path):
    repo = _repo(tmp_path)
    assert torch.hub.list(str(repo)) == ["make"]
    assert torch.hub.help(str(repo), "make") == "Makes n."
    assert torch.hub.load(str(repo), "make", 2, source="local") == ["made", "made"]


def test_github_needs_cache_and_trust(tmp_path, monkeypatch):
    torch.hub.set_dir(str(tmp_path / "hub"))
    try:
        with pytest.raises(RuntimeError, match="no network access"):
            torch.hub.load("owner/proj", "make")
        cached = tmp_path / "hub"
        cached.mkdir()
        _repo(cached, "owner_proj_main")
        answers = iter(["n", "y"])
        monkeypatch.setattr(builtins, "input", lambda prompt: next(answers))
        with pytest.raises(Exception, match="Untrusted repository"):
            torch.hub.load("owner/proj", "make")
        assert torch.hub.load("owner/proj", "make") == ["made"]      # answered yes
        assert (cached / "trusted_list").read_text().split() == ["owner_proj"]
        monkeypatch.setattr(builtins, "input", lambda prompt: pytest.fail("asked again"))
        assert torch.hub.load("owner/proj", "make", 3) == ["made"] * 3   # now trusted
        with pytest.raises(RuntimeError, match="no network access"):
            torch.hub.load("owner/proj", "make", force_reload=True)
        with pytest.warns(UserWarning, match="untrusted repository"):
            torch.hub.load("owner/proj:main", "make", trust_repo=None)
        assert torch.hub.load("owner/proj", "make", trust_repo=True) == ["made"]
        assert (cached / "trusted_list").read_text().split() == ["owner_proj"]   # once
    finally:
        torch.hub.set_dir(os.path.join(torch.hub._torch_home(), "hub"))


def test_network_urls_refused(tmp_path):
    with pytest.raises(RuntimeError, match="no network access"):
        torch.hub.download_url_to_file("https://example.com/x.pt", str(tmp_path / "x.pt"))
    with pytest.raises(RuntimeError, match="no network access"):
        torch.hub.load_state_dict_from_url("http://example.com/x.pt", model_dir=str(tmp_path))
    assert os.listdir(tmp_path) == []


def test_state_dict_cached_once(tmp_path):
    src = tmp_path / "w.pt"
    torch.save({"a": torch.ones(2)}, str(src))
    url = "file://" + str(src)
    sd = torch.hub.load_state_dict_from_url(url, model_dir=str(tmp_path / "c"), progress=False)
    assert sd["a"].tolist() == [1.0, 1.0]
    torch.save({"a": torch.zeros(2)}, str(src))         # the cached copy is used again
    sd = torch.hub.load_state_dict_from_url(url, model_dir=str(tmp_path / "c"), progress=False)
    assert sd["a"].tolist() == [1.0, 1.0]


def test_pytree_register_roundtrip_and_errors():
    P = torch.utils._pytree

    class Box:
        def __init__(self, items, label):
            self.items, self.label = items, label

    P.register_pytree_node(Box, lambda b: (b.items, b.label),
                           lambda items, label: Box(list(items), label))
    tree = {"x": Box([torch.ones(1), (2, 3)], "L")}
    leaves, spec = P.tree_flatten(tree)
    assert len(leaves) == 3 and spec.num_leaves == 3
    back = P.tree_unflatten([10, 20, 30], spec)
    assert back["x"].label == "L" and back["x"].items == [10, (20, 30)]
    with pytest.raises(ValueError, match="already registered"):
        P.register_pytree_node(dict, lambda d: d, lambda d, c: d)
    with pytest.raises(ValueError, match="structures differ"):
        P.tree_map(lambda a, b: a, [1, 2], (1, 2))
    seen = []
    assert P.tree_map_(seen.append, [1, (2,)]) == [1, (2,)] and seen == [1, 2]
