"""An eighth round of ordinary PyTorch training programs run on torchlike,
86 of them, mostly about layers and utilities the first seven rounds left
out or touched once.

Layers: sub-pixel convolution (pixel_shuffle / pixel_unshuffle) and its
refusals, lazy modules materialised, re-initialised, loaded and trained,
SegNet-style max-unpooling, twenty activations trained and their values
and gradients at the kinks, in-place activations after saved outputs,
Softmin / Softmax2d / softmax with a dtype, the dropout family in eval
and its stream-independent facts in training, every padding module
before a convolution and F.pad's refusals, convolutions with padding
modes, 'same' with dilation, groups, output_padding and output_size,
3-d convolutions and pools, a dilated causal (WaveNet) stack, a locally
connected layer by Unfold/Fold, pooling windows at the edges (ceil_mode,
count_include_pad, dilation, overlapping adaptive windows), adaptive,
fractional and power-average pools, a ShuffleNet block, a channels_last
model trained, an interpolating decoder and 1-d/3-d interpolation, a
spatial transformer in every grid_sample mode.  Normalisation:
BatchNorm's cumulative average (momentum=None), tracked InstanceNorm and
GroupNorm, local response norms, the functional norms with running
statistics kept by hand, conv+bn fusion's helpers, spectral norm (the
hook and the parametrization, their vectors set from NumPy) in a
discriminator, the hook-based weight norm trained and removed.  Losses:
multi-label and multi-class margins, segmentation with weights,
ignore_index and label smoothing together, every target ignored,
ranking/cosine/triplet/hinge losses trained, heteroscedastic Gaussian
and Poisson regression, robust regression at the thresholds,
distillation by KL with log_target, an additive cosine margin, a
contrastive siamese net with pdist/cdist, learned task weights,
AdaptiveLogSoftmaxWithLoss with head_bias.  Machinery: nn.init's
schemes through model.apply (the random ones by their properties),
skip_init, strict=False reports and non-persistent buffers, flat
parameter vectors, unfreezing by add_param_group with
zero_grad(set_to_none=False) and clip_grad_value_, three weight EMAs,
accumulation under a no_sync-like wrapper, tied and shared parameters,
pretrained embeddings, max_norm renormalisation, reproducible dropout by
the generator's state, grad modes and inference tensors, torch.compile
as the identity, a Transformer encoder's nested fast path, GRUCell
scheduled sampling and truncated LSTMCell backpropagation, a custom
Optimizer subclass with hooks and a state dict, the subgradients picked
at ties and kinks (clamp, maximum, max/amax, median, topk, sort, abs,
norm) and at the margin losses' hinge points, softmax without a dim,
an empty batch through a model, attention rows that see no key,
BatchNorm's momentum at 0, 1 and None, class and binary targets of the
wrong dtype, every regression and margin loss given a target of another
dtype, layers given an input of another dtype, the functional layers
given integer and bool inputs, default_collate of every scalar kind a
Dataset returns, and a model's printed repr (repeated blocks folded)
and dtype conversions, and torch.nn.utils given odd inputs (mixed
dtypes, no gradients, empty sequences, every norm type), and Embedding
and EmbeddingBag at their argument edges, and the warnings a
Transformer encoder's construction gives, and gradients where layers
and losses meet zero (norms, distances, sqrt, constant rows), and the
losses' operands at their edges (probability targets, 0-d targets,
broadcast weights, integer operands), and layers built or called with
degenerate arguments.  Data:
random_split by fractions, weighted, batch and distributed samplers,
nested collation, a seeded shuffling loader.  And the refusals of
convolutions, normalisations and recurrent cells.

What they found, fixed with them:
- multinomial without replacement refused more draws than nonzero
  weights (so did WeightedRandomSampler(replacement=False) over sparse
  weights), where PyTorch takes the zero-weight categories last; its
  refusals of negative, non-finite and all-zero rows were worded
  otherwise (tests/test_random.py);
- F.pad's reflect/replicate returned an empty result for a negative pad
  that empties a dimension, which PyTorch refuses in its words (and
  circular's when it goes negative); circular's wrap-around refusal
  lacked its full stop (tests/test_shapes.py);
- nll_loss / cross_entropy on a 2-d spatial input with a target of
  another rank said "size mismatch", and on 3-d and up spatial inputs
  always did, where PyTorch names the target's rank, or says "Expected
  target size" (tests/test_nn_loss.py);
- max_unpool's refusals showed the output size as a list and prefixed
  the indices' shape check with the op's name; pixel_unshuffle named
  height and width together (tests/test_nn_pool.py,
  test_nn_resample.py); interpolate showed a scale_factor of the wrong
  length as a list, without PyTorch's advice (test_nn_resample.py);
- a lazy module's state dict held detached empty tensors where PyTorch's
  holds the UninitializedParameter/UninitializedBuffer placeholders
  (tests/test_nn_module.py);
- a convolution weight of fewer than three dims, LSTMCell given one
  tensor for (h, c) (a ValueError from unpacking, not PyTorch's
  TypeError) and the in-place refusal of an inference tensor were worded
  otherwise (tests/test_nn_conv.py, test_nn_rnn_module_checks.py,
  test_inference_tensors.py);
- one_hot took int32/uint8/bool indices, binary_cross_entropy a target
  of another dtype than its input's, and binary_cross_entropy_with_logits
  an integer or bool target, all of which PyTorch refuses; and the
  latter's loss came out in the promoted dtype, where PyTorch's is the
  float target's; huber and soft margin losses gave the promoted dtype
  where PyTorch's give the input's, and kl_div took integer tensors,
  which PyTorch refuses (tests/test_nn_loss.py);
- an integer input into a float convolution failed for want of an
  integer kernel, where PyTorch names the dtype mismatch (bias first,
  in C++ type names); conv.c's own partial table of those names gave way
  to the shared one (tests/test_nn_conv.py);
- relu6/hardtanh and threshold refused integer tensors, which PyTorch
  clamps and thresholds (the scalars truncated to the dtype), and relu
  took bool ones, which it refuses; the float-only layers (activations,
  softmax, the normalisations, grid sampling) refused integers with a
  RuntimeError where PyTorch raises NotImplementedError
  (tests/test_nn_activation.py); unfold and fold refused bool tensors
  (tests/test_nn_conv.py); embedding_bag checked per_sample_weights'
  mode before their shape, PyTorch the shape first
  (tests/test_nn_embedding.py);
- mse, smooth_l1 and huber computed two integer operands in float, which
  PyTorch's kernels refuse; huber and soft margin took an integer input,
  which cannot hold their loss in PyTorch; l1 of integers gave floats
  where PyTorch's |input - target| stays integer (and refuses its mean);
  margin_ranking_loss broadcast a 0-d target, which PyTorch refuses
  (tests/test_nn_loss.py);
- layer_norm/rms_norm with an empty normalized_shape, lp_pool with a
  norm_type of 0 and Bilinear with no first-input features failed with
  other words or a ZeroDivisionError (tests/test_nn_norm.py,
  test_nn_pool.py, test_nn_api_extra.py); a convolution with no output
  channels was computed, which PyTorch refuses (tests/test_nn_conv.py).

By design, and so left out or spelled so it does not show: torchlike's
random numbers are not PyTorch's (docs/random.md), so the programs that
draw compare only what does not depend on the stream; F.pad's non-constant
modes pad inputs without batch and channel dims here, which PyTorch
refuses (docs/nn.md); a convolution module given a padding, stride or
kernel tuple of the wrong length is refused when built here, when called
in PyTorch; a broadcasting failure is compared by being a RuntimeError and
its first words (torchlike.BroadcastError adds the shapes); a bool target
of a loss PyTorch computes by subtracting it (l1, Gaussian NLL,
multi-label soft margin) is left out, as torchlike subtracts a bool from a
number as NumPy does (docs/elementwise.md), and so are LayerNorm/GroupNorm
given an input of another float dtype than their weights (docs/nn.md);
Tensor.sort takes dim positionally beside stable= (one merged signature),
which PyTorch's overloads refuse, so the program spells it dim=. Left out
as PyTorch's own artefacts: which tied index kthvalue returns (its
quickselect's partitioning decides), embedding_bag's refusal of decreasing
offsets (an internal assertion's words), the refusal of an unknown
padding_mode (it prints a set, in an order that changes between
processes), LocalResponseNorm's of a 2-D input (its message carries the
source's line-continuation spaces) and MultiheadAttention's refusal of a
float64 input into float32 weights (worded by the matmul path its
in-projection takes for the layout). Programs whose float32 result hangs
on cancellation run in float64 (the spatial transformer); a bias before an
InstanceNorm and the running statistics a lazy module's first (random)
forward leaves are kept out of the trained results, as their values are
rounding noise or the stream's. Left as they are (docs/nn.md): unfold and
fold of integer tensors (no kernel here) and local_response_norm of an
integer one (PyTorch's composite runs, truncating its integer average).
Found and not yet matched (layer_argument_edges leaves them out): the
pooling windows' refusals of a zero kernel, stride or dilation and of a
negative padding (PyTorch words them per op and rank), unfold's zero kernel,
adaptive pooling's negative size and BatchNorm of no features (other
words).

The programs live in scripts/golden_training_programs8.py, taking the
library as T; PyTorch's answers to them are in
tests/golden/training_programs8.json.  Each runs here on torchlike and its
described result is compared with PyTorch's, within the stated tolerance."""
from oracle import program_test

test_program_matches_pytorch = program_test("training_programs8")
