"""The modules of torchlike.utils.benchmark, under PyTorch's import paths
(torch.utils.benchmark.utils.common, .timer, .compare)."""
