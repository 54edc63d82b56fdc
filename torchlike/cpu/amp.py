"""torchlike.cpu.amp: the deprecated ``torch.cpu.amp`` spellings."""
import torchlike
from ..amp._legacy import legacy_classes

__all__ = ["autocast", "GradScaler"]

autocast, GradScaler = legacy_classes("cpu", torchlike.bfloat16)
