"""Train a small CNN on scikit-learn's digits with torchlike, PyTorch-style.

Ordinary PyTorch training code after `import torchlike as torch`: a Dataset and
DataLoader, an nn.Module, Adam, a learning-rate schedule, a checkpoint saved in
PyTorch's format and loaded back, a tqdm progress bar and a matplotlib plot of
the loss.  Runs on the GPU when one is available; about half a minute on a CPU.

    python examples/train_digits.py [--epochs 4] [--out examples/out]
"""
import argparse
import os
import time

import matplotlib
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tqdm import tqdm

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.utils.data import DataLoader, TensorDataset

matplotlib.use("Agg")  # files, not windows
import matplotlib.pyplot as plt  # noqa: E402


class DigitsNet(nn.Module):
    """Two conv blocks and a classifier for 1x8x8 images.

    Shapes: (N, 1, 8, 8) -> conv 3x3 -> (N, 16, 8, 8) -> pool -> (N, 16, 4, 4)
            -> conv 3x3 -> (N, 32, 4, 4) -> pool -> (N, 32, 2, 2) -> (N, 10)
    """

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(32 * 2 * 2, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(self.dropout(torch.flatten(x, 1)))


def load_data(seed):
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]  # (N, 1, 8, 8) in [0, 1]
    x_train, x_test, y_train, y_test = train_test_split(
        images, digits.target, test_size=0.2, random_state=seed, stratify=digits.target)
    as_set = lambda x, y: TensorDataset(torch.from_numpy(x), torch.from_numpy(y))  # noqa: E731
    return as_set(x_train, y_train), as_set(x_test, y_test)


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            pred = model(x.to(device)).argmax(1)
            correct += int((pred == y.to(device)).sum())
            total += len(y)
    return correct / total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "out"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_set, test_set = load_data(args.seed)
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True,
                              generator=torch.Generator().manual_seed(args.seed))
    test_loader = DataLoader(test_set, batch_size=256)

    model = DigitsNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    print(model)
    print(f"{sum(p.numel() for p in model.parameters())} parameters, on {device}")

    losses = []
    start = time.perf_counter()
    for epoch in range(args.epochs):
        model.train()
        bar = tqdm(train_loader, desc=f"epoch {epoch + 1}/{args.epochs}", unit="batch")
        for x, y in bar:
            loss = F.cross_entropy(model(x.to(device)), y.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            bar.set_postfix(loss=f"{losses[-1]:.3f}")
        scheduler.step()
        print(f"epoch {epoch + 1}: test accuracy {evaluate(model, test_loader, device):.3f}")
    print(f"trained in {time.perf_counter() - start:.1f} s")

    # A checkpoint in PyTorch's format, loaded back into a fresh model.
    path = os.path.join(args.out, "digits.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
    restored = DigitsNet().to(device)
    restored.load_state_dict(torch.load(path)["model"])
    accuracy = evaluate(restored, test_loader, device)
    print(f"test accuracy of the reloaded checkpoint: {accuracy:.3f}")

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(losses, lw=1, label="batch loss")
    window = 10
    if len(losses) > window:
        smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
        ax.plot(np.arange(window - 1, len(losses)), smooth, lw=2, label="moving average")
    ax.set(xlabel="step", ylabel="cross-entropy", title="DigitsNet on sklearn digits")
    ax.legend()
    fig.tight_layout()
    plot = os.path.join(args.out, "loss.png")
    fig.savefig(plot, dpi=120)
    print(f"loss curve saved to {plot}")
    return accuracy


if __name__ == "__main__":
    main()
