"""Write the TTGIR Triton lowers for one grid configuration, or compile a TTGIR file.

Run under a wheel's python (`bash tests/oracle/venv.sh X.Y.Z` prints it), on the CPU:

    PY tests/oracle/compile/dump_ttgir.py config CONFIG_JSON OUT.ttgir
        compile the configuration (as `run_grid.py` does) and write the module handed to
        `make_llir` to OUT.ttgir before lowering it, so a compile that then fails still
        leaves its TTGIR
    PY tests/oracle/compile/dump_ttgir.py file IN.ttgir CAPABILITY
        compile a TTGIR file for cuda:CAPABILITY (Triton starts after the file's own stage)

Both skip ptxas and end as the compile does (an abort kills the process); a compile that
returns prints `compiled ok`.
"""

import json
import os
import sys
import tempfile

# A fresh cache: a cached kernel would skip the stages, and the dump with them.
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="dump_ttgir-")

import triton.compiler.compiler as cc
from triton.backends.compiler import GPUTarget

import triton

HERE = os.path.dirname(os.path.abspath(__file__))


def hook(dump_to):
    """Skip ptxas; with `dump_to`, write the module `make_llir` gets there first."""
    orig = cc.make_backend

    def make_backend(target):
        backend = orig(target)
        orig_add = backend.add_stages

        def add_stages(stages, *rest, **kw):
            orig_add(stages, *rest, **kw)
            stages["cubin"] = lambda src, metadata: b""
            if dump_to is None:
                return
            llir = stages["llir"]

            def dump_then_lower(src, metadata):
                with open(dump_to, "w") as f:
                    f.write(str(src))
                return llir(src, metadata)

            stages["llir"] = dump_then_lower

        backend.add_stages = add_stages
        return backend

    cc.make_backend = make_backend


def main(argv):
    if len(argv) != 3 or argv[0] not in ("config", "file"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] == "file":
        hook(None)
        triton.compile(argv[1], target=GPUTarget("cuda", int(argv[2]), 32))
    else:
        sys.path.insert(0, HERE)
        import grid_kernels

        cfg = json.loads(argv[1])
        hook(argv[2])
        fn, spec = grid_kernels.kernel_spec(cfg)
        opts = {"num_warps": cfg["num_warps"], "num_stages": cfg["num_stages"]}
        if cfg.get("num_ctas") is not None:
            opts["num_ctas"] = cfg["num_ctas"]
        src = grid_kernels.make_ast_source(fn, spec)
        arch = int(cfg["arch"].replace("sm", ""))
        triton.compile(src, target=GPUTarget("cuda", arch, 32), options=opts)
    print("compiled ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
