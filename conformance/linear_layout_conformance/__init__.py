"""GPU conformance fuzzer for silent layout miscompiles (issue 31).

Generates layout-sensitive TTGIR kernels whose correct output is known bit
for bit (layout conversions, shared memory round trips, shape ops, chains
of dots), compiles them with Triton, runs them through torch on a CUDA GPU,
and classifies what comes back: wrong values (with the map of which element
went where, named over thread and register bits where it is linear),
illegal memory accesses, hangs and compile failures.  ``shrink`` reduces a
failing case and writes a standalone reproducer; ``replay`` re-checks
recorded results without a GPU.  See ``python -m linear_layout_conformance
--help`` and ``conformance/README.md``.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
