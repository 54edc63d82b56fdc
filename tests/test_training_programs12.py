"""A twelfth round of ordinary PyTorch training programs run on
torchlike, 72 of them, over the less common layers, losses, optimizers and
schedulers the first eleven rounds left.

Recurrent layers over packed sequences: a bidirectional two-layer LSTM
with proj_size over an unsorted batch, a three-layer GRU given h0, an
Elman RNN unpacked by unpack_sequence/unpad_sequence, a seq2seq LSTMCell
with teacher forcing, unbatched cells, unbatched and bias-free LSTMs,
bidirectional h_n layouts, and pack_padded_sequence's refusals.
Convolutions: Conv1d with groups, dilation and padding='same' in every
padding mode, even kernels under 'same', ConvTranspose1d/2d/3d with
groups, dilation, output_padding and output_size (checked as adjoints),
grouped Conv3d with MaxPool3d/MaxUnpool3d, adaptive max unpooling.
EmbeddingBag's modes, offsets, per-sample weights and padding_idx (module
and functional), from_pretrained with max_norm; CTC loss's reductions,
blanks, impossible alignments, float64 and int32 forms, a GRU acoustic
model.  Losses with soft targets and smoothing, segmentation NLL, ranking
and margin losses, Gaussian/Poisson NLL, BCE with pos_weight, KL with
log_target, triplet losses with distance functions.  Optimizers: a tour
of options (amsgrad, maximize, decoupled decay, Rprop's etas, ASGD,
Adadelta, nesterov), param groups added midway, Adafactor, foreach parity,
LBFGS with strong Wolfe, SparseAdam over sparse embeddings.  Schedulers:
warm restarts stepped by fractional epochs and resumed, OneCycleLR
cycling Adam's betas and three-phase SGD momentum, MultiStepLR with
repeated milestones, SequentialLR, CyclicLR exp_range, ChainedScheduler,
SWALR, CosineAnnealingLR resumed.  Clipping with non-finite norms,
foreach, mixed dtypes, get_total_norm; GradScaler on the CPU skipping an
inf step; CPU autocast in bfloat16 and float16 over PyTorch's op lists;
checkpoints resumed through BytesIO and views sharing storage after load;
samplers (SubsetRandomSampler, DistributedSampler shards, BatchSampler
as sampler, replacement) and collate functions (namedtuples, nesting,
padding); lazy modules; fusing conv and batch norm; module surgery;
nn.Transformer and TransformerDecoder with causal masks; MultiheadAttention
with kdim/vdim and both masks; a WGAN-GP penalty and a Hessian-vector
product; custom autograd Functions (straight-through sign,
mark_non_differentiable, once_differentiable); EMA and SWA models with
update_bn; BatchNorm's cumulative average; Fold/Unfold patch models;
sub-pixel super-resolution; REINFORCE; activation checkpointing; empty
batches through layers and losses; non-contiguous inputs; and gradients
where the derivative is a choice (kinks of activations, ties, zeros).

What they found, fixed with them:
- once_differentiable's delayed error named the function in parentheses,
  which PyTorch's message does not (torchlike/autograd/function.py,
  tests/test_grad_function.py);
- pack_padded_sequence took lengths that are not 1-d into int()'s
  TypeError where PyTorch's kernel refuses them in its words
  (torchlike/nn/utils/rnn.py, tests/test_nn_utils.py);
- pad_sequence promoted sequences of two dtypes where PyTorch's result has
  the first's (torchlike/nn/utils/rnn.py, tests/test_nn_utils.py);
- softmax/log_softmax of a non-floating result dtype spoke words of our
  own where PyTorch names its CPU kernel (src/nn/softmax/softmax.c,
  tests/test_nn_softmax.py);
- a 1-d transposed convolution's too-small output and max_unpool1d's
  invalid index lacked the height/width of 1 PyTorch's 2-d kernels show
  (src/nn/conv/conv.c, src/nn/pool/pool.c, tests/test_nn_conv.py,
  tests/test_nn_pool.py);
- fractional_max_pool2d/3d's size checks were our own words, and the 3-d
  one accepted an output PyTorch's strict check refuses (src/nn/pool/pool.c,
  tests/test_nn_pool.py, tests/test_fuzz_regressions.py);
- a negative label_smoothing was refused where PyTorch smooths nothing
  (src/nn/loss/cross_entropy.c, torchlike/nn/functional.py,
  tests/test_nn_class_loss.py);
- ctc_loss refused float targets PyTorch reads as int64 and computed half
  log_probs its CPU kernel refuses; celu(alpha=0) and rrelu with lower >
  upper, the triplet losses' non-positive margins, one_hot of an empty
  tensor without a class count, and EmbeddingBag's padding_idx refusals
  answered otherwise (torchlike/nn/functional.py,
  torchlike/nn/modules/loss.py, torchlike/nn/modules/sparse.py,
  tests/test_nn_class_loss.py, tests/test_nn_activation.py,
  tests/test_nn_embedding.py).

Marked xfail (strict) below: the index topk and kthvalue return among
equal values (docs/sorting.md).  Left out by design (each program's
docstring says where): a length longer than the input in
pack_padded_sequence (PyTorch reads past it), SparseAdam of dense
gradients (docs/optim.md), and PyTorch's sets of strings in messages
(their order follows string hashing).  Left out and not fixed: the
'elementwise_mean' reduction, which PyTorch still accepts with a
deprecation warning and torchlike refuses.

The programs live in scripts/golden_training_programs12.py, taking the
library as T; PyTorch's answers are in tests/golden/training_programs12.json,
compared as in rounds four to eleven (floats within
oracle.FLOAT32_PROGRAMS)."""
import pytest

from oracle import FLOAT32_PROGRAMS, assert_program_matches, golden_calls

_CALLS, _GOLDEN = golden_calls("training_programs12")

# Programs torchlike does not match yet, each with the reason (strict: the
# day it matches, the mark must go).
_XFAIL = {
    "kthvalue_ties(T)": "kthvalue's index among equal values: PyTorch's CPU kernel returns "
                        "whichever tied element its median-of-three quickselect leaves at "
                        "position k-1; torchlike's lane engine (src/ndcore/kernels/sort.c) "
                        "takes the k-th element of a stable sort",
    "topk_ties(T)": "topk's indices among equal values: PyTorch's CPU kernel orders ties as "
                    "its partial sort / nth_element leaves them; torchlike's lane engine "
                    "returns the earliest of equal values first",
}


@pytest.mark.parametrize("call,expected", [
    pytest.param(c, e, id=c, marks=[pytest.mark.xfail(strict=True, reason=_XFAIL[c])]
                 if c in _XFAIL else []) for c, e in _CALLS])
def test_program_matches_pytorch(call, expected):
    assert_program_matches(_GOLDEN, call, expected, FLOAT32_PROGRAMS)


def test_every_xfail_names_a_program():
    assert set(_XFAIL) <= {c for c, _ in _CALLS}
