"""Record PyTorch's answers for tests/test_mha_padding.py: attention rows that
see no key, through MultiheadAttention, the Transformer encoder layer, the
encoder (its nested-tensor path) and the decoder layer, on PyTorch's fused
inference kernels and off them.

Run with an interpreter that has PyTorch:
    python scripts/golden_mha_padding.py
writes tests/golden/mha_padding.json: what tests/mha_padding_cases.py's
``record(torch)`` returns."""
import warnings

from golden_calls import record_cases

if __name__ == "__main__":
    warnings.simplefilter("ignore")   # the nested-tensor prototype warning
    record_cases("mha_padding_cases", "mha_padding")
