"""Parallel styles: how ``parallelize_module`` lays out one submodule's
parameters and converts its inputs and outputs, as
torch.distributed.tensor.parallel.style.

* ``ColwiseParallel``: Linear weight and bias Shard(0) (the output
  features), Embedding weight Shard(1); inputs Replicate (default
  ``input_layouts``), outputs Shard(-1) (default ``output_layouts``).
* ``RowwiseParallel``: Linear weight Shard(1) (the input features), bias
  Replicate, Embedding weight Shard(0); inputs Shard(-1) (Linear) or
  Replicate (Embedding); outputs Replicate (the Partial sums all-reduced).
* ``SequenceParallel``: parameters replicated, input sharded on
  ``sequence_dim``, output left sharded (a DTensor).
* ``PrepareModuleInput`` / ``PrepareModuleOutput``: only convert inputs /
  outputs.

``use_local_output``: hand the next module plain local tensors
(``to_local()``) instead of DTensors."""
from ....nn import Embedding, Linear, Parameter
from .._api import DTensor, distribute_module, distribute_tensor
from ..placement_types import Replicate, Shard

__all__ = ["ParallelStyle", "ColwiseParallel", "RowwiseParallel", "SequenceParallel",
           "PrepareModuleInput", "PrepareModuleOutput", "PrepareModuleInputOutput"]


class ParallelStyle:
    """The base of the styles: ``_apply(module, device_mesh)``."""

    src_data_rank = 0

    def _apply(self, module, device_mesh):
        raise NotImplementedError


def _as_dtensor(x, mesh, layout, desired, what):
    if not isinstance(x, DTensor):
        if not hasattr(x, "ndim"):
            raise ValueError(f"expecting {what} to be a torch.Tensor or DTensor, but got {x!r}")
        x = DTensor.from_local(x, mesh, layout, run_check=False)
    if tuple(x.placements) != tuple(desired):
        x = x.redistribute(placements=desired)
    return x


def _shard_params(module, mesh, layouts, src_data_rank):
    """Register ``module``'s parameters (by name) as DTensors of ``layouts``."""
    for name, param in list(module.named_parameters(recurse=False)):
        placements = layouts.get(name)
        if placements is None or isinstance(param, DTensor):
            continue
        dt = distribute_tensor(param.data, mesh, placements, src_data_rank=src_data_rank)
        module.register_parameter(name, Parameter(dt, param.requires_grad))


class _LinearStyle(ParallelStyle):
    def __init__(self, *, input_layouts=None, output_layouts=None, use_local_output=True):
        super().__init__()
        self.input_layouts = (input_layouts or self._input_default,)
        self.output_layouts = (output_layouts or self._output_default,)
        self.use_local_output = use_local_output

    def _prepare_input(self, mod, inputs, mesh):
        x = inputs[0]
        x = _as_dtensor(x, mesh, self.input_layouts, self.desired_input_layouts,
                        f"input of {type(mod).__name__}")
        return (x,) + tuple(inputs[1:])

    def _prepare_output(self, mod, outputs, mesh):
        if tuple(outputs.placements) != tuple(self.output_layouts):
            outputs = outputs.redistribute(placements=self.output_layouts)
        return outputs.to_local() if self.use_local_output else outputs

    def _apply(self, module, device_mesh):
        if isinstance(module, Linear):
            layouts, self.desired_input_layouts = self._linear_layouts()
        elif isinstance(module, Embedding):
            layouts, self.desired_input_layouts = self._embedding_layouts()
        else:
            raise NotImplementedError(f"{type(self).__name__} currently only support nn.Linear "
                                      f"and nn.Embedding!")
        _shard_params(module, device_mesh, layouts, self.src_data_rank)
        distribute_module(module, device_mesh,
                          input_fn=lambda m, i, mesh: self._prepare_input(m, i, mesh),
                          output_fn=lambda m, o, mesh: self._prepare_output(m, o, mesh))
        return module

    def __repr__(self):
        return (f"{type(self).__name__}(input_layouts={self.input_layouts}, output_layouts="
                f"{self.output_layouts}, use_local_output={self.use_local_output})")


class ColwiseParallel(_LinearStyle):
    """Shard a Linear's output features (weight and bias Shard(0)) or an
    Embedding's embedding dimension (weight Shard(1)).  Input: Replicate
    (``input_layouts``, redistributed to Replicate); output: Shard(-1),
    redistributed to ``output_layouts``."""

    _input_default = Replicate()
    _output_default = Shard(-1)

    def _linear_layouts(self):
        return {"weight": [Shard(0)], "bias": [Shard(0)]}, (Replicate(),)

    def _embedding_layouts(self):
        return {"weight": [Shard(1)]}, (Replicate(),)


class RowwiseParallel(_LinearStyle):
    """Shard a Linear's input features (weight Shard(1), bias replicated)
    or an Embedding's rows (weight Shard(0)).  Input: Shard(-1) for a
    Linear, Replicate for an Embedding; output: the Partial sums
    redistributed to ``output_layouts`` (default Replicate: all_reduce)."""

    _input_default = Shard(-1)
    _output_default = Replicate()

    def _linear_layouts(self):
        return {"weight": [Shard(1)], "bias": [Replicate()]}, (Shard(-1),)

    def _embedding_layouts(self):
        return {"weight": [Shard(0)]}, (Replicate(),)


class SequenceParallel(ParallelStyle):
    """Replicate the module's parameters (LayerNorm, RMSNorm, Dropout) and
    run it on input sharded on ``sequence_dim``; a plain input is taken as
    this rank's piece of that sharding.  Output: the sharded DTensor (its
    local tensor with ``use_local_output=True``)."""

    def __init__(self, *, sequence_dim=1, use_local_output=False):
        super().__init__()
        self.sequence_sharding = (Shard(sequence_dim),)
        self.use_local_output = use_local_output

    def _replicate(self, name, module, mesh):
        for p_name, param in list(module.named_parameters(recurse=False)):
            if not isinstance(param, DTensor):
                dt = DTensor.from_local(param.data, mesh, [Replicate()], run_check=False)
                module.register_parameter(p_name, Parameter(dt, param.requires_grad))

    def _prepare_input(self, mod, inputs, mesh):
        x = inputs[0]
        if isinstance(x, DTensor):
            if tuple(x.placements) != self.sequence_sharding:
                x = x.redistribute(placements=self.sequence_sharding)
        elif hasattr(x, "ndim"):
            x = DTensor.from_local(x, mesh, self.sequence_sharding, run_check=False)
        else:
            raise ValueError(f"expecting input of {mod} to be a torch.Tensor or DTensor, but "
                             f"got {x}")
        return (x,) + tuple(inputs[1:])

    def _apply(self, module, device_mesh):
        return distribute_module(
            module, device_mesh, self._replicate,
            input_fn=lambda m, i, mesh: self._prepare_input(m, i, mesh),
            output_fn=lambda m, o, mesh: o.to_local() if self.use_local_output else o)

    def __repr__(self):
        return (f"SequenceParallel(sequence_dim={self.sequence_sharding[0].dim}, "
                f"use_local_output={self.use_local_output})")


def _tuple(x):
    if x is None:
        return None
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


class PrepareModuleInput(ParallelStyle):
    """Convert the module's positional inputs laid out as ``input_layouts``
    (one placement per input, None: leave that input alone) to
    ``desired_input_layouts``; keyword inputs likewise by name."""

    def __init__(self, *, input_layouts=None, desired_input_layouts=None,
                 input_kwarg_layouts=None, desired_input_kwarg_layouts=None,
                 use_local_output=False):
        self.input_layouts = _tuple(input_layouts)
        self.desired_input_layouts = _tuple(desired_input_layouts)
        self.use_local_output = use_local_output
        if self.input_layouts is not None:
            if self.desired_input_layouts is None:
                raise AssertionError("desired module inputs should not be None!")
            if len(self.input_layouts) != len(self.desired_input_layouts):
                raise AssertionError("input_layouts and desired_input_layouts should have same "
                                     "length!")
        self.input_kwarg_layouts = input_kwarg_layouts or {}
        self.desired_input_kwarg_layouts = desired_input_kwarg_layouts or {}
        if len(self.input_kwarg_layouts) != len(self.desired_input_kwarg_layouts):
            raise AssertionError("input_kwarg_layouts and desired_input_kwarg_layouts should "
                                 "have same length!")
        self.with_kwargs = bool(self.input_kwarg_layouts)

    def _arg(self, x, mesh, layout, desired):
        if layout is None:
            return x
        if not isinstance(x, DTensor):
            if not hasattr(x, "ndim"):
                raise AssertionError("expecting input to be a torch.Tensor!")
            x = DTensor.from_local(x, mesh, (layout,), run_check=False)
        if desired is not None and layout != desired:
            x = x.redistribute(placements=(desired,))
        return x.to_local() if self.use_local_output else x

    def _inputs(self, inputs, mesh):
        if self.input_layouts is None:
            return inputs
        if len(inputs) != len(self.input_layouts):
            raise ValueError("module inputs and input_layouts should have same length!")
        return tuple(self._arg(x, mesh, a, b) for x, a, b in
                     zip(inputs, self.input_layouts, self.desired_input_layouts))

    def _apply(self, module, device_mesh):
        if self.with_kwargs:
            def pre(mod, inputs, kwargs):
                kw = {k: self._arg(v, device_mesh, self.input_kwarg_layouts.get(k),
                                   self.desired_input_kwarg_layouts.get(k))
                      for k, v in kwargs.items()}
                return self._inputs(inputs, device_mesh), kw
            module.register_forward_pre_hook(pre, with_kwargs=True)
        else:
            module.register_forward_pre_hook(
                lambda mod, inputs: self._inputs(inputs, device_mesh))
        return module

    def __repr__(self):
        return (f"PrepareModuleInput(input_layouts={self.input_layouts}, "
                f"desired_input_layouts={self.desired_input_layouts}, "
                f"input_kwarg_layouts={self.input_kwarg_layouts}, "
                f"desired_input_kwarg_layouts={self.desired_input_kwarg_layouts}, "
                f"use_local_output={self.use_local_output})")


class PrepareModuleOutput(ParallelStyle):
    """Convert the module's outputs laid out as ``output_layouts`` (None:
    leave alone) to ``desired_output_layouts``."""

    def __init__(self, *, output_layouts, desired_output_layouts, use_local_output=True):
        self.output_layouts = _tuple(output_layouts)
        self.desired_output_layouts = _tuple(desired_output_layouts)
        self.use_local_output = use_local_output
        if len(self.output_layouts) != len(self.desired_output_layouts):
            raise AssertionError("output_layouts and desired_output_layouts should have same "
                                 "length!")

    def _outputs(self, outputs, mesh):
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        if len(outs) != len(self.output_layouts):
            raise ValueError("module outputs and output_layouts should have same length!")
        done = []
        for out, layout, desired in zip(outs, self.output_layouts,
                                        self.desired_output_layouts):
            if layout is None:
                done.append(out)
                continue
            if not isinstance(out, DTensor):
                out = DTensor.from_local(out, mesh, (layout,), run_check=False)
            if layout != desired:
                out = out.redistribute(placements=(desired,))
            done.append(out.to_local() if self.use_local_output else out)
        return done[0] if len(done) == 1 else tuple(done)

    def _apply(self, module, device_mesh):
        module.register_forward_hook(lambda mod, inputs, outputs: self._outputs(outputs,
                                                                                 device_mesh))
        return module

    def __repr__(self):
        return (f"PrepareModuleOutput(output_layouts={self.output_layouts}, "
                f"desired_output_layouts={self.desired_output_layouts}, "
                f"use_local_output={self.use_local_output})")


class PrepareModuleInputOutput(ParallelStyle):
    """PrepareModuleInput and PrepareModuleOutput on one module."""

    def __init__(self, *, input_layouts=None, desired_input_layouts=None,
                 input_kwarg_layouts=None, desired_input_kwarg_layouts=None,
                 use_local_input=False, output_layouts, desired_output_layouts,
                 use_local_output=True):
        self.prepare_module_input = PrepareModuleInput(
            input_layouts=input_layouts, desired_input_layouts=desired_input_layouts,
            input_kwarg_layouts=input_kwarg_layouts,
            desired_input_kwarg_layouts=desired_input_kwarg_layouts,
            use_local_output=use_local_input)
        self.prepare_module_output = PrepareModuleOutput(
            output_layouts=output_layouts, desired_output_layouts=desired_output_layouts,
            use_local_output=use_local_output)

    def _apply(self, module, device_mesh):
        self.prepare_module_input._apply(module, device_mesh)
        self.prepare_module_output._apply(module, device_mesh)
        return module
