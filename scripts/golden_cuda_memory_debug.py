"""Record PyTorch's answers for torch.cuda's memory-debugging surface on a
machine without a GPU (signatures, the empty snapshot, NVTX's no-profiler
answers, what raises), for tests/test_cuda_memory_debug.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_cuda_memory_debug.py
writes tests/golden/cuda_memory_debug.json: [call, outcome] pairs, the call
a Python expression over T (the library) and the helpers inputs() gives."""
import inspect

from golden_calls import describe_plain as describe, record

FUNCTIONS = ["memory._record_memory_history", "memory._snapshot", "memory._dump_snapshot",
             "memory_snapshot", "caching_allocator_alloc", "caching_allocator_delete",
             "host_memory_stats", "list_gpu_processes", "set_sync_debug_mode",
             "get_sync_debug_mode", "ipc_collect", "nvtx.range_push", "nvtx.range_pop",
             "nvtx.range_start", "nvtx.range_end", "nvtx.mark", "nvtx.range", "MemPool",
             "use_mem_pool", "MemPool.snapshot", "MemPool.use_count"]

CALLS = (
    [f"params(T.cuda.{f})" for f in FUNCTIONS]
    + ["T.cuda.memory_snapshot()", "sorted(T.cuda.memory._snapshot())",
       "[T.cuda.memory._snapshot()[k] for k in ('segments', 'device_traces', "
       "'external_annotations', 'host_segments', 'host_traces')]",
       "T.cuda.host_memory_stats()", "T.cuda.list_gpu_processes()",
       "T.cuda.nvtx.range_push('a')", "T.cuda.nvtx.range_pop()", "T.cuda.nvtx.range_start('a')",
       "T.cuda.nvtx.range_end(0)", "T.cuda.nvtx.mark('m')", "in_range(T, 'step {}', 3)",
       "T.cuda.caching_allocator_delete(0)", "T.cuda.caching_allocator_alloc(10)",
       "T.cuda.memory._record_memory_history()", "T.cuda.memory._record_memory_history(None)",
       "T.cuda.ipc_collect()", "T.cuda.get_sync_debug_mode()", "T.cuda.set_sync_debug_mode(1)", "T.cuda.MemPool()",
       "T.cuda.memory_snapshot((0, 1))"]
)


def params(f):
    """A function's parameters as [name, repr(default) or '-'] (kind included)."""
    return [[p.name, str(p.kind), "-" if p.default is p.empty else repr(p.default)]
            for p in inspect.signature(f).parameters.values()]


def in_range(T, msg, *args):
    with T.cuda.nvtx.range(msg, *args) as r:
        return r


def inputs(T):
    return {"T": T, "params": params, "in_range": in_range}


def main():
    record(CALLS, inputs, describe, "cuda_memory_debug", messages=True)


if __name__ == "__main__":
    main()
