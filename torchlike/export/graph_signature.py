"""graph_signature.py - what each placeholder and output of an exported graph is.

``ExportGraphSignature`` lists ``InputSpec``s (one per placeholder, in order:
parameters, buffers, constant tensors, then the user inputs) and
``OutputSpec``s (one per returned value), with PyTorch's kinds and targets."""
import enum

__all__ = ["InputKind", "OutputKind", "TensorArgument", "ConstantArgument", "InputSpec",
           "OutputSpec", "ExportGraphSignature"]


class InputKind(enum.Enum):
    USER_INPUT = enum.auto()
    PARAMETER = enum.auto()
    BUFFER = enum.auto()
    CONSTANT_TENSOR = enum.auto()
    CUSTOM_OBJ = enum.auto()
    TOKEN = enum.auto()


class OutputKind(enum.Enum):
    USER_OUTPUT = enum.auto()
    LOSS_OUTPUT = enum.auto()
    BUFFER_MUTATION = enum.auto()
    GRADIENT_TO_PARAMETER = enum.auto()
    GRADIENT_TO_USER_INPUT = enum.auto()
    USER_INPUT_MUTATION = enum.auto()
    TOKEN = enum.auto()
    PARAMETER_MUTATION = enum.auto()


class TensorArgument:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, TensorArgument) and other.name == self.name

    def __repr__(self):
        return f"TensorArgument(name={self.name!r})"


class ConstantArgument:
    def __init__(self, name, value):
        self.name = name
        self.value = value

    def __eq__(self, other):
        return isinstance(other, ConstantArgument) and (other.name, other.value) == \
            (self.name, self.value)

    def __repr__(self):
        return f"ConstantArgument(name={self.name!r}, value={self.value!r})"


class InputSpec:
    def __init__(self, kind, arg, target, persistent=None):
        self.kind = kind
        self.arg = arg
        self.target = target
        self.persistent = persistent

    def __repr__(self):
        return (f"InputSpec(kind=<InputKind.{self.kind.name}: {self.kind.value}>, "
                f"arg={self.arg!r}, target={self.target!r}, persistent={self.persistent!r})")

    def __str__(self):
        target = "" if self.target is None else f" target='{self.target}'"
        persistent = "" if self.persistent is None else f" persistent={self.persistent}"
        return f"{self.arg.name}: {self.kind.name}{target}{persistent}"


class OutputSpec:
    def __init__(self, kind, arg, target):
        self.kind = kind
        self.arg = arg
        self.target = target

    def __repr__(self):
        return (f"OutputSpec(kind=<OutputKind.{self.kind.name}: {self.kind.value}>, "
                f"arg={self.arg!r}, target={self.target!r})")

    def __str__(self):
        target = "" if self.target is None else f" target='{self.target}'"
        return f"{self.arg.name}: {self.kind.name}{target}"


class ExportGraphSignature:
    def __init__(self, input_specs, output_specs):
        self.input_specs = list(input_specs)
        self.output_specs = list(output_specs)

    def _inputs(self, kind):
        return [s for s in self.input_specs if s.kind is kind]

    @property
    def parameters(self):
        return [s.target for s in self._inputs(InputKind.PARAMETER)]

    @property
    def buffers(self):
        return [s.target for s in self._inputs(InputKind.BUFFER)]

    @property
    def non_persistent_buffers(self):
        return [s.target for s in self._inputs(InputKind.BUFFER) if not s.persistent]

    @property
    def lifted_tensor_constants(self):
        return [s.target for s in self._inputs(InputKind.CONSTANT_TENSOR)]

    @property
    def user_inputs(self):
        return [s.arg.name if isinstance(s.arg, TensorArgument) else s.arg.value
                for s in self._inputs(InputKind.USER_INPUT)]

    @property
    def user_outputs(self):
        return [s.arg.name if isinstance(s.arg, TensorArgument) else s.arg.value
                for s in self.output_specs if s.kind is OutputKind.USER_OUTPUT]

    @property
    def inputs_to_parameters(self):
        return {s.arg.name: s.target for s in self._inputs(InputKind.PARAMETER)}

    @property
    def inputs_to_buffers(self):
        return {s.arg.name: s.target for s in self._inputs(InputKind.BUFFER)}

    @property
    def inputs_to_lifted_tensor_constants(self):
        return {s.arg.name: s.target for s in self._inputs(InputKind.CONSTANT_TENSOR)}

    def __str__(self):
        lines = ["", "# inputs"] + [str(s) for s in self.input_specs] + \
                ["", "# outputs"] + [str(s) for s in self.output_specs] + [""]
        return "\n".join(lines)
