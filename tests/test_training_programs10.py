"""A tenth round of ordinary PyTorch training programs run on torchlike.

(Docstring completed below once the round's findings are known.)

The programs live in scripts/golden_training_programs10.py, taking the
library as T; PyTorch's answers to them are in
tests/golden/training_programs10.json.  Each runs here on torchlike and its
described result is compared with PyTorch's, within the stated tolerance."""
from oracle import program_test

test_program_matches_pytorch = program_test("training_programs10")
