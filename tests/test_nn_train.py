"""Ordinary PyTorch model code trains after ``import torchlike as torch``: a
small CNN and an MLP (plus an LSTM and a Transformer encoder) fit synthetic
data with plain SGD, and the loss falls."""
import numpy as np

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F


def sgd_step(model, lr):
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    model.zero_grad()


def train(model, batches, loss_fn, lr, epochs):
    losses = []
    for _ in range(epochs):
        total = 0.0
        for x, y in batches:
            loss = loss_fn(model(x), y)
            loss.backward()
            sgd_step(model, lr)
            total += float(loss)
        losses.append(total / len(batches))
    return losses


def blobs(n, shape, classes, seed):
    """Class-dependent means plus noise: separable, so a model must learn it."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    centres = rng.standard_normal((classes,) + shape)
    x = centres[y] + 0.5 * rng.standard_normal((n,) + shape)
    return torch.tensor(x.astype(np.float32)), torch.tensor(y)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2))
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(16 * 2 * 2, 3)

    def forward(self, x):
        return self.head(self.dropout(torch.flatten(self.features(x), 1)))


def test_small_cnn_trains():
    torch.manual_seed(0)
    x, y = blobs(96, (1, 8, 8), 3, seed=1)
    batches = [(x[i:i + 32], y[i:i + 32]) for i in range(0, 96, 32)]
    model = SmallCNN()
    losses = train(model, batches, F.cross_entropy, lr=0.1, epochs=8)
    assert losses[-1] < 0.5 * losses[0], losses
    model.eval()
    accuracy = float((model(x).argmax(1) == y).float().mean())
    assert accuracy > 0.9


def test_mlp_trains_with_modules_and_losses():
    torch.manual_seed(0)
    x, y = blobs(128, (10,), 4, seed=2)
    model = nn.Sequential(nn.Linear(10, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))
    criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
    losses = train(model, [(x, y)], criterion, lr=0.5, epochs=30)
    assert losses[-1] < 0.3 * losses[0], losses


def test_lstm_and_transformer_regressors_train():
    torch.manual_seed(0)
    rng = np.random.default_rng(3)
    seq = torch.tensor(rng.standard_normal((16, 6, 4)).astype(np.float32))
    target = seq.sum(1)[:, :1]                       # (16, 1)

    class Recurrent(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(4, 16, batch_first=True)
            self.out = nn.Linear(16, 1)

        def forward(self, x):
            out, (h, c) = self.lstm(x)
            return self.out(h[-1])

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 16)
            layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 1)
            self.out = nn.Linear(16, 1)

        def forward(self, x):
            return self.out(self.encoder(self.proj(x)).mean(1))

    for model, lr in ((Recurrent(), 0.05), (Attention(), 0.02)):
        losses = train(model, [(seq, target)], F.mse_loss, lr=lr, epochs=40)
        assert losses[-1] < 0.5 * losses[0], (type(model).__name__, losses)


def test_ordinary_training_loop_with_torch_optim():
    """The loop as PyTorch users write it: optimizer.zero_grad / backward / step,
    model.train() / model.eval(), torch.no_grad() for evaluation."""
    torch.manual_seed(0)
    x, y = blobs(96, (1, 8, 8), 3, seed=4)
    model = SmallCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = nn.CrossEntropyLoss()
    first = None
    for epoch in range(6):
        model.train()
        for i in range(0, 96, 32):
            optimizer.zero_grad()
            loss = criterion(model(x[i:i + 32]), y[i:i + 32])
            loss.backward()
            optimizer.step()
            first = float(loss) if first is None else first
    model.eval()
    with torch.no_grad():
        final = float(criterion(model(x), y))
        accuracy = float((model(x).argmax(1) == y).float().mean())
    assert final < 0.5 * first and accuracy > 0.9, (first, final, accuracy)
