"""torch.func.functionalize and replace_all_batch_norm_modules_
(torchlike/func/_functionalize.py), with the behaviour PyTorch 2.15 shows
for the same calls: results and input mutations as the function's own,
aliasing outputs copied under remove='mutations_and_views', and batch norms
left with batch statistics only."""
import numpy as np
import pytest

import torchlike as T
from torchlike.func import functionalize, replace_all_batch_norm_modules_


def _mutating(x):
    y = x.clone()
    y.add_(1)
    x.mul_(2)
    return y.view(-1), x.t(), x[1:]


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_results_and_input_mutations_are_the_functions(remove):
    x, ref = T.ones(2, 2), T.ones(2, 2)
    got, want = functionalize(_mutating, remove=remove)(x), _mutating(ref)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    np.testing.assert_array_equal(x.numpy(), ref.numpy())  # the input was still mutated
    shares = [g.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() for g in got[1:]]
    assert shares == ([True, True] if remove == "mutations" else [False, False])
    if remove == "mutations_and_views":
        assert all(g.is_contiguous() for g in got)


def test_an_input_returned_unchanged_stays_itself():
    x = T.arange(3.0)
    for remove in ("mutations", "mutations_and_views"):
        assert functionalize(lambda t: t, remove=remove)(x) is x
    a, b = functionalize(lambda t: (t * 2, t * 3), remove="mutations_and_views")(x)
    assert a.tolist() == [0.0, 2.0, 4.0] and b.tolist() == [0.0, 3.0, 6.0]


def test_gradients_flow_and_the_name_is_kept():
    x = T.tensor([1.0, 2.0], requires_grad=True)
    f = functionalize(lambda t: (t * t)[:1], remove="mutations_and_views")
    f(x).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0]
    assert functionalize(_mutating).__name__ == "_mutating"


def test_bad_remove_is_pytorchs_error():
    with pytest.raises(RuntimeError, match=r"received invalid argument for remove=bad\. Valid "
                                           r"options are:"):
        functionalize(_mutating, remove="bad")


def test_replace_all_batch_norm_modules():
    net = T.nn.Sequential(T.nn.BatchNorm1d(3), T.nn.Linear(3, 3),
                          T.nn.Sequential(T.nn.BatchNorm2d(2, affine=False)),
                          T.nn.BatchNorm1d(3, track_running_stats=False))
    assert replace_all_batch_norm_modules_(net) is net
    for m in (net[0], net[2][0], net[3]):
        assert (m.running_mean, m.running_var, m.num_batches_tracked) == (None, None, None)
        assert m.track_running_stats is False
    assert dict(net.named_buffers()) == {}
    assert list(net.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias",
                                      "3.weight", "3.bias"]
    # eval mode now normalises with the batch's own statistics
    net.eval()
    x = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 0.0]])
    got = net[0](T.tensor(x, dtype=T.float32)).detach().numpy()
    want = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    xs = T.randn(5, 4, 3)
    per = T.func.vmap(net[0])(xs)
    np.testing.assert_allclose(per[2].detach().numpy(), net[0](xs[2]).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
