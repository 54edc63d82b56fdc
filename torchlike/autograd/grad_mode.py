"""Grad modes: whether ops are recorded on the tape.

Each is a context manager and a decorator, as in PyTorch. The mode is per
thread and lives in the C core (``_C.is_grad_enabled``)."""
import functools
import inspect

from .. import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled"]

_inference = False  # whether an innermost inference_mode region has mode=True
# Inside inference_mode nothing is recorded (the core's flag stays off), yet
# enable_grad / set_grad_enabled(True) there turn the grad mode that
# is_grad_enabled reports on, as in PyTorch: that reported mode is kept here.
_reported = False


def is_inference_mode_enabled():
    return _inference


def is_grad_enabled():
    """Whether grad mode is on (inside inference_mode: as last set there,
    though nothing is recorded)."""
    return _reported if _inference else _C.is_grad_enabled()


def _set_grad_mode(mode):
    global _reported
    if _inference:
        _reported = bool(mode)
    else:
        _C._set_grad_enabled(mode)


class _GradModeContext:
    """Base: set a mode on enter, restore the previous one on exit; used as a
    decorator, it wraps the function (or generator) in the context."""

    def __call__(self, func):
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def generator(*args, **kwargs):
                gen = func(*args, **kwargs)
                # Each step of the wrapped generator runs in the mode; the caller's
                # code between steps runs in its own.  StopIteration must end this
                # generator with a return (raised inside one it is an error).
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as exc:
                            with self.clone():
                                response = gen.throw(exc)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as stop:
                    return stop.value
            return generator

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()

    def __enter__(self):
        self.prev = is_grad_enabled()
        _set_grad_mode(self._mode())

    def __exit__(self, exc_type, exc_value, traceback):
        _set_grad_mode(self.prev)


class no_grad(_GradModeContext):
    """Disable recording: results of ops have ``requires_grad=False``.

    Example::

        >>> with torchlike.no_grad():
        ...     y = x * 2      # y.requires_grad is False
    """

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)  # used as @no_grad, without parentheses

    def _mode(self):
        return False


class enable_grad(_GradModeContext):
    """Enable recording inside a ``no_grad`` region."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)  # used as @enable_grad, without parentheses

    def _mode(self):
        return True


class set_grad_enabled(_GradModeContext):
    """Set recording on or off; takes effect at once, and as a context
    manager restores the previous mode on exit."""

    def __init__(self, mode):
        self.prev = is_grad_enabled()
        self.mode = bool(mode)
        _set_grad_mode(self.mode)

    def _mode(self):
        return self.mode

    def __call__(self, func):
        # as a decorator (@set_grad_enabled(False)) the mode set by the
        # constructor is undone at once: it holds only inside each call
        _set_grad_mode(self.prev)
        return super().__call__(func)

    def __enter__(self):
        _set_grad_mode(self.mode)

    def __exit__(self, exc_type, exc_value, traceback):
        _set_grad_mode(self.prev)

    def __repr__(self):
        return f"{type(self).__module__}.{type(self).__qualname__}(mode={self.mode})"

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_GradModeContext):
    """Like ``no_grad`` (nothing is recorded), and tensors made inside are
    inference tensors.  ``mode=False`` turns both off inside an enclosing
    region: recording is on there (even under ``no_grad``), as in PyTorch."""

    def __new__(cls, mode=True):
        if mode is None or isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # used as @inference_mode, without parentheses

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def _mode(self):
        return not self.mode

    def __enter__(self):
        global _inference, _reported
        self.prev = _C.is_grad_enabled()
        self.prev_flag, self.prev_reported = _inference, _reported
        # tensors made inside are inference tensors (is_inference); inside
        # inference_mode(False) they are ordinary again
        self.prev_inference = _C._set_inference_mode(self.mode)
        _inference = _reported = False
        _C._set_grad_enabled(not self.mode)
        _inference = self.mode

    def __exit__(self, exc_type, exc_value, traceback):
        global _inference, _reported
        _inference, _reported = self.prev_flag, self.prev_reported
        _C._set_inference_mode(self.prev_inference)
        _C._set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


# ---- switches of PyTorch's threaded engine and view tracking ----------------------------
# The engine here runs a backward on the calling thread, node after node, and
# records every view by its own op (what PyTorch's view replay reconstructs):
# neither switch changes a result; both are kept so code that sets and reads
# them behaves as with PyTorch.
_switches = {"multithreading": True, "view_replay": False}


def _bool_switch(func, value):
    if not isinstance(value, bool):
        raise TypeError(f"{func}(): argument 'enabled' (position 1) must be bool, not "
                        f"{type(value).__name__}")
    return value


class _SwitchContext(_GradModeContext):
    """Set a switch now; as a context manager (or decorator) restore it at exit."""
    _key = _func = None

    def __init__(self, mode):
        self.prev = _switches[self._key]
        self.mode = mode
        _switches[self._key] = _bool_switch(self._func, mode)

    def __enter__(self):
        _switches[self._key] = self.mode

    def __exit__(self, exc_type, exc_value, traceback):
        _switches[self._key] = self.prev

    def clone(self):
        return self.__class__(self.mode)


class set_multithreading_enabled(_SwitchContext):
    """PyTorch's switch for running backward on per-device threads.  The
    engine here always runs it on the caller's thread, so the switch is only
    kept (``_is_multithreading_enabled`` reads it back)."""
    _key, _func = "multithreading", "set_multithreading_enabled"


class _force_original_view_tracking(_SwitchContext):
    """Set view replay on or off (``is_view_replay_enabled``); the tape here
    always records a view by the op that made it, so nothing else changes."""
    _key, _func = "view_replay", "set_view_replay_enabled"


def is_multithreading_enabled():
    """Whether set_multithreading_enabled(True) is in force (the default)."""
    return _switches["multithreading"]


_is_multithreading_enabled = is_multithreading_enabled


def is_view_replay_enabled():
    """Whether _force_original_view_tracking(True) is in force."""
    return _switches["view_replay"]
