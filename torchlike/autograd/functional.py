"""torchlike.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp
(being written)."""
