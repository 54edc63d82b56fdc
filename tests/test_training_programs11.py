"""An eleventh round of ordinary PyTorch training programs run on
torchlike, 98 of them, in the corners the first ten rounds left.

Data: WeightedRandomSampler without replacement and its refusals,
BatchSampler over a seeded RandomSampler, IterableDataset through a
DataLoader (len, shuffle, sampler refusals, ChainDataset), StackDataset's
forms, ConcatDataset's negative indices, TensorDataset and random_split
refusals, default_collate of numpy scalars, float16 arrays and what it
refuses, dict samples padded by a collate_fn, per-epoch reshuffling, the
samplers' lengths, pre-batched datasets with batch_size=None.
torch.nn.utils: clipping single tensors with norm types 1/3/inf, zero and
NaN gradients, clip_grad_value_ with foreach; the deprecated weight_norm
(dims 0/1/None, removal, refusals); pruning's amounts, identity,
structured dims, containers and removal; parametrizations with two
originals and with cached(); vector_to_parameters.  Schedulers:
ReduceLROnPlateau (cooldown, abs threshold, per-group min_lr, state dict
round trip, max mode, refusals), SequentialLR in three stages resumed,
ChainedScheduler over two groups, OneCycleLR three-phase linear and its
refusals, ConstantLR/LinearLR/MultiplicativeLR refusals, cosine past
T_max, CyclicLR triangular2, the step-order warnings.  torch.func over
modules: jacrev/jacfwd over parameters, hessian, vmap's in_dims/out_dims/
chunk_size, grad's argnums and aux, vjp/jvp/linearize, an ensemble with
buffers, refusals, per-sample clipped SGD, a MAML inner loop.  State:
load_state_dict's casts and assign, pre/post hooks migrating a
checkpoint, extra state, buffer and parameter registration refusals,
non-persistent buffers through dtype moves, tied weights, _metadata
versions.  Hooks' order (pre/forward with prepend, backward pre/full on a
Sequential, tensor and post-accumulate hooks, global hooks, state-dict
hooks, a shared module).  nn.init: fans and gains, eye_/dirac_ (an
identity convolution), orthogonal_ on odd shapes, zero-element tensors.
torch.save/load: nested containers of many dtypes, shared views,
Parameters, map_location forms, a float32 checkpoint into a float64
model.  Dtypes: a float64 CNN, float16 layers on the CPU, bfloat16
training with float32 master weights, mixed-dtype refusals,
set_default_dtype(float64) modules, .double() keeping Parameters.  And
the common layers' refusals of inputs of the wrong shape (linear,
bilinear, convolutions, norms, RNNs, losses, pooling, embeddings, shape
layers, attention); a second pass: vmap's randomness and BatchNorm,
jacrev's argnums and chunks, checkpoints of graph tensors and numpy
arrays, nn.init's argument refusals, zero_grad and frozen submodules,
collation of mismatched mappings, grouped-query head refusals; and a
third: functional_call updating passed buffers and tie_weights=False,
module registration refusals, parameter containers edited, deepcopy of a
hooked and parametrized model, meta models moved with to_empty, legacy
and old-protocol checkpoints and a truncated one, a warmup stepped per
batch beside a plateau scheduler stepped per epoch; and a fourth: hooks
on a GRU's tuple output, functional_call through a parametrization, a
loader of dict rows with and without batching, orthogonal weights
without trivialization.

What they found, fixed with them:
- multinomial's refusals named sizes PyTorch's do not (met by a
  WeightedRandomSampler drawing more than its weights without
  replacement) (src/ndcore/kernels/random.c, tests/test_random.py);
- set_default_dtype(int64) added the dtype to PyTorch's words
  (src/ndcore/tensor/dtype.c, tests/test_core.py);
- local_response_norm of a 2-d input: PyTorch's message has a run of
  spaces in it, which ours lacked (src/nn/norm/lrn.c,
  tests/test_nn_norm.py);
- MultiplicativeLR took a factor that is not a function
  (tests/test_lr_scheduler.py);
- products of two dtypes (bmm met by float64 data, mm, dot, mv, addmm,
  baddbmm, inner, tensordot, multi_dot, matmul by its ranks) were refused
  in one message of our own, where each PyTorch kernel has its words; a
  biased F.linear checks the bias first as addmm does; inner with a 0-d
  operand now promotes (src/ndcore/linalg/matmul.c,
  tests/test_linalg_products.py, tests/test_nn_functional.py);
- einsum contracting operands of two dtypes spoke its own words or mm's,
  where PyTorch's einsum reaches bmm's (torchlike/_einsum.py,
  tests/test_linalg_products.py);
- scaled_dot_product_attention with query and key of different head
  dims: PyTorch's bmm words from its math path (src/nn/attention/
  attention.c, tests/test_nn_attention.py);
- normal_/uniform_/log_normal_/exponential_/cauchy_ of an integer or
  bool tensor (nn.init on one, rand/randn with an integer dtype) were
  refused in words of our own, where PyTorch names its kernels
  (NotImplementedError) or the continuous distribution
  (src/ndcore/kernels/random.c, tests/test_random.py);
- vmap over a model with training BatchNorm ran element by element,
  updating the running stats once per element, where PyTorch's batching
  rule refuses it (torchlike/func/_batching_rules.py,
  tests/test_func_vmap_batched.py);
- scaled_dot_product_attention's batch dims that do not broadcast
  (key heads differing without enable_gqa) and masks that do not fit the
  scores were refused in words of our own (broadcast_shapes', the
  kernel's), where PyTorch's math path speaks of tensors a and b, or of
  an output a mask would enlarge (torchlike/nn/_attention.py,
  tests/test_nn_attention.py);
- ParameterDict given a key that is not a string failed in setattr's
  words and kept the refused key (torchlike/nn/modules/container.py,
  tests/test_nn_module.py).

By design, and so spelled so it does not show: a broadcasting failure
(margin_ranking_loss, cosine_embedding_loss) is torchlike's BroadcastError,
a RuntimeError that adds both shapes to PyTorch's words
(docs/elementwise.md), so it is compared by class and by PyTorch's part;
what draws random numbers (samplers, nn.init with a generator) only by
what does not depend on the stream.  Left out: factories called without a
size (torchlike's ones()/zeros()/empty() make a 0-d tensor as NumPy's do,
tests/test_create_args.py's deliberate differences), and the @ operator
of two dtypes, which promotes as NumPy's does (docs/numpy.md).

The programs live in scripts/golden_training_programs11.py, taking the
library as T; PyTorch's answers to them are in
tests/golden/training_programs11.json.  Each runs here on torchlike and its
described result is compared with PyTorch's: strings, integers, shapes and
messages exactly, floats within oracle.FLOAT32_PROGRAMS (PyTorch's BLAS,
convolutions and vectorised exp/tanh/log round in another order, and a few
optimizer steps carry that along), as in rounds four to ten."""
from oracle import program_test

test_program_matches_pytorch = program_test("training_programs11")
