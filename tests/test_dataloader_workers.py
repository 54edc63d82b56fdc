"""DataLoader with worker processes: same batches as in-process loading,
worker info and seeds, IterableDataset sharding, and every fault (a worker
that raises, dies or stalls) reported promptly with nothing left behind."""
import gc
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import torchlike as tl
from torchlike.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info


class Squares(Dataset):
    def __init__(self, n=23, fail_at=None, kill_at=None, sleep_at=None):
        self.n, self.fail_at, self.kill_at, self.sleep_at = n, fail_at, kill_at, sleep_at

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise ValueError(f"sample {i} is broken")
        if i == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if i == self.sleep_at:
            time.sleep(5)
        return {"x": tl.full((2, 3), float(i)) * i, "i": i, "t": tl.tensor(i, dtype=tl.int16)}


class Seeds(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return [info.id, info.num_workers, info.seed, tl.initial_seed(),
                int(np.random.randint(0, 2**31)), info.dataset is not None]


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


def _shm_names():
    return {n for n in os.listdir("/dev/shm") if n.startswith("torchlike_")}


def _fd_count():
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def no_leaks():
    gc.collect()
    fds, names = _fd_count(), _shm_names()
    yield
    gc.collect()
    assert _shm_names() == names
    assert _fd_count() <= fds


def _batches(loader):
    return [(b["x"].numpy().copy(), list(b["i"].tolist()), b["t"].numpy().copy())
            for b in loader]


def test_zero_one_two_workers_give_identical_batches(no_leaks):
    ds = Squares()
    runs = []
    for workers in (0, 1, 2):
        loader = DataLoader(ds, batch_size=4, shuffle=True, num_workers=workers,
                            generator=tl.Generator().manual_seed(7))
        runs.append(_batches(loader))
    for other in runs[1:]:
        assert len(other) == len(runs[0])
        for (x0, i0, t0), (x1, i1, t1) in zip(runs[0], other):
            np.testing.assert_array_equal(x0, x1)
            assert i0 == i1
            np.testing.assert_array_equal(t0, t1)


def test_batches_arrive_in_shared_memory():
    batch = next(iter(DataLoader(Squares(), batch_size=4, num_workers=1)))
    assert batch["x"].is_shared() and batch["t"].is_shared()


def test_spawn_context_and_out_of_order():
    loader = DataLoader(Squares(9), batch_size=2, num_workers=2, multiprocessing_context="spawn",
                        in_order=False)
    seen = sorted(i for b in loader for i in b["i"].tolist())
    assert seen == list(range(9))


def test_worker_info_and_seeds():
    base = []

    def init_fn(worker_id):
        assert get_worker_info().id == worker_id

    loader = DataLoader(Seeds(), batch_size=None, num_workers=2, worker_init_fn=init_fn,
                        generator=tl.Generator().manual_seed(3))
    rows = [r for r in loader]
    ids = sorted({r[0] for r in rows})
    assert ids == [0, 1] and all(r[1] == 2 for r in rows) and all(r[5] for r in rows)
    seeds = {r[0]: r[2] for r in rows}
    assert seeds[1] == seeds[0] + 1  # base seed + worker id, as PyTorch
    assert all(r[3] == r[2] for r in rows)  # initial_seed() inside the worker
    numpy_draws = {r[0]: r[4] for r in rows if r[0] in (0, 1)}
    assert numpy_draws[0] != numpy_draws[1]
    assert get_worker_info() is None and not base


def test_iterable_dataset_sharded_by_worker_info():
    loader = DataLoader(Stream(17), batch_size=3, num_workers=2)
    items = sorted(i for b in loader for i in b.tolist())
    assert items == list(range(17))


def test_persistent_workers_serve_every_epoch():
    loader = DataLoader(Squares(10), batch_size=3, num_workers=2, persistent_workers=True)
    first = _batches(loader)
    workers = [w.pid for w in loader._iterator._workers]
    it = iter(loader)
    next(it)  # an epoch abandoned half way
    second = _batches(loader)
    assert [b[1] for b in first] == [b[1] for b in second]
    assert [w.pid for w in loader._iterator._workers] == workers
    loader._iterator._shutdown_workers()


def test_worker_exception_keeps_type_and_traceback(no_leaks):
    loader = DataLoader(Squares(fail_at=5), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as info:
        list(loader)
    msg = str(info.value)
    assert "Caught ValueError in DataLoader worker process" in msg
    assert "sample 5 is broken" in msg and "__getitem__" in msg
    # A new pass works (and fails at the same place).
    it = iter(DataLoader(Squares(fail_at=5), batch_size=2, num_workers=2))
    assert next(it)["i"].tolist() == [0, 1]
    del it


def test_killed_worker_is_reported_within_seconds(no_leaks):
    loader = DataLoader(Squares(kill_at=3), batch_size=2, num_workers=2)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"worker id \d.*killed by signal.*SIGKILL"):
        list(loader)
    assert time.monotonic() - start < 10
    # Iterating again after the error works.
    assert len(list(DataLoader(Squares(8), batch_size=2, num_workers=2))) == 4


def test_timeout_is_honoured(no_leaks):
    loader = DataLoader(Squares(sleep_at=0), batch_size=2, num_workers=1, timeout=0.5)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="timed out after 0.5 seconds"):
        next(iter(loader))
    assert time.monotonic() - start < 4


def test_interpreter_exit_with_live_workers_does_not_hang():
    code = ("import torchlike as tl\n"
            "from torchlike.utils.data import DataLoader, TensorDataset\n"
            "it = iter(DataLoader(TensorDataset(tl.arange(100.)), batch_size=2, num_workers=2))\n"
            "print(next(it)[0].tolist())\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=30, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[0.0, 1.0]"


def test_pin_memory_without_cuda_warns():
    with pytest.warns(UserWarning, match="pin_memory"):
        DataLoader(Squares(), pin_memory=True)


def test_worker_options_are_checked():
    with pytest.raises(ValueError, match="prefetch_factor"):
        DataLoader(Squares(), prefetch_factor=2)
    with pytest.raises(ValueError, match="persistent_workers"):
        DataLoader(Squares(), persistent_workers=True)
