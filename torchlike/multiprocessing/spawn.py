"""spawn(): run ``fn(i, *args)`` in ``nprocs`` processes, as
``torch.multiprocessing.spawn``.

Each child reports an exception through its own one-way pipe (the formatted
traceback) before exiting with code 1.  The parent waits on every child's
sentinel; the first failure terminates the others and is raised as
:class:`ProcessRaisedException` (with the child's traceback) or
:class:`ProcessExitedException` (a child that died without reporting, e.g.
killed by a signal)."""
import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessException",
           "ProcessRaisedException", "ProcessExitedException"]


class ProcessException(Exception):
    __slots__ = ["error_index", "pid"]

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A child process raised: the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A child process exited with a non-zero code without raising (killed by a
    signal, os._exit ...)."""
    __slots__ = ["exit_code", "signal_name"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code,
                            self.signal_name)


def _wrap(fn, i, args, error_conn):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent's SIGINT: it reports that itself
    except Exception:
        error_conn.send(traceback.format_exc())
        error_conn.close()
        sys.exit(1)


class ProcessContext:
    """The processes started by :func:`start_processes`; ``join()`` until it
    returns True."""

    def __init__(self, processes, error_conns):
        self.processes = processes
        self.error_conns = error_conns
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None, grace_period=None):
        """Wait for the processes; True when all exited successfully, False
        on timeout with some still running.  The first failure terminates
        the others and raises."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        for process in self.processes:
            process.join(grace_period if grace_period is not None else 5)
            if process.is_alive():
                process.kill()
                process.join()
        process = self.processes[failed]
        conn = self.error_conns[failed]
        original = None
        if conn.poll():
            try:
                original = conn.recv()
            except EOFError:  # it died without reporting
                pass
        if original is not None:
            msg = f"\n\n-- Process {failed} terminated with the following error:\n{original}"
            raise ProcessRaisedException(msg, failed, process.pid)
        code = process.exitcode
        if code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException(f"process {failed} terminated with signal {name}",
                                         failed, process.pid, code, name)
        raise ProcessExitedException(f"process {failed} terminated with exit code {code}",
                                     failed, process.pid, code)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes of ``start_method`` running ``fn(i, *args)``;
    with ``join`` wait for them (raising a child's error), else return the
    :class:`ProcessContext`."""
    ctx = multiprocessing.get_context(start_method)
    processes, error_conns = [], []
    for i in range(nprocs):
        reader, writer = ctx.Pipe(duplex=False)
        process = ctx.Process(target=_wrap, args=(fn, i, args, writer), daemon=daemon)
        process.start()
        writer.close()
        processes.append(process)
        error_conns.append(reader)
    context = ProcessContext(processes, error_conns)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with the ``spawn`` start method by default, as PyTorch."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
