"""A seventh round of ordinary PyTorch training programs run on torchlike,
88 of them, mostly about the machinery around a model.

Optimizers: unusual parameters (integer, complex, non-leaf, empty, a
set, sparse gradients, bfloat16/float16), Adagrad's accumulator resumed,
LBFGS's strong-Wolfe state, named parameters in a state dict, state dicts
carried across optimizers and groups added later, the rarer Adam switches,
SAM and Lookahead wrappers, gradient centralisation by a step hook,
optimizer-in-backward, the Muon recipe, the functional API
(torch.optim.functional and each optimizer's module), every optimizer's
state dict (also through weights_only checkpoints) and its refusal of a
bad hyperparameter.  Schedulers: warmup then cosine resumed, chained and
sequential ones, ReduceLROnPlateau's cooldown and its place in chains, a
three-phase OneCycleLR, CyclicLR's exp_range, LambdaLR's state, warm
restarts by fractional epochs, a tensor lr, a group added under a
scheduler, SWA's schedule switch, an LR range test, early stopping, every
scheduler's state dict and refusals.  Models: gradient clipping's
variants (with float32 and float64 layers), forward pre-hooks with kwargs,
full backward hooks, state-dict hooks, feature-matching hooks,
parametrizations trained, deep-copied and refused, the orthogonal maps,
DP-SGD's per-sample gradients, a vmapped ensemble, batched Jacobians,
input-gradient penalties, GradScaler's skipped steps, custom_fwd under
autocast, activation checkpointing, containers edited, a model's dtype
moved under its optimizer, freezing, fine-tuning surgery, iterative
pruning, SWA with BatchNorm, a checkpoint resumed; and a packed GRU and a
packed LSTM with proj_size, EmbeddingBag's offsets, CTC, a Transformer
seq2seq, an attention decoder, a gated convolutional LM, a tied masked LM,
a VQ-VAE, CLIP's loss, a PPO update, weighted soft-target losses, anomaly
detection.  Data: samplers, collate functions, iterable and stacked
datasets, splits, worker options.  And the refusals a script meets in the
layers, losses, modules, autocast, pruning, torch.func, checkpointing and
torch.nn.utils.rnn, with state-dict key order and version metadata.

What they found, fixed with them:
- optimizers (tests/test_optim_base.py): integer parameters were refused,
  which PyTorch takes and never steps; load_state_dict copied every state
  tensor, where PyTorch takes those needing no cast as they are (a state
  dict of a live optimizer loaded into another leaves the two sharing
  their moments), and filled a loaded group's missing hyperparameters,
  where PyTorch fills only the switches (SGD given Adam's state dict has
  no momentum, and its step raises KeyError); LBFGS kept its scalars as
  Python floats (no state["al"], H_diag a float) and gave its strong-Wolfe
  search 25 evaluations, where PyTorch gives it what max_eval leaves;
  LBFGS refused an unknown line_search_fn when built, PyTorch's step
  refuses it; fused=True with foreach or differentiable was accepted;
  sparse gradients failed inside Adam's (and the others') step, where
  PyTorch refuses them by name; the state of a parameter whose .data got
  another shape raised the C kernel's ValueError, PyTorch's step its
  broadcasting RuntimeError;
- the functional optimizer API (torch.optim.sgd.sgd, adam.adam,
  adamw.adamw ..., torch.optim.functional and _functional) did not exist
  (tests/test_optim_functional.py);
- AveragedModel's default mean over an integer buffer (use_buffers with
  BatchNorm) raised; SWALR's state dict held its annealing function, which
  a weights_only checkpoint cannot load, and its refusals were worded as
  older PyTorch words them (tests/test_optim_swa.py);
- in PyTorch 2.15's words (tests/test_grad_dtype.py, test_amp.py,
  test_nn_module.py): nn.Parameter's and requires_grad_()'s refusal of an
  integer tensor, a .grad of the wrong size, GradScaler's bad factors
  (AssertionError), add_module of a tensor ("torch.FloatTensor is not a
  Module subclass");
- a module took both the deprecated and the full backward hooks, which
  PyTorch refuses (tests/test_nn_module.py); cross_entropy read an integer
  target shaped like its input as class indices, where PyTorch refuses it
  as probabilities (tests/test_nn_loss.py); adaptive pooling with a sized
  output_size missed PyTorch's check of the input's rank
  (tests/test_nn_pool.py); the DataLoader took a multiprocessing_context
  without workers or with an unknown start method (tests/test_data.py);
  nn.Buffer(t) was an instance of a Buffer subclass, where PyTorch's is a
  plain Tensor marked as a buffer (found by a check beside the programs;
  tests/test_nn_module.py).

By design, and so left out or spelled so it does not show: Adam with
capturable=True steps on the CPU here, where PyTorch refuses (docs/optim.md);
pack_padded_sequence with a length past the input is refused here, where
PyTorch's CPU kernel reads past the input (docs/nn.md); messages to which
torchlike adds the dtype or the counts in parentheses are compared up to
them, and autocast's refusal of an unknown device type by its type only
(PyTorch's message lists its own device types); a bad padding string is
left out (PyTorch's message prints a set, in an order that changes from
process to process).  Left out as PyTorch's own artefacts: SGD in
bfloat16/float16 (PyTorch's CPU add with alpha rounds the tail of its
vectorised loop otherwise than the body, depending on the machine's
vector width) and the foreach paths of RMSprop and Adagrad there (they
differ from PyTorch's own per-parameter paths).  The LBFGS program runs
in float64: in float32 its second step's line search compares losses
equal up to rounding, and the summation order then picks the branch.

The programs live in scripts/golden_training_programs7.py, taking the
library as T; PyTorch's answers to them are in
tests/golden/training_programs7.json.  Each runs here on torchlike and its
described result is compared with PyTorch's, within the stated tolerance."""
from oracle import program_test

test_program_matches_pytorch = program_test("training_programs7")
