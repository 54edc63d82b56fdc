"""Cases run by 2 ranks under PyTorch (scripts/golden_distributed.py records
tests/golden/distributed.json) and under torchlike (tests/test_distributed.py
compares).  Every error case raises on both ranks before any message is
sent, so the ranks stay in step.  ``lib`` is torch or torchlike."""
import datetime


def _run(fn):
    try:
        out = fn()
    except Exception as e:
        return [type(e).__name__, str(e).replace("torchlike.", "torch.")]
    return ["OK", out]


def collective_cases(lib, dist, rank, ws):
    """{name: [exception type, message] or ["OK", value]} on this rank."""
    T = lib.tensor
    R = dist.ReduceOp

    def reduce_with(t, op):
        dist.all_reduce(t, op=op)
        return t.tolist()

    def out_list(n, shape, dtype=None):
        return [lib.zeros(shape, dtype=dtype or lib.float32) for _ in range(n)]

    cases = {
        "avg_float": lambda: reduce_with(T([1.0, 2.0]) * (rank + 1), R.AVG),
        "avg_double_3": lambda: reduce_with(T([1.0, 2.0, 4.0], dtype=lib.float64) * (rank + 2),
                                            R.AVG),
        "avg_int": lambda: reduce_with(T([1, 2]), R.AVG),
        "avg_bool": lambda: reduce_with(T([True, False]), R.AVG),
        "bool_sum": lambda: reduce_with(T([True, False, False]) if rank == 0
                                        else T([False, False, True]), R.SUM),
        "bool_product": lambda: reduce_with(T([True, True, False]) if rank == 0
                                            else T([False, True, False]), R.PRODUCT),
        "bool_max": lambda: reduce_with(T([True, False, False]) if rank == 0
                                        else T([False, False, True]), R.MAX),
        "bxor_int": lambda: reduce_with(T([5, 3]) + rank, R.BXOR),
        "band_float": lambda: reduce_with(T([1.0]), R.BAND),
        "bor_double": lambda: reduce_with(T([1.0], dtype=lib.float64), R.BOR),
        "complex_max": lambda: reduce_with(T([1 + 1j]), R.MAX),
        "complex_product": lambda: reduce_with(T([1 + 1j]), R.PRODUCT),
        "complex_sum": lambda: [str(v) for v in (lambda t: (dist.all_reduce(t), t)[1])(
            T([1 + 2j]) * (rank + 1)).tolist()],
        "not_a_tensor": lambda: dist.all_reduce([1, 2]),
        "ag_size": lambda: dist.all_gather(out_list(ws, 3), lib.ones(2)),
        "ag_len": lambda: dist.all_gather(out_list(ws + 1, 2), lib.ones(2)),
        "ag_dtype": lambda: dist.all_gather(out_list(ws, 2, lib.float64), lib.ones(2)),
        "agit_size": lambda: dist.all_gather_into_tensor(lib.zeros(3 * ws), lib.ones(2)),
        "bcast_root": lambda: dist.broadcast(lib.zeros(2), src=ws),
        "send_self": lambda: dist.send(lib.zeros(2), dst=rank),
        "a2a_split": lambda: dist.all_to_all_single(lib.zeros(4), lib.zeros(4), [1, 3], [2, 1]),
        "scatter_lists": lambda: dist.scatter(lib.zeros(2), [lib.ones(2)] * ws if rank == 1
                                              else None, src=0),
        "gather_lists": lambda: dist.gather(lib.ones(2), [lib.zeros(2)] * ws if rank == 1
                                            else None, dst=0),
        "p2pop_bad": lambda: dist.P2POp(dist.all_reduce, lib.zeros(1), 1 - rank),
        "scatter_obj_out": lambda: dist.scatter_object_list([], [1] * ws, src=0),
    }
    return {name: _run(fn) for name, fn in cases.items()}


def api_cases(lib, dist):
    """Single-process facts: names, errors before init, store semantics."""
    out = {}
    out["reduce_ops"] = {n: [str(getattr(dist.ReduceOp, n)), repr(getattr(dist.ReduceOp, n)),
                             int(getattr(dist.ReduceOp, n))]
                         for n in ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR",
                                   "PREMUL_SUM"]}
    out["backends"] = [str(dist.Backend(n)) for n in ["GLOO", "gloo", "NCCL", "Mpi"]]
    out["backend_consts"] = [dist.Backend.GLOO, dist.Backend.NCCL, dist.Backend.UNDEFINED]
    out["before_init"] = {
        "get_rank": _run(lambda: dist.get_rank()),
        "get_world_size": _run(lambda: dist.get_world_size()),
        "all_reduce": _run(lambda: dist.all_reduce(lib.zeros(2))),
        "barrier": _run(lambda: dist.barrier()),
        "new_group": _run(lambda: dist.new_group([0])),
        "destroy": _run(lambda: dist.destroy_process_group()),
    }
    out["is_initialized"] = dist.is_initialized()
    out["world_member"] = [dist.GroupMember.WORLD is None, dist.GroupMember.NON_GROUP_MEMBER]
    out["store_given_no_rank"] = _run(lambda: dist.init_process_group(
        "gloo", store=dist.HashStore(), world_size=1))
    out["store_and_url"] = _run(lambda: dist.init_process_group(
        "gloo", store=dist.HashStore(), init_method="env://", world_size=1, rank=0))
    s = dist.HashStore()
    steps = []
    steps.append(_run(lambda: s.set("a", "1")))
    steps.append(_run(lambda: s.get("a")))
    steps.append(_run(lambda: s.add("c", 3)))
    steps.append(_run(lambda: s.add("c", 2)))
    steps.append(_run(lambda: s.get("c")))
    steps.append(_run(lambda: s.num_keys()))
    steps.append(_run(lambda: s.compare_set("a", "1", "2")))
    steps.append(_run(lambda: s.compare_set("a", "x", "3")))
    steps.append(_run(lambda: s.get("a")))
    steps.append(_run(lambda: s.compare_set("zz", "", "new")))
    steps.append(_run(lambda: s.compare_set("yy", "q", "new2")))
    steps.append(_run(lambda: s.check(["zz", "a"])))
    steps.append(_run(lambda: s.check(["yy"])))
    steps.append(_run(lambda: s.delete_key("a")))
    steps.append(_run(lambda: s.delete_key("a")))
    steps.append(_run(lambda: s.num_keys()))
    steps.append(_run(lambda: s.set("b", b"\x00\xff")))
    steps.append(_run(lambda: s.get("b")))
    s.set_timeout(datetime.timedelta(seconds=0.05))
    steps.append(_run(lambda: s.get("missing")))
    steps.append(_run(lambda: s.wait(["missing"])))
    steps.append(_run(lambda: s.wait(["missing"], datetime.timedelta(seconds=0.05))))
    p = dist.PrefixStore("pre", s)
    steps.append(_run(lambda: p.set("k", "v")))
    steps.append(_run(lambda: s.get("pre/k")))
    steps.append(_run(lambda: p.add("n", 4)))
    steps.append(_run(lambda: p.num_keys()))
    steps.append(_run(lambda: p.check(["k"])))
    out["store_steps"] = [[k, list(v) if isinstance(v, bytes) else v] for k, v in
                          ((st[0], st[1]) for st in steps)]
    out["store_error_types"] = [c.__name__ for c in type.mro(dist.DistStoreError)
                                if c.__name__ in ("DistStoreError", "DistError", "RuntimeError")]
    return out
