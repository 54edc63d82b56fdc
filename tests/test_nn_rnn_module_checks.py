"""The recurrent modules' argument and input checks, in PyTorch 2.15's words
(recorded from PyTorch): constructors, hidden-state ranks and sizes, dtypes."""
import warnings

import pytest

import torchlike as T
import torchlike.nn as nn
from torchlike.nn.utils.rnn import pack_sequence


@pytest.mark.parametrize("call,kind,message", [
    (lambda: nn.RNN(3, 4.5), TypeError, "hidden_size should be of type int, got: float"),
    (lambda: nn.RNN(0, 4), ValueError, "input_size must be greater than zero"),
    (lambda: nn.RNN(3, 0), ValueError, "hidden_size must be greater than zero"),
    (lambda: nn.RNN(3, 4, num_layers=0), ValueError, "num_layers must be greater than zero"),
    (lambda: nn.RNN(3, 4, bias=1), TypeError, "bias should be of type bool, got: int"),
    (lambda: nn.RNN(3, 4, batch_first=1), TypeError,
     "batch_first should be of type bool, got: int"),
    (lambda: nn.RNN(3, 4)(T.zeros(3)), ValueError,
     "RNN: Expected input to be 2D or 3D, got 1D tensor instead"),
    (lambda: nn.GRU(3, 4)(T.zeros(3)), ValueError,
     "GRU: Expected input to be 2D or 3D, got 1D instead"),
    (lambda: nn.LSTM(3, 4)(T.zeros(5, 3), (T.zeros(1, 1, 4), T.zeros(1, 4))), RuntimeError,
     "For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 2-D) tensors"),
    (lambda: nn.LSTM(3, 4)(T.zeros(5, 2, 3), (T.zeros(2, 4), T.zeros(1, 2, 4))), RuntimeError,
     "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 3-D) tensors"),
    (lambda: nn.GRU(3, 4)(T.zeros(5, 2, 3), T.zeros(2, 4)), RuntimeError,
     "For batched 3-D input, hx should also be 3-D but got 2-D tensor"),
    (lambda: nn.GRU(3, 4, batch_first=True)(T.zeros(5, 3), T.zeros(1, 2, 4)), RuntimeError,
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    (lambda: nn.LSTM(3, 4)(T.zeros(5, 2, 3, dtype=T.float64)), ValueError,
     "RNN input dtype (torchlike.float64) does not match weight dtype (torchlike.float32). "
     "Convert input: input.to(torchlike.float32), or convert model: "
     "model.to(torchlike.float64)"),
    (lambda: nn.GRU(3, 4)(pack_sequence([T.zeros(2, 3, dtype=T.float64)])), ValueError,
     "RNN input dtype (torchlike.float64) does not match weight dtype"),
    (lambda: nn.GRU(3, 4)(T.zeros(0, 3)), RuntimeError,
     "Expected sequence length to be larger than 0 in RNN"),
    (lambda: nn.LSTM(3, 4, batch_first=True)(T.zeros(2, 0, 3)), RuntimeError,
     "Expected sequence length to be larger than 0 in RNN"),
    (lambda: nn.RNN(3, 4)(T.zeros(0, 2, 3), T.zeros(1, 5, 4)), RuntimeError,
     "Expected hidden size (1, 2, 4), got [1, 5, 4]"),
    (lambda: nn.LSTMCell(3, 4)(T.zeros(2, 5)), RuntimeError,
     "input has inconsistent input_size: got 5 expected 3"),
    (lambda: nn.LSTMCell(3, 4)(T.zeros(2, 3), (T.zeros(2, 5), T.zeros(2, 4))), RuntimeError,
     "hidden0 has inconsistent hidden_size: got 5, expected 4"),
    (lambda: nn.LSTMCell(3, 4)(T.zeros(2, 3), (T.zeros(2, 4), T.zeros(3, 4))), RuntimeError,
     "Input batch size 2 doesn't match hidden1 batch size 3"),
    (lambda: nn.LSTMCell(3, 4)(T.zeros(2, 3), T.zeros(2, 4)), TypeError,
     "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not Tensor"),
    (lambda: nn.LSTMCell(3, 4)(T.zeros(2, 3), (T.zeros(2, 4),)), RuntimeError,
     "lstm_cell expects two hidden states"),
    (lambda: nn.GRUCell(3, 4)(T.zeros(2, 2, 3)), ValueError,
     "GRUCell: Expected input to be 1D or 2D, got 3D instead"),
    (lambda: nn.GRUCell(3, 4)(T.zeros(3), T.zeros(2, 4)), RuntimeError,
     "Expected 2D hidden0 (batch x hidden_size), but got 3D tensor"),
    (lambda: nn.GRUCell(3, 4)(T.zeros(2, 3), T.zeros(2, 2, 4)), ValueError,
     "GRUCell: Expected hidden to be 1D or 2D, got 3D instead"),
])
def test_checks_in_pytorchs_words(call, kind, message):
    with pytest.raises(kind) as info:
        call()
    assert str(info.value).startswith(message)


def test_dropout_with_one_layer_warns_and_valid_calls_pass():
    with pytest.warns(UserWarning, match="^dropout option adds dropout after all but last "
                                         "recurrent layer, so non-zero dropout expects "
                                         "num_layers greater than 1, but got dropout=0.5 and "
                                         "num_layers=1$"):
        nn.LSTM(3, 4, dropout=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = nn.LSTM(3, 4, 2, dropout=0.3, batch_first=True)
    out, (h, c) = m(T.zeros(2, 5, 3))
    assert tuple(out.shape) == (2, 5, 4) and tuple(h.shape) == (2, 2, 4)
    assert tuple(nn.RNNCell(3, 4)(T.zeros(3), T.zeros(4)).shape) == (4,)
    h, c = nn.LSTMCell(3, 4)(T.zeros(2, 3), [T.zeros(2, 4), T.ones(2, 4)])  # a list is taken
    assert tuple(h.shape) == (2, 4) and tuple(c.shape) == (2, 4)
    assert tuple(nn.GRU(3, 4)(T.zeros(5, 3), T.zeros(1, 4))[0].shape) == (5, 4)
