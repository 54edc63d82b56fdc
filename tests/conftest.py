import os
import sys

# The tests import torchlike from the source tree (make build puts _C there).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hypothesis import settings  # noqa: E402

# Derandomized: the same examples every run, so CI results are reproducible.
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          database=None)
settings.load_profile("ci")
