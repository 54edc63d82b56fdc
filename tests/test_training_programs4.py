"""A fourth round of ordinary PyTorch training programs run on torchlike: a
DCGAN step, a graph network with scatter/index_add message passing,
REINFORCE and PPO with torch.distributions, a GPT-style LM, contrastive
losses, custom autograd Functions, torch.func per-sample gradients, a
physics-informed net with LBFGS, CTC speech, a U-Net, a recommender with
sparse gradients, a mixture density network, a checkpoint round trip,
distillation on mixup batches, a bfloat16-autocast ResNet block, RealNVP, a
TCN, a spatial transformer, half-precision batch norm and mse_loss, a
whole bfloat16 model, and schedulers built to resume a run.

The programs live in scripts/golden_training_programs4.py, taking the
library as T; PyTorch's answers to them are in
tests/golden/training_programs4.json.  Each runs here on torchlike and its
described result is compared with PyTorch's, within the stated tolerance."""
from oracle import program_test

# Measured, the float32 programs agree to 1.2e-5 relative or 1e-6 absolute
# (Adam divides by sqrt(v), so a gradient's last bits move a step by about as
# many relative ulp); resnet_autocast's bfloat16 results round the same
# float32 sums, so they agree as closely.  The float64 PINN agrees to 4e-15
# through its second derivatives and LBFGS line search.  Half-precision batch
# norm and mse_loss round as PyTorch's CPU kernels do, and the half models'
# other ops (linear, relu, the optimizers' steps) too: bit for bit.
test_program_matches_pytorch = program_test("training_programs4", {
    "pinn(T)": (1e-12, 1e-14),
    "half_batch_norm(T)": None,   # the same float and half roundings: bit for bit
    "half_mse_loss(T)": None,
    "bf16_model(T)": None,
    "resumed_schedulers(T)": None,   # the same float operations: bit for bit
})
