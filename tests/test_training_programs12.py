"""A twelfth round of ordinary PyTorch training programs run on
torchlike (placeholder docstring, written out below when the round is done)."""
from oracle import program_test

test_program_matches_pytorch = program_test("training_programs12")
