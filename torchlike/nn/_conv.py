"""Argument helpers shared by the sliding-window functions (convolution in
_convolution.py, pooling and resampling in _pool.py) and their modules."""
import numbers


def _ntuple(value, n, name="argument"):
    if isinstance(value, numbers.Integral):
        return (int(value),) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {value}")
    return value


def _batched(input, n, name):
    """Add a batch dim to an unbatched (C, *spatial) input; say whether it was."""
    if input.ndim == n + 1:
        return input.unsqueeze(0), True
    if input.ndim != n + 2:
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    return input, False
