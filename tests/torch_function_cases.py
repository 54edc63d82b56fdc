"""Fixed scripts run on a logging Tensor subclass, a duck type and modes, by
both libraries: scripts/golden_torch_function.py records what PyTorch's
__torch_function__ receives into tests/golden/torch_function.json, and
tests/test_torch_function_golden.py runs the same scripts on torchlike.

Each case is ``case(torch) -> list`` of log entries: [public name, argument
kinds] per call that reached a __torch_function__, and the results' kinds
and values where the script notes them.  Names are spelled "torch.*" for both
libraries (torchlike's resolve_name with its prefix swapped)."""


def _name(torch, func):
    name = torch.overrides.resolve_name(func)
    if name is None:
        return f"?{getattr(func, '__name__', func)}"
    if name.startswith("torchlike."):
        name = "torch." + name[len("torchlike."):]
    return name


def _kind(torch, x):
    if isinstance(x, (list, tuple)) and type(x) in (list, tuple):
        return f"{type(x).__name__}[{','.join(_kind(torch, v) for v in x)}]"
    if isinstance(x, torch.Tensor):
        return "Tensor" if type(x) is torch.Tensor else type(x).__name__
    return type(x).__name__


def _value(torch, x):
    if isinstance(x, torch.Tensor):
        plain = x.detach().as_subclass(torch.Tensor)
        if plain.is_complex():
            plain = torch.view_as_real(plain)
        return [_kind(torch, x), str(plain.dtype).split(".")[-1], plain.tolist()]
    if isinstance(x, (list, tuple)):
        return [_value(torch, v) for v in x]
    return [_kind(torch, x), x if isinstance(x, (int, float, bool)) else str(x)]


def logging_class(torch, log, name="L"):
    """A Tensor subclass that logs each call, then runs the default."""
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        log.append([_name(torch, func), [_kind(torch, a) for a in args],
                    sorted((kwargs or {}).keys())])
        return super(cls_ref[0], cls).__torch_function__(func, types, args, kwargs)
    cls_ref = []
    cls = type(name, (torch.Tensor,), {"__torch_function__": classmethod(__torch_function__)})
    cls_ref.append(cls)
    return cls


def case_ops(torch):
    log = []
    L = logging_class(torch, log)
    F = torch.nn.functional
    a = torch.arange(1.0, 5.0).as_subclass(L)
    log.append(["-- start"])
    results = []
    for expr in ["a + 1", "1 + a", "a - 1", "1 - a", "a * 2", "2 * a", "a / 2", "2 / a",
                 "a ** 2", "2 ** a", "a // 2", "a % 2", "-a", "+a", "abs(a)", "a < 2", "2 < a",
                 "a == 2", "a != 2", "a >= 2", "a @ a", "a[0]", "a[1:3]", "a[None, :]",
                 "a.shape", "a.dtype", "len(a)", "a.sum()", "a.mean()", "a.max()",
                 "torch.add(a, a)", "torch.add(a, 1, alpha=2)", "torch.cat([a, a])",
                 "torch.stack([a, a], dim=0)", "a.view(2, 2)", "a.reshape(2, 2)",
                 "torch.exp(a)", "a.exp()", "F.relu(a)", "F.softmax(a, dim=0)",
                 "torch.where(a > 2, a, torch.zeros(4))", "a.sort()", "torch.linalg.norm(a)",
                 "torch.fft.fft(a)", "a.clone()", "a.detach()", "a.to(torch.float64)",
                 "torch.zeros_like(a)", "a.unsqueeze(0)", "a.requires_grad", "a.ndim",
                 "a.size()", "a.numel()", "a.tolist()", "a.item() if a.numel() == 1 else 0",
                 "bool(a[0])", "float(a[0])", "int(a[0])"]:
        log.append(["-- " + expr])
        results.append([expr, _value(torch, eval(expr))])
    for stmt in ["a[0] = 5.0", "a += 1", "a.add_(1)", "a.mul_(2)", "a[1:3] = torch.ones(2)"]:
        log.append(["-- " + stmt])
        exec(stmt)
        results.append([stmt, _value(torch, a)])
    return [log, results]


def case_autograd(torch):
    log = []
    L = logging_class(torch, log)
    x = torch.tensor([1.0, 2.0, 3.0]).as_subclass(L).requires_grad_()
    log.append(["-- forward"])
    y = (x * x).sum()
    log.append(["-- backward"])
    y.backward()
    log.append(["-- grad"])
    g = x.grad
    return [log, [_kind(torch, x), x.is_leaf, _kind(torch, y), _value(torch, g)]]


def case_not_implemented(torch):
    """Dispatch order and NotImplemented: subclasses before their parents,
    otherwise left to right; the next handler runs after NotImplemented."""
    log = []

    def make(name, base, answer):
        def tf(cls, func, types, args=(), kwargs=None):
            log.append([name, _name(torch, func), [t.__name__ for t in types]])
            if answer is NotImplemented:
                return NotImplemented
            with torch._C.DisableTorchFunctionSubclass():
                return answer
        return type(name, (base,), {"__torch_function__": classmethod(tf)})
    A = make("A", torch.Tensor, NotImplemented)
    B = make("B", torch.Tensor, "B-result")
    C = make("C", B, NotImplemented)
    a = torch.ones(2).as_subclass(A)
    b = torch.ones(2).as_subclass(B)
    c = torch.ones(2).as_subclass(C)
    out = []
    for expr in ["torch.add(a, b)", "torch.add(b, c)", "torch.add(c, b)", "torch.cat([a, c])",
                 "a.add(b)", "torch.add(a, a)", "a + 1", "a[0]", "a.shape", "torch.add(c, c)"]:
        log.append(["-- " + expr])
        try:
            out.append([expr, repr(eval(expr))])
        except TypeError as e:
            out.append([expr, "TypeError", str(e).replace("torchlike.", "torch.")
                        .replace("torchlike", "torch")])
    return [log, out]


def case_duck(torch):
    """A non-Tensor type with __torch_function__ (PyTorch's ScalarTensor
    example): it implements a few functions and refuses the rest."""
    log = []

    class Diagonal:
        handled = {}

        def __init__(self, n, value):
            self.n, self.value = n, value

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append([_name(torch, func), [_kind(torch, a) for a in args]])
            impl = cls.handled.get(_name(torch, func))
            if impl is None:
                return NotImplemented
            return impl(*args, **(kwargs or {}))

    def mean(d):
        return float(d.value) / d.n

    def add(x, y, alpha=1):
        if isinstance(x, Diagonal) and isinstance(y, Diagonal):
            return Diagonal(x.n, x.value + alpha * y.value)
        d, t = (x, y) if isinstance(x, Diagonal) else (y, x)
        return t + d.value * torch.eye(d.n)
    Diagonal.handled = {"torch.mean": mean, "torch.add": add}
    d = Diagonal(3, 2.0)
    out = []
    for expr in ["torch.mean(d)", "torch.add(d, d).value", "torch.add(torch.ones(3, 3), d)",
                 "torch.add(d, torch.ones(3, 3), alpha=1)", "torch.exp(d)",
                 "torch.nn.functional.relu(d)", "torch.cat([torch.ones(1), d])"]:
        log.append(["-- " + expr])
        try:
            out.append([expr, _value(torch, eval(expr))])
        except TypeError as e:
            out.append([expr, "TypeError", str(e).replace("torchlike.", "torch.")
                        .replace("torchlike", "torch").split("\n")[0]])
    return [log, out]


def case_modes(torch):
    log = []
    F = torch.nn.functional

    class Mode(torch.overrides.TorchFunctionMode):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append([self.tag, _name(torch, func), [_kind(torch, a) for a in args]])
            return func(*args, **(kwargs or {}))

    class Refuse(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(["refuse", _name(torch, func)])
            if _name(torch, func) == "torch.Tensor.add":
                return torch.tensor(-1.0)
            return func(*args, **(kwargs or {}))
    out = []
    with Mode("outer"):
        x = torch.zeros(2)
        y = x + 1
        s = y.sum()
        r = F.relu(y)
        with Mode("inner"):
            z = torch.ones(2) * 3
            x.shape
        out.append([_value(torch, y), _value(torch, s), _value(torch, r), _value(torch, z)])
    log.append(["-- refuse"])
    with Refuse():
        out.append(_value(torch, torch.ones(2) + 1))
        out.append(_value(torch, torch.ones(2).add(1)))
    log.append(["-- after"])
    out.append(_value(torch, torch.ones(2) + 1))
    return [log, out]


CASES = {"ops": case_ops, "autograd": case_autograd, "not_implemented": case_not_implemented,
         "duck": case_duck, "modes": case_modes}
