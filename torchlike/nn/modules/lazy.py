"""LazyModuleMixin: modules whose parameter shapes come from the first input.

Until the first call their parameters are UninitializedParameters; a forward
pre-hook calls ``initialize_parameters(input)``, then the module turns into
its ``cls_to_become`` (LazyLinear becomes Linear)."""
from ..parameter import is_lazy


class LazyModuleMixin:
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(
            LazyModuleMixin._infer_parameters)

    def has_uninitialized_params(self):
        params = self._parameters.values()
        buffers = self._buffers.values()
        return any(is_lazy(p) for p in list(params) + list(buffers))

    def _infer_parameters(self, args):
        self.initialize_parameters(*args)
        if self.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        self._initialize_hook.remove()
        del self._initialize_hook
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for "
                                  f"{type(self).__name__}")
