"""torchlike.cuda.amp: the deprecated ``torch.cuda.amp`` spellings of
autocast and GradScaler. Without a GPU both warn and disable themselves,
as PyTorch on a CPU-only build."""
import torchlike
from ..amp._legacy import legacy_classes

__all__ = ["autocast", "GradScaler"]

autocast, GradScaler = legacy_classes("cuda", torchlike.float16)
