"""Tensor.grad_dtype against PyTorch's recorded answers
(tests/golden/grad_dtype.json, scripts/golden_grad_dtype.py): the dtype
gradients take on their way into a leaf, through built-in ops, casts,
autograd.grad and custom Functions, and the checks of .grad assignment."""
import pytest

import torchlike as T
from oracle import golden_calls, golden_check

CALLS, _golden = golden_calls("grad_dtype")
# ours names its own dtype type in the message
DIFFERENT = {"setting(leaf(), 'float')": ("RuntimeError", "grad_dtype must be a torchlike.dtype "
                                                          "or None, but got str"),
             "setting(leaf(), 3)": ("RuntimeError", "grad_dtype must be a torchlike.dtype or None, "
                                                    "but got int")}


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    golden_check(_golden, call, expected, different=DIFFERENT,
                 same_wording=("attempting to assign", "Cannot set grad_dtype",
                               "grad_dtype can only"))


def test_gradient_values_survive_the_cast_and_accumulate():
    x = T.tensor([0.5, 1.5, -2.0], requires_grad=True)
    x.grad_dtype = T.float64
    (x ** 3).sum().backward()
    (x ** 3).sum().backward()
    assert x.grad.dtype == T.float64
    assert x.grad.tolist() == [2 * 3 * v * v for v in (0.5, 1.5, -2.0)]


def test_a_deleted_grad_dtype_is_refused():
    x = T.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="set it to None"):
        del x.grad_dtype


def test_a_gradient_of_another_size_is_refused_in_pytorchs_words():
    # the sentence of PyTorch 2.15 (it said "assigned grad has data of a
    # different size" here; training programs, round seven)
    p = T.nn.Parameter(T.ones(2, 3))
    with pytest.raises(RuntimeError) as e:
        p.grad = T.ones(3, 2)
    assert str(e.value) == ("attempting to assign a gradient of size '[3, 2]' to a tensor of size "
                            "'[2, 3]'. Please ensure that the gradient and the tensor are the "
                            "same size")


def test_requires_grad_refusals_word_the_method_and_the_attribute_as_pytorch():
    # PyTorch's requires_grad_() says "floating point dtype", its attribute
    # setter "floating point and complex dtype" (both take complex tensors);
    # both said the latter here (training programs, round seven)
    t = T.ones(2, dtype=T.int64)
    with pytest.raises(RuntimeError, match=r"^only Tensors of floating point dtype can require "
                                           r"gradients \(got int64\)$"):
        t.requires_grad_()
    with pytest.raises(RuntimeError, match=r"^only Tensors of floating point and complex dtype "
                                           r"can require gradients \(got int64\)$"):
        t.requires_grad = True
    assert T.ones(2, dtype=T.complex64).requires_grad_().requires_grad
