"""Record PyTorch's local_response_norm results for tests/test_nn_norm.py
(tests/golden/nn_lrn): inputs, output and the input's gradient of
sum(out * w), over sizes odd and even, 3-D to 5-D inputs, float64 and float32.

Run with an interpreter that has PyTorch:  python scripts/golden_lrn.py"""
import os

from golden_grid import HERE, record

CASES = [
    ("lrn", "lrn3d_size3", "F.local_response_norm(x, 3)", {"x": ((2, 5, 7), "f8")}, ("x",)),
    ("lrn", "lrn4d_size2_params", "F.local_response_norm(x, 2, alpha=0.3, beta=0.6, k=2.0)",
     {"x": ((2, 6, 3, 4), "f8")}, ("x",)),
    ("lrn", "lrn5d_size5", "F.local_response_norm(x, 5, alpha=0.5, beta=1.2)",
     {"x": ((1, 7, 2, 3, 4), "f8")}, ("x",)),
    ("lrn", "lrn4d_window_wider_than_c", "F.local_response_norm(x, 8, alpha=1.0)",
     {"x": ((2, 3, 4, 4), "f8")}, ("x",)),
    ("lrn", "lrn4d_size1", "F.local_response_norm(x, 1, alpha=0.2)", {"x": ((1, 4, 3, 3), "f8")},
     ("x",)),
    ("lrn", "lrn4d_f32", "F.local_response_norm(x, 5, alpha=0.1)", {"x": ((2, 8, 5, 6), "f4")},
     ("x",)),
]

if __name__ == "__main__":
    record(CASES, os.path.join(HERE, "..", "tests", "golden", "nn_lrn"), 2027)
