"""A short tour of torchlike: tensors, the NumPy round trip, a reduction."""
import numpy as np

import torchlike as torch

x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
print("x =", x)
print("exp(x[:, ::2]) =", torch.exp(x[:, ::2]))

a = np.linspace(0, 1, 5)
t = torch.from_numpy(a)          # shares memory with the ndarray
t.mul_(10)
print("NumPy sees the in-place write:", a)

print("x + x.T broadcast:", (x[:1] + x.T[:, :1]).shape)
print("cuda available:", torch.cuda.is_available())
