"""The exceptions of ``torch._dynamo.exc`` that torchlike can raise."""


class TorchDynamoException(RuntimeError):
    pass


class InvalidBackend(TorchDynamoException):
    """``compile``'s backend is no name PyTorch knows."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}. See `torchlike._dynamo.list_backends()` for "
                         f"available backends.")
