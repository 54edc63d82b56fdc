"""GradScaler: dynamic loss scaling for mixed-precision training, with
PyTorch's semantics (torch.amp.GradScaler)."""
import warnings
from collections import abc, defaultdict
from enum import Enum

import torchlike

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Multiplies the loss by a scale factor so that small gradients survive
    a lower-precision backward pass, then divides the gradients back.

    ``step`` skips the optimizer step when any gradient is inf or NaN;
    ``update`` then multiplies the scale by ``backoff_factor``; after
    ``growth_interval`` consecutive clean steps it multiplies it by
    ``growth_factor``. With ``enabled=False`` every method is a pass-through."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = str(device)
        self._enabled = enabled
        if self._device == "cuda" and enabled and not torchlike.cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")   # PyTorch's type
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    # -- scale --------------------------------------------------------------------------------

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        assert self._scale is not None, f"Attempted {funcname} but _scale is None.  {fix}"
        assert self._growth_tracker is not None, f"Attempted {funcname} but _growth_tracker is None.  {fix}"
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, device):
        self._scale = torchlike.full((), self._init_scale, dtype=torchlike.float32, device=device)
        self._growth_tracker = torchlike.full((), self._init_growth_tracker, dtype=torchlike.int32,
                                              device=device)

    def scale(self, outputs):
        """``outputs`` (a tensor or nested iterables of tensors) times the
        current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, torchlike.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device)

        def apply_scale(val):
            if isinstance(val, torchlike.Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                return val * self._scale.to(device=val.device)
            if isinstance(val, abc.Iterable):
                iterable = map(apply_scale, val)
                if isinstance(val, (list, tuple)):
                    return type(val)(iterable)
                return iterable
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply_scale(outputs)

    # -- unscale ------------------------------------------------------------------------------

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        """Multiplies every gradient by ``inv_scale`` in place and returns, per
        device, a float tensor that is 1 where any gradient was not finite."""
        per_device = {}
        with torchlike.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype == torchlike.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    key = str(grad.device)
                    bad = (~torchlike.isfinite(grad)).any().to(torchlike.float32)
                    per_device[key] = bad if key not in per_device else torchlike.maximum(per_device[key], bad)
                    grad.mul_(inv_scale.to(device=grad.device, dtype=grad.dtype)
                              if grad.dtype != torchlike.float64 else inv_scale.double())
        if not per_device:
            per_device[str(found_inf.device)] = found_inf
        return per_device

    def unscale_(self, optimizer):
        """Divides ``optimizer``'s gradients by the scale (in place), e.g. to
        clip them; ``step`` then does not unscale again."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # the reciprocal in double, then float32, as PyTorch
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = torchlike.full((), 0.0, dtype=torchlike.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    # -- step and update ----------------------------------------------------------------------

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)`` unless a gradient was inf/NaN
        (unscaling first if ``unscale_`` was not called). Returns the
        optimizer's return value, or None when the step was skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        assert len(state["found_inf_per_device"]) > 0, "No inf checks were recorded for this optimizer."
        retval = None
        if not sum(float(v.item()) for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Adjusts the scale for the next iteration: backoff after a skipped
        step, growth after ``growth_interval`` clean ones; or sets
        ``new_scale`` (a float or a one-element float32 tensor)."""
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                assert isinstance(new_scale, torchlike.Tensor), reason
                assert new_scale.numel() == 1, reason
                assert new_scale.requires_grad is False, reason
                assert new_scale.dtype == torchlike.float32, reason
                self._scale.copy_(new_scale.reshape(()))
        else:
            found_infs = [found_inf for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            assert len(found_infs) > 0, "No inf checks were recorded prior to update."
            found_inf = sum(float(f.item()) for f in found_infs)
            scale = float(self._scale.item())
            tracker = int(self._growth_tracker.item())
            if found_inf:
                scale *= self._backoff_factor
                tracker = 0
            else:
                tracker += 1
                if tracker == self._growth_interval:
                    grown = torchlike.tensor(scale * self._growth_factor, dtype=torchlike.float32)
                    if bool(torchlike.isfinite(grown)):
                        scale = float(grown)
                    tracker = 0
            self._scale.fill_(scale)
            self._growth_tracker.fill_(tracker)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    # -- accessors ----------------------------------------------------------------------------

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker.item())

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """The scale and its schedule; empty when disabled."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) > 0:
                raise RuntimeError("A GradScaler instance may only be pickled at the beginning of an "
                                   "iteration, or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
            state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self._enabled:
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)
