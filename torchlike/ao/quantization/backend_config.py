"""torch.ao.quantization.backend_config: which patterns and dtypes a
backend quantizes.  torchlike knows PyTorch's native (x86 / fbgemm) one,
the default of prepare_fx: these functions return it by name, and the FX
passes refuse any other (fx/patterns.py lists what it holds)."""

__all__ = ["BackendConfig", "get_native_backend_config", "get_x86_backend_config",
           "get_fbgemm_backend_config"]


class BackendConfig:
    def __init__(self, name=""):
        self.name = name

    def __repr__(self):
        return f"BackendConfig({self.name!r})"


def get_native_backend_config():
    return BackendConfig("native")


def get_x86_backend_config():
    return BackendConfig("x86")


def get_fbgemm_backend_config():
    return BackendConfig("fbgemm")


def _check_backend_config(config):
    if config is None:
        return
    if not isinstance(config, BackendConfig) or config.name not in ("native", "x86", "fbgemm"):
        raise NotImplementedError(
            f"torchlike's FX quantization runs PyTorch's native / x86 / fbgemm backend "
            f"config only (get_native_backend_config()), got {config!r}")
