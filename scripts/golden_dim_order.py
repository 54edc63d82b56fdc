"""Record PyTorch's Tensor.dim_order() for tests/test_dim_order.py: the order
of dims from outermost to innermost by stride, over layouts made with
empty_strided and permute (contiguous, transposed, channels-last strides,
size-1 and size-0 dims, zero and equal strides), ambiguity_check=True/False/
a list of memory formats, and the messages of bad calls.

Run with an interpreter that has PyTorch:
    python scripts/golden_dim_order.py
writes tests/golden/dim_order.json ([call, outcome] pairs over T, the
library)."""
from golden_calls import record


def inputs(T):
    return {"T": T, "es": T.empty_strided}


CALLS = [
    # plain layouts
    "T.empty(()).dim_order()", "T.empty(5).dim_order()", "T.empty(6)[::2].dim_order()",
    "T.empty(2, 3, 5, 7).dim_order()", "T.empty(2, 3, 5, 7).transpose(1, 2).dim_order()",
    "T.empty(4, 3).t().dim_order()", "T.empty(2, 3, 4).permute(2, 0, 1).dim_order()",
    "T.empty(2, 3, 4).permute(1, 2, 0).dim_order()",
    "T.empty(2, 3, 4, 5, 6).permute(4, 2, 0, 3, 1).dim_order()",
    "T.empty(4, 6)[:, ::2].dim_order()", "T.empty(4, 6)[::2].t().dim_order()",
    # channels-last strides
    "es((2, 3, 5, 7), (105, 1, 21, 3)).dim_order()",
    "es((2, 3, 1, 5), (15, 1, 15, 3)).dim_order()",
    "es((2, 3, 4, 5, 6), (360, 1, 90, 18, 3)).dim_order()",
    "es((2, 3, 4, 5), (60, 1, 15, 3)).dim_order(ambiguity_check=True)",
    # size-1, size-0, zero and equal strides
    "T.empty(1, 2, 3, 4).dim_order()", "T.empty(2, 3, 1, 5).dim_order()",
    "T.empty(1, 1, 1).dim_order()", "T.empty(0, 3).dim_order()", "T.empty(3, 0).t().dim_order()",
    "es((0, 3, 4, 5), (7, 1, 1, 1)).dim_order()",
    "T.empty(3, 1).expand(3, 4).dim_order()", "T.empty(1, 4).expand(3, 4).dim_order()",
    "es((2, 3, 4), (0, 0, 0)).dim_order()", "es((2, 3, 4), (4, 0, 1)).dim_order()",
    "es((2, 3, 4), (1, 0, 2)).dim_order()", "es((2, 3, 4), (1, 8, 2)).dim_order()",
    "es((2, 3, 4), (12, 1, 3)).dim_order()",
    "es((2, 3), (1, 1)).dim_order()", "es((3, 2), (1, 1)).dim_order()",
    "es((3, 3), (3, 3)).dim_order()", "es((3, 4), (4, 4)).dim_order()",
    "es((4, 3), (4, 4)).dim_order()", "es((2, 2, 2), (2, 4, 1)).dim_order()",
    "es((2, 2, 2), (1, 2, 2)).dim_order()", "es((3, 5), (2, 7)).dim_order()",
    "es((3, 5), (7, 2)).dim_order()", "es((2, 3, 4), (6, 2, 6)).dim_order()",
    # ambiguity_check
    "T.empty(2, 3, 4, 5).dim_order(ambiguity_check=False)",
    "T.empty(2, 3, 4, 5).dim_order(ambiguity_check=True)",
    "T.empty(1, 2, 3, 4).dim_order(ambiguity_check=True)",
    "T.empty(1, 1, 1).dim_order(ambiguity_check=True)",
    "es((2, 3), (1, 1)).dim_order(ambiguity_check=True)",
    "es((2, 3, 4), (12, 4, 4)).dim_order(ambiguity_check=True)",
    "es((2, 3, 4), (4, 12, 4)).dim_order(ambiguity_check=True)",
    "T.empty(3, 1).expand(3, 4).dim_order(ambiguity_check=True)",
    "T.empty(1, 2, 3, 4).dim_order(ambiguity_check=[T.contiguous_format, T.channels_last])",
    "T.empty(2, 1, 3, 4).dim_order(ambiguity_check=[T.contiguous_format, T.channels_last])",
    "T.empty(1, 2, 3, 4).dim_order(ambiguity_check=[T.channels_last])",
    "T.empty(2, 3, 4, 5).dim_order(ambiguity_check=[T.channels_last])",
    "es((1, 3, 4, 5), (60, 1, 15, 3)).dim_order(ambiguity_check=[T.channels_last])",
    "es((1, 3, 4, 5), (60, 1, 15, 3)).dim_order(ambiguity_check=[T.contiguous_format])",
    "T.empty(1, 2, 3, 4).dim_order(ambiguity_check=[T.preserve_format])",
    "T.empty(1, 3).dim_order(ambiguity_check=[T.channels_last])",
    "T.empty(1, 3).dim_order(ambiguity_check=[T.contiguous_format, T.contiguous_format])",
    "T.empty(1, 2, 3, 4, 5).dim_order(ambiguity_check=[T.channels_last_3d])",
    "T.empty(3, 4).dim_order(ambiguity_check=[])", "T.empty(1, 4).dim_order(ambiguity_check=[])",
    "es((0, 3, 4, 5), (7, 1, 1, 1)).dim_order(ambiguity_check=[T.contiguous_format, "
    "T.channels_last])",
    # bad calls
    "T.empty(1, 2, 3, 4).dim_order(ambiguity_check='ILLEGAL')",
    "T.empty(1, 2, 3, 4).dim_order(ambiguity_check=[1])",
    "T.empty(1, 2, 3, 4).dim_order(ambiguity_check=(T.channels_last,))",
    "T.empty(1, 2, 3, 4).dim_order(ambiguity_check=None)",
    "T.empty(2, 3).dim_order(True)",
]


def describe(r):
    return [type(r).__name__, list(r)]


def main():
    record(CALLS, inputs, describe, "dim_order", messages=True)


if __name__ == "__main__":
    main()
