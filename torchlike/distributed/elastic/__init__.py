"""torch.distributed.elastic: the part training scripts launched by
torchrun import, the error recording of elastic.multiprocessing.errors."""
