"""torch.distributed.elastic.multiprocessing: see its ``errors`` submodule."""
