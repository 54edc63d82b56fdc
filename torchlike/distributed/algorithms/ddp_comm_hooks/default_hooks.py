"""The gradient bucket a DDP communication hook receives, and PyTorch's
default hooks.

A hook is ``hook(state, bucket) -> Future`` whose value is a tensor shaped
like ``bucket.buffer()`` (the bucket's gradients flattened, in
``bucket.parameters()`` order); DDP writes that value back into the
gradients.  With a hook DDP does not average by itself: the hook decides
(``allreduce_hook`` divides by the group size, as DDP's built-in path)."""
from ... import distributed_c10d
from ...collectives import all_reduce

__all__ = ["GradBucket", "allreduce_hook", "fp16_compress_hook", "bf16_compress_hook"]


class GradBucket:
    """One bucket of DDP gradients: ``index()``, ``buffer()`` (flat),
    ``gradients()`` (views of the buffer shaped like the parameters),
    ``parameters()``, ``is_last()``, ``set_buffer(t)``."""

    def __init__(self, index, buffer, params, is_last):
        self._index = index
        self._buffer = buffer
        self._params = params
        self._is_last = is_last

    def index(self):
        return self._index

    def buffer(self):
        return self._buffer

    def set_buffer(self, buffer):
        self._buffer = buffer

    def parameters(self):
        return list(self._params)

    def gradients(self):
        out, offset = [], 0
        for p in self._params:
            n = p.numel()
            out.append(self._buffer[offset:offset + n].view(tuple(p.shape)))
            offset += n
        return out

    def is_last(self):
        return self._is_last


def _group(process_group):
    return distributed_c10d.resolve(process_group)


def allreduce_hook(process_group, bucket):
    """Average the bucket over the group (DDP's own behaviour, as a hook)."""
    pg = _group(process_group)
    buffer = bucket.buffer()
    buffer.div_(pg.size())
    return all_reduce(buffer, group=pg, async_op=True).get_future().then(
        lambda fut: fut.value()[0])


def _compress_hook(dtype, process_group, bucket):
    pg = _group(process_group)
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(pg.size())

    def decompress(fut):
        buffer.copy_(fut.value()[0])
        return buffer
    return all_reduce(compressed, group=pg, async_op=True).get_future().then(decompress)


def fp16_compress_hook(process_group, bucket):
    """Average in float16 (half the bytes on the wire), back to the bucket's dtype."""
    from .... import _C
    return _compress_hook(_C.float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """Average in bfloat16, back to the bucket's dtype."""
    from .... import _C
    return _compress_hook(_C.bfloat16, process_group, bucket)
