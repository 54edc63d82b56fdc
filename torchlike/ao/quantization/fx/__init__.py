"""FX graph mode quantization's passes (torch.ao.quantization.fx): the
tracer, fusion, observer insertion and conversion that quantize_fx runs."""
