"""torchlike.autograd.anomaly_mode: anomaly detection for the tape.

While it is on (``detect_anomaly()`` or ``set_detect_anomaly(True)``):

- every graph node keeps the Python stack of the call that made it, in
  ``node.metadata["traceback_"]`` (a list of ``traceback.format_stack``
  lines); a node made while backward runs another (``create_graph=True``)
  keeps that node in ``metadata["parent_"]``;
- when a node fails in backward, a ``UserWarning`` shows the stack of the
  forward call that made it ("Error detected in MulBackward0. Traceback of
  forward call that caused the error: ..."), then one per parent ("Previous
  calculation was induced by ...");
- with ``check_nan`` (the default), a node whose computed gradient holds a
  NaN raises ``RuntimeError: Function 'MulBackward0' returned nan values in
  its 0th output.`` (the index is the input's, as PyTorch counts).

The mode is process-wide, as PyTorch's is.  When it is off, the recorder and
the engine test one flag each (src/grad/anomaly.c)."""
import os
import traceback
import warnings

from .. import _C

__all__ = ["detect_anomaly", "set_detect_anomaly"]

_RECORDER_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "function.py")


def _capture():
    """The stack of the caller (the frame that made a node), without the
    frames of Function.apply's own recorder: PyTorch's apply is not Python."""
    frames = traceback.extract_stack()[:-1]
    while frames and frames[-1].filename == _RECORDER_FILE:
        frames.pop()
    return traceback.StackSummary.from_list(frames).format()


_C._set_anomaly_capture(_capture)


class detect_anomaly:
    """Context manager that turns anomaly detection on for its body (see the
    module's doc); ``check_nan=False`` keeps the stacks but skips the NaN
    check.  Entering it warns that it slows everything down."""

    def __init__(self, check_nan=True):
        self.prev = _C._is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = _C._is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        _C._set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Set anomaly detection on or off now; used as a context manager, the
    previous setting comes back at exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = _C._is_anomaly_enabled()
        self.prev_check_nan = _C._is_anomaly_check_nan_enabled()
        _C._set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)


def is_anomaly_enabled():
    """Whether anomaly detection is on."""
    return _C._is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection checks gradients for NaN (True by default,
    read even while the mode is off, as PyTorch's)."""
    return _C._is_anomaly_check_nan_enabled()
