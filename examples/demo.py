"""A short tour of torchlike: tensors, the NumPy round trip, a fit by autograd."""
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

# Autograd: a least-squares fit whose loss is written with NumPy functions.
rng = np.random.default_rng(0)
inputs = torch.from_numpy(rng.standard_normal((64, 3)))
targets = inputs @ torch.tensor([1.5, -2.0, 0.5], dtype=torch.float64) + 0.1
w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
b = torch.zeros((), dtype=torch.float64, requires_grad=True)
for step in range(200):
    loss = np.mean((np.dot(inputs, w) + b - targets) ** 2)   # recorded on the tape
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
    w.grad = None
    b.grad = None
print("fitted w =", w.detach(), "b =", round(b.item(), 3), "loss =", f"{loss.item():.2e}")
