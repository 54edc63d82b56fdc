"""A fifth round of ordinary PyTorch training programs run on torchlike: a
ViT, WGAN-GP, MAML, DQN, skip-gram word2vec, a DDPM step, a Glow step, a
neural ODE by RK4, a mixture of experts, batch-hard triplet mining,
pruning, SWA, gradient accumulation with OneCycleLR, the data utilities,
beam search over a TransformerDecoder, the less common losses, a BiLSTM-CRF,
a one-stage detector's loss and NMS, capsule routing, Newton steps by
torch.func, the less common optimizers (and LBFGS with maximize), a
compiled model's checkpoint, decoding with a KV cache (nn.attention.bias),
flex_attention's block masks, a third-party optimizer, gradient bucketing,
a torchrun entry point and compiler settings.

What they found, fixed with them: the named results of torch.linalg and
the other Python-written ops had their own names (torch.linalg.slogdet's
was "slogdet", PyTorch's is torch.return_types.linalg_slogdet), checked by
result_types(T); torch.compile(module) returned the module instead of an
OptimizedModule (no _orig_mod, state-dict keys without its prefix);
LBFGS refused maximize=True; torch.nn.attention.bias did not exist;
BlockMask lacked PyTorch's block metadata, drawing and indexing, and
and_masks/or_masks' functions their names; float(loss) warned under
no_grad (every LBFGS step warned); PyTorch's warnings for a lower-right
CausalBias with more queries than keys and its once-per-process notices
(index_reduce, sparse CSR, an asymmetric padding='same') were missing,
checked by kv_cache(T) and, in a fresh interpreter, scalar_warnings(T);
views of an inference tensor were normal tensors and an evaluation
pass's outputs could be made to require grad outside inference_mode
(inference_tensors(T)); optimizers written elsewhere could not import
PyTorch's helpers from torch.optim.optimizer (custom_optimizer(T)), nor
gradient-bucketing code torch._utils' dense flattening, nor older code
nn.init's _no_grad_* fillers or collate's pattern and message
(private_imports(T)); torch.backends.cuda had no attention switches
(attention_switches(T)); torchrun's @record did not exist
(elastic_record(T)), nor torch._inductor.config (compiler_settings(T)).

PyTorch's refusals of an in-place write to an inference tensor, and of
saving one for backward, outside inference_mode are checked by
tests/test_inference_tensors.py.  By design, and so left out or spelled so
it does not show: flex_attention backpropagates on the CPU here (PyTorch's CPU
kernel refuses), so flex_masks(T) runs forward only; random streams
differ from PyTorch's, so every program draws its data and weights from
NumPy, and data_pipeline(T) compares what random_split and
WeightedRandomSampler draw only as sets; the programs that touch global
state (attention_switches(T), elastic_record(T), compiler_settings(T))
put it back.

The programs live in scripts/golden_training_programs5.py, taking the
library as T; PyTorch's answers to them are in
tests/golden/training_programs5.json.  Each runs here on torchlike and its
described result is compared with PyTorch's, within the stated tolerance."""
from oracle import program_test

test_program_matches_pytorch = program_test("training_programs5", {
    "result_types(T)": None,   # names and reprs: exactly
})
