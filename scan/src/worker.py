#!/usr/bin/env python3
"""linear-layout scan worker: one Triton release's front end, on the CPU.

`linear-layout scan` writes this file into its cache directory and runs it
with the Python of each Triton release it scans. It never lowers a kernel
unless asked to (`compile`): a front-end run goes through the kernel's own
JIT path (its binder, specialisation and options) with a stand-in driver
that names the target GPU, and stops when the pipeline reaches the `llir`
stage, handing back the TTGIR module the lowering would receive.

Commands (one JSON document out; requests and answers are JSON lines):

  inspect --kernel SPEC --target cuda:CAP|hip:GFX --args JSON [--path DIR]...
      import the kernel, report its parameters, its autotune configs, its
      heuristics (evaluated on the example arguments), the digest of its
      code (its source and that of everything it calls or reads), and a
      standalone copy of that code for reproducers.
  serve --kernel SPEC --target cuda:CAP|hip:GFX [--path DIR]... [--timeout S]
      import the kernel once, then answer one JSON request per stdin line,
      each in a forked child (a failed C++ assertion kills only the child):
        {"id", "op": "front_end" | "compile", "args": {...}, "kwargs": {...},
         "options": {"num_warps", "num_stages", "num_ctas", ...}}
        {"id", "op": "compile_ir", "ttgir": TEXT}
      answer: {"id", "status": "ttgir" | "ok" | "error" | "abort" |
               "timeout", "ttgir", "message", "exception", "stage",
               "signal", "seconds"}

Arguments are given as {"name": VALUE} where VALUE is a JSON number, bool,
null, or {"ptr": "fp16", "aligned": true} for a tensor (a stand-in object
with `data_ptr()` and `dtype`), {"int": "i32" | "i64"} for an integer whose
value is not known (nothing is specialised on it), {"float": "fp32"}.
"""

import ast
import hashlib
import json
import os
import re
import signal
import sys
import tempfile
import textwrap
import time
import traceback
import types

sys.dont_write_bytecode = True

WORKER_VERSION = 5

# ------------------------------------------------------------ stand-ins

TORCH_DTYPES = {
    "fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
    "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2", "fp8e4b15": "float8_e4m3fnuz",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "i1": "bool",
}


class StandInDtype:
    """What Triton's binder reads off a tensor's dtype: its str()."""

    def __init__(self, name):
        self.name = name
        self.torch = TORCH_DTYPES.get(name, name)
        self.itemsize = {"fp16": 2, "bf16": 2, "fp32": 4, "fp64": 8, "i8": 1, "u8": 1, "i16": 2, "i32": 4,
                         "i64": 8, "i1": 1, "fp8e4nv": 1, "fp8e5": 1, "fp8e4b15": 1}.get(name, 4)
        self.is_floating_point = name.startswith(("fp", "bf"))

    def __str__(self):
        return "torch." + self.torch

    __repr__ = __str__

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


class StandInTensor:
    """A tensor as the launcher sees it: a data pointer and a dtype."""

    def __init__(self, dtype, aligned=True, shape=(1 << 20, ), device="cuda"):
        self.dtype = StandInDtype(dtype)
        self._ptr = 1 << 20 if aligned else (1 << 20) + self.dtype.itemsize
        self.shape = tuple(shape)
        self.device = types.SimpleNamespace(type=device, index=0)
        self.is_cuda = True

    def data_ptr(self):
        return self._ptr

    def element_size(self):
        return self.dtype.itemsize

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def stride(self, dim=None):
        strides = []
        acc = 1
        for s in reversed(self.shape):
            strides.append(acc)
            acc *= s
        strides = tuple(reversed(strides))
        return strides if dim is None else strides[dim]

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def dim(self):
        return len(self.shape)

    def __repr__(self):
        return f"StandInTensor({self.dtype.name})"


class _Anything:
    """What a stand-in driver answers to anything it was not told about."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, item):
        return _Anything(self._name + "." + item)

    def __call__(self, *a, **k):
        return 0

    def __repr__(self):
        return f"<stand-in {self._name}>"


SHARED_MEM = {80: 166912, 86: 101376, 89: 101376, 90: 232448, 100: 232448, 120: 101376}
# AMD: LDS bytes per workgroup, and the device capability ROCm's torch reports
LDS = {"gfx950": 163840, "gfx1250": 327680}
AMD_CAPABILITY = {"gfx90a": (9, 0), "gfx942": (9, 4), "gfx950": (9, 5), "gfx1100": (11, 0), "gfx1201": (12, 0),
                  "gfx1250": (12, 5)}
AMD_NAMES = {"gfx90a": "AMD Instinct MI250X", "gfx942": "AMD Instinct MI300X", "gfx950": "AMD Instinct MI355X",
             "gfx1100": "AMD Radeon RX 7900 XTX", "gfx1201": "AMD Radeon RX 9070 XT", "gfx1250": "AMD gfx1250"}


def parse_target(text):
    """`cuda:90` -> ("cuda", 90); `hip:gfx942` -> ("hip", "gfx942")."""
    backend, _, arch = text.partition(":")
    return (backend, arch) if backend == "hip" else (backend, int(arch))


def wave_size(arch):
    """The HIP backend's warp size: 64 below gfx10 (CDNA), 32 from it."""
    return 64 if arch.startswith("gfx9") else 32


class StandInDriver:
    """A CUDA or HIP driver that names a target and owns no GPU."""

    def __init__(self, target):
        from triton.backends.compiler import GPUTarget
        backend, arch = target
        self.backend = backend
        if backend == "hip":
            warp = wave_size(arch)
            self.target = GPUTarget("hip", arch, warp)
            self.capability = AMD_CAPABILITY.get(arch, (9, 4))
            props = {"max_shared_mem": LDS.get(arch, 65536), "multiprocessor_count": 304, "max_num_regs": 65536,
                     "warpSize": warp, "sm_clock_rate": 2100000, "mem_clock_rate": 1300000, "mem_bus_width": 8192,
                     "arch": arch}
        else:
            self.target = GPUTarget("cuda", arch, 32)
            self.capability = (arch // 10, arch % 10)
            props = {"max_shared_mem": SHARED_MEM.get(arch, 101376), "multiprocessor_count": 132,
                     "max_num_regs": 65536, "warpSize": 32, "sm_clock_rate": 1755000, "mem_clock_rate": 2619000,
                     "mem_bus_width": 5120}
        self.utils = types.SimpleNamespace(get_device_properties=lambda *a, **k: dict(props),
                                           load_binary=lambda *a, **k: (0, 0, 0, 0, 0))

    def is_active(self):
        return True

    def get_current_target(self):
        return self.target

    def get_current_device(self):
        return 0

    def set_current_device(self, device):
        return None

    def get_current_stream(self, device=None):
        return 0

    def get_device_capability(self, device=None):
        return self.capability

    def get_active_torch_device(self):
        return "cuda"

    def __getattr__(self, item):
        return _Anything("driver." + item)


def install_driver(target):
    import triton.runtime.driver  # noqa: F401
    d = StandInDriver(target)
    sys.modules["triton.runtime.driver"].driver.set_active(d)
    return d


# ----------------------------------------------- a torch stand-in, if needed


class _Stub:
    """Whatever a kernel module asks of `torch` at import time, when torch is
    not installed in the release's environment: placeholders that decorate,
    subclass, compare and call without doing anything."""

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, item):
        if item.startswith("__") and item.endswith("__"):
            raise AttributeError(item)
        value = _Stub(self._name + "." + item)
        object.__setattr__(self, item, value)
        return value

    def __call__(self, *a, **k):
        if len(a) == 1 and not k and callable(a[0]) and not isinstance(a[0], _Stub):
            return a[0]
        return _Stub(self._name + "()")

    def __mro_entries__(self, bases):
        return (_StubBase, )

    def __bool__(self):
        return False

    def __iter__(self):
        return iter(())

    def __getitem__(self, item):
        return _Stub(self._name + "[]")

    def __int__(self):
        return 0

    __index__ = __int__

    def __len__(self):
        return 0

    def __str__(self):
        return self._name

    __repr__ = __str__

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)

    def __lt__(self, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __or__(self, other):
        return self

    __ror__ = __and__ = __rand__ = __or__


class _StubMeta(type):

    def __getattr__(cls, item):
        if item.startswith("__") and item.endswith("__"):
            raise AttributeError(item)
        return _Stub(cls.__name__ + "." + item)


class _StubBase(metaclass=_StubMeta):

    def __init__(self, *a, **k):
        pass

    def __getattr__(self, item):
        if item.startswith("__") and item.endswith("__"):
            raise AttributeError(item)
        return _Stub(type(self).__name__ + "." + item)


def install_torch_stand_in(target):
    """A `torch` module of placeholders, for environments without torch."""
    import importlib.abc
    import importlib.machinery

    root = types.ModuleType("torch")

    class TensorBase:
        pass

    def module(name):
        m = types.ModuleType(name)
        m.__path__ = []
        m.__getattr__ = lambda item, _n=name: _Stub(_n + "." + item)
        return m

    root = module("torch")
    root.__version__ = "2.5.0"
    root.Tensor = TensorBase
    root.dtype = StandInDtype
    for short, long in TORCH_DTYPES.items():
        setattr(root, long, StandInDtype(short))
    root.half, root.float, root.double, root.long, root.int = (StandInDtype(n) for n in ("fp16", "fp32", "fp64",
                                                                                         "i64", "i32"))
    backend, arch = target
    if backend == "hip":
        # ROCm's torch: torch.version.hip set, devices still "cuda"
        root.version = types.SimpleNamespace(hip="6.2.41133", cuda=None, __version__="2.5.0")
        name = AMD_NAMES.get(arch, "AMD GPU")
        major, minor = AMD_CAPABILITY.get(arch, (9, 4))
        extra = {"gcnArchName": arch}
    else:
        root.version = types.SimpleNamespace(hip=None, cuda="12.4", __version__="2.5.0")
        name = {90: "NVIDIA H100", 80: "NVIDIA A100", 89: "NVIDIA L40S", 86: "NVIDIA A10", 100: "NVIDIA B200",
                120: "NVIDIA RTX PRO 6000"}.get(arch, "NVIDIA GPU")
        major, minor = arch // 10, arch % 10
        extra = {}
    cuda = module("torch.cuda")
    cuda.is_available = lambda: True
    cuda.get_device_capability = lambda *a, **k: (major, minor)
    cuda.get_device_name = lambda *a, **k: name
    cuda.current_device = lambda: 0
    cuda.device_count = lambda: 1
    cuda.get_device_properties = lambda *a, **k: types.SimpleNamespace(
        name=name, major=major, minor=minor, multi_processor_count=132, total_memory=80 << 30, **extra)
    root.cuda = cuda
    made = {"torch": root, "torch.cuda": cuda}

    class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):

        def find_spec(self, fullname, path, target=None):
            if fullname == "torch" or fullname.startswith("torch."):
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            return None

        def create_module(self, spec):
            if spec.name not in made:
                made[spec.name] = module(spec.name)
            return made[spec.name]

        def exec_module(self, m):
            parent, _, child = m.__name__.rpartition(".")
            if parent in made:
                setattr(made[parent], child, m)

    sys.meta_path.insert(0, Finder())
    sys.modules["torch"] = root
    sys.modules["torch.cuda"] = cuda


def ensure_torch(target):
    """Import torch, or put the stand-in in its place; which one is used."""
    try:
        import torch  # noqa: F401
        return "torch"
    except ImportError:
        install_torch_stand_in(target)
        return "stand-in"


# ------------------------------------------------------- loading the kernel


def load_kernel(spec, paths):
    """`path/file.py::name`, `pkg.mod::name` or `pkg.mod:name` -> (object, module, how)."""
    for p in reversed(paths):
        if p not in sys.path:
            sys.path.insert(0, p)
    if "::" in spec:
        where, name = spec.rsplit("::", 1)
    elif ":" in spec and not spec.endswith(".py"):
        where, name = spec.rsplit(":", 1)
    else:
        raise SystemExit(f"kernel spec {spec!r}: expected FILE.py::KERNEL or MODULE::KERNEL")
    import importlib
    import importlib.util
    if where.endswith(".py") or os.sep in where:
        path = os.path.abspath(where)
        if not os.path.isfile(path):
            raise SystemExit(f"no such file: {where}")
        root, parts = os.path.dirname(path), [os.path.splitext(os.path.basename(path))[0]]
        while os.path.isfile(os.path.join(root, "__init__.py")):
            parts.insert(0, os.path.basename(root))
            root = os.path.dirname(root)
        if root not in sys.path:
            sys.path.insert(0, root)
        dotted = ".".join(parts)
    else:
        path, dotted = None, where
    how = "import"
    try:
        module = importlib.import_module(dotted)
    except Exception:  # noqa: BLE001
        # a package whose __init__ pulls in what this environment lacks: load
        # the parents as bare packages (their __init__ not run)
        how = "bare packages"
        for k in [k for k in sys.modules if k == dotted or k.startswith(dotted.split(".")[0] + ".")]:
            del sys.modules[k]
        parts = dotted.split(".")
        base = _package_root(dotted, path)
        for i in range(1, len(parts)):
            pkg = ".".join(parts[:i])
            if pkg not in sys.modules:
                m = types.ModuleType(pkg)
                m.__path__ = [os.path.join(base, *parts[:i])]
                sys.modules[pkg] = m
        file = path or os.path.join(base, *parts) + ".py"
        spec_ = importlib.util.spec_from_file_location(dotted, file)
        module = importlib.util.module_from_spec(spec_)
        sys.modules[dotted] = module
        spec_.loader.exec_module(module)
    obj = module
    for attr in name.split("."):
        if not hasattr(obj, attr):
            raise SystemExit(f"{where} has no {name}")
        obj = getattr(obj, attr)
    return obj, module, how


def _package_root(dotted, path):
    if path:
        return os.path.dirname(path) if "." not in dotted else os.path.abspath(
            os.path.join(os.path.dirname(path), *([".."] * (dotted.count(".")))))
    top = dotted.split(".")[0]
    for p in sys.path:
        if os.path.isdir(os.path.join(p, top)):
            return p
    raise SystemExit(f"cannot find package {top} on the path")


def layers(obj):
    """The kernel's wrappers, outermost first, and its JITFunction."""
    from triton.runtime.jit import JITFunction
    found = []
    seen = 0
    while not isinstance(obj, JITFunction):
        seen += 1
        if seen > 8 or not hasattr(obj, "fn"):
            raise SystemExit(f"{obj!r} is not a Triton kernel (@triton.jit, autotune or heuristics)")
        found.append(obj)
        obj = obj.fn
    return found, obj


# -------------------------------------------------------------- arguments


def make_value(v):
    if isinstance(v, dict):
        if "ptr" in v:
            return StandInTensor(v["ptr"], aligned=v.get("aligned", True))
        if "int" in v:
            # a value with no specialisation: not 1, not a multiple of 16
            return 2**31 + 7 if v["int"] == "i64" else 1000003
        if "float" in v:
            return 0.5
        if "tl" in v:
            import triton.language as tl
            return getattr(tl, v["tl"])
        if "tuple" in v:
            return tuple(make_value(x) for x in v["tuple"])
        if "desc" in v:
            return make_descriptor(v)
        raise ValueError(f"unknown argument value {v!r}")
    return v


class NoDescriptors(Exception):
    """The release has no host tensor descriptors."""


def make_descriptor(v):
    """A host `TensorDescriptor` over a stand-in tensor four blocks wide
    in every dimension (contiguous, 16-byte aligned), as the launcher
    sees one: its element type and block shape make the signature's
    `tensordesc<...>`."""
    try:
        from triton.tools.tensor_descriptor import TensorDescriptor
    except ImportError:
        import triton
        raise NoDescriptors(f"Triton {triton.__version__} has no host tensor descriptors "
                            "(no triton.tools.tensor_descriptor.TensorDescriptor)") from None
    unresolved = [d for d in v["block"] if not isinstance(d, int)]
    if unresolved:
        raise ValueError(f"descriptor block dimension {unresolved[0]!r} names no integer constexpr of the "
                         "configuration")
    block = list(v["block"])
    shape = [4 * max(d, 16) for d in block]
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return TensorDescriptor(StandInTensor(v["desc"], shape=shape), shape, strides, block)


def resolve_blocks(given):
    """Descriptors' named block dimensions from the constexprs known now
    (those heuristics computed included)."""
    for name, v in list(given.items()):
        if isinstance(v, dict) and "desc" in v:
            block = [given.get(d, d) if isinstance(d, str) else d for d in v["block"]]
            given[name] = dict(v, block=[getattr(d, "value", d) for d in block])


class UnknownOption(Exception):
    """A launch option the release's back end does not have."""


def check_options(options, target):
    """Every launch option must be a field of the back end's options
    (`CUDAOptions`, `HIPOptions`) in this release: Triton's own check
    names only the first, after binding; this one says which release."""
    import dataclasses
    import triton
    from triton.compiler.compiler import make_backend
    backend = make_backend(target)
    fields = {f.name for f in dataclasses.fields(type(backend.parse_options({})))}
    unknown = sorted(k for k in options if k not in fields)
    if unknown:
        raise UnknownOption(f"launch option(s) {', '.join(unknown)}: Triton {triton.__version__}'s "
                            f"{target.backend} back end has no such option")


def bind(jit, args):
    """Every parameter's value: the given ones, then the defaults."""
    import inspect
    values = {}
    for p in jit.params:
        name = p.name
        if name in args:
            values[name] = make_value(args[name])
            continue
        default = jit.signature.parameters[name].default
        if default is inspect.Parameter.empty:
            raise SystemExit(f"no value for argument {name!r} of {jit.__name__}: give it with --args")
        values[name] = default
    unknown = [k for k in args if k not in values]
    if unknown:
        raise SystemExit(f"{jit.__name__} has no argument(s) {', '.join(unknown)}")
    return values


# ------------------------------------------------------------ inspection


def config_dict(cfg):
    out = {"kwargs": {k: _plain(v) for k, v in dict(getattr(cfg, "kwargs", {}) or {}).items()}}
    for key in ("num_warps", "num_stages", "num_ctas", "maxnreg"):
        v = getattr(cfg, key, None)
        if v is not None:
            out[key] = v
    return out


def _plain(v):
    if hasattr(v, "value") and type(v).__name__ == "constexpr":
        v = v.value
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    return repr(v)


def closure(jit):
    """The code the kernel's TTGIR depends on: its source, and, transitively,
    that of every JIT function it calls and the value of every global it
    reads (Triton's own modules are left out: the release is in the key).
    Returns (entries, referenced names of the kernel, dependencies)."""
    from triton.runtime.jit import JITFunction
    entries = {}
    deps = []  # (expression as written in the kernel's module, object, kind)

    def chains(tree):
        out = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Name, ast.Attribute)):
                parts, n = [], node
                while isinstance(n, ast.Attribute):
                    parts.insert(0, n.attr)
                    n = n.value
                if isinstance(n, ast.Name):
                    parts.insert(0, n.id)
                    for i in range(1, len(parts) + 1):
                        out.add(tuple(parts[:i]))
        return out

    def visit(fn, label):
        if label in entries:
            return
        src = textwrap.dedent(fn.src)
        entries[label] = "jit:" + src + repr(
            (getattr(fn, "do_not_specialize", None), getattr(fn, "noinline", None), getattr(fn, "debug", None)))
        tree = ast.parse(src)
        local = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
        local |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        glb = fn.fn.__globals__
        for chain in sorted(chains(tree), key=len):
            if chain[0] in local or chain[0] not in glb:
                continue
            obj = glb[chain[0]]
            for part in chain[1:]:
                if isinstance(obj, types.ModuleType) and not _is_triton(obj):
                    obj = getattr(obj, part, None)
                else:
                    obj = None
                    break
            if obj is None:
                continue
            name = label + ":" + ".".join(chain)
            if isinstance(obj, JITFunction):
                if fn is jit:
                    deps.append((".".join(chain), obj, "jit"))
                visit(obj, f"{obj.fn.__module__}.{obj.fn.__qualname__}")
            elif isinstance(obj, types.ModuleType):
                if fn is jit and len(chain) == 1:
                    deps.append((chain[0], obj, "module"))
            elif _is_triton(obj):
                if fn is jit and len(chain) == 1:
                    deps.append((chain[0], obj, "triton"))
            else:
                v = _plain(obj)
                entries[name] = "value:" + repr(v)
                if fn is jit and len(chain) == 1:
                    deps.append((chain[0], obj, "value"))
        return

    visit(jit, "kernel")
    used = {c[0] for c in chains(ast.parse(textwrap.dedent(jit.src)))}
    return entries, used, deps


def _is_triton(obj):
    mod = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None) or ""
    if not isinstance(mod, str):
        return False
    return mod == "triton" or mod.startswith("triton.") or type(obj).__module__.startswith("triton.")


def standalone_source(jit):
    """A standalone copy of the kernel's code for a reproducer: the imports it
    needs from Triton, every JIT function it calls (its own module's names,
    or a namespace for a helper module), and the globals it reads."""
    from triton.runtime.jit import JITFunction
    out = ["import types", "import triton", "import triton.language as tl", ""]
    emitted = set()
    tail = []

    def emit_fn(fn, name):
        key = id(fn)
        if key in emitted:
            return
        emitted.add(key)
        # its own dependencies first
        src = textwrap.dedent(fn.src)
        tree = ast.parse(src)
        glb = fn.fn.__globals__
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in glb and node.id != name:
                emit_global(node.id, glb[node.id], glb)
        deco = "@triton.jit"
        if getattr(fn, "noinline", False):
            deco = "@triton.jit(noinline=True)"
        out.append(deco)
        out.append(re.sub(r"^def\s+\w+", f"def {name}", src, count=1))
        out.append("")

    def emit_global(name, obj, glb):
        if name in {"triton", "tl", "types"} or name in done_names:
            return
        done_names.add(name)
        if isinstance(obj, JITFunction):
            emit_fn(obj, name)
        elif isinstance(obj, types.ModuleType):
            if _is_triton(obj):
                out.insert(3, f"import {obj.__name__} as {name}")
            else:
                members = []
                for attr in sorted(dir(obj)):
                    m = getattr(obj, attr, None)
                    if isinstance(m, JITFunction):
                        local = f"_{name}_{attr}"
                        emit_fn(m, local)
                        members.append(f"{attr}={local}")
                tail.append(f"{name} = types.SimpleNamespace({', '.join(members)})")
                out.append(tail.pop())
        elif _is_triton(obj):
            mod = getattr(obj, "__module__", None)
            qual = getattr(obj, "__name__", None)
            if mod and qual:
                out.insert(3, f"from {mod} import {qual} as {name}")
        elif type(obj).__name__ == "constexpr":
            out.append(f"{name} = tl.constexpr({obj.value!r})")
        elif isinstance(obj, (bool, int, float, type(None))):
            out.append(f"{name} = tl.constexpr({obj!r})")
        elif isinstance(obj, str):
            out.append(f"{name} = {obj!r}")

    done_names = set()
    emit_fn(jit, jit.fn.__name__)
    return "\n".join(out).rstrip() + "\n"


def inspect_kernel(args):
    install_driver(args.target)
    torch = ensure_torch(args.target)
    obj, module, how = load_kernel(args.kernel, args.path)
    wrappers, jit = layers(obj)
    from triton.runtime.autotuner import Autotuner, Heuristics
    given = json.loads(args.args) if args.args else {}
    params = []
    for p in jit.params:
        import inspect as _inspect
        default = jit.signature.parameters[p.name].default
        params.append({
            "name": p.name, "constexpr": bool(p.is_constexpr),
            "do_not_specialize": bool(getattr(p, "do_not_specialize", False)),
            "default": None if default is _inspect.Parameter.empty else _plain(default),
            "has_default": default is not _inspect.Parameter.empty,
        })
    autotune = []
    heuristics = []
    for w in wrappers:
        if isinstance(w, Autotuner):
            autotune = [config_dict(c) for c in w.configs]
        elif isinstance(w, Heuristics):
            heuristics.append(w)
    entries, used, _ = closure(jit)
    digest = hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()
    files = sorted({os.path.abspath(f) for f in (_file_of(jit), *[_file_of(o) for o in _jit_deps(jit)]) if f})
    result = {
        "worker": WORKER_VERSION, "kernel": jit.fn.__name__, "module": module.__name__, "import": how,
        "triton": __import__("triton").__version__, "params": params, "autotune": autotune,
        "heuristics": [sorted(h.values) for h in heuristics], "digest": digest, "used": sorted(used),
        "files": files, "source": standalone_source(jit), "torch": torch,
    }
    # heuristics evaluated per configuration of the space the caller asks about
    if args.configs:
        evaluated = []
        for cfg in json.loads(args.configs):
            evaluated.append(evaluate_heuristics(heuristics, jit, given, cfg))
        result["heuristic_values"] = evaluated
    return result


def _file_of(obj):
    try:
        return sys.modules[obj.fn.__module__].__file__
    except (AttributeError, KeyError):
        return None


def _jit_deps(jit):
    from triton.runtime.jit import JITFunction
    out, todo, seen = [], [jit], set()
    while todo:
        fn = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        out.append(fn)
        for v in fn.fn.__globals__.values():
            if isinstance(v, JITFunction) and v.fn.__name__ in fn.src:
                todo.append(v)
    return out


def evaluate_heuristics(heuristics, jit, given, cfg):
    """{name: value} of every heuristic, for one configuration (kwargs and
    options), on the example arguments; an error names the heuristic."""
    if not heuristics:
        return {}
    given = {**given, **cfg.get("kwargs", {})}
    resolve_blocks(given)
    values = bind_partial(jit, given)
    values.update({k: v for k, v in cfg.get("kwargs", {}).items()})
    for k in ("num_warps", "num_stages", "num_ctas"):
        if k in cfg:
            values[k] = cfg[k]
    out = {}
    # innermost heuristics see the outer ones' values
    for h in reversed(heuristics):
        for name, fn in h.values.items():
            try:
                out[name] = _plain(fn(dict(values)))
            except Exception as e:  # noqa: BLE001
                return {"error": f"heuristic {name}: {type(e).__name__}: {e}"}
            values[name] = out[name]
    return out


def bind_partial(jit, given):
    values = {}
    for p in jit.params:
        v = given.get(p.name)
        # a descriptor sized by a heuristic's constexpr is not made yet
        if isinstance(v, dict) and "desc" in v and not all(isinstance(d, int) for d in v["block"]):
            continue
        if p.name in given:
            values[p.name] = make_value(v)
    return values


# -------------------------------------------------------- the front end

EXC_MARK = "SCAN_WORKER_EXCEPTION: "


class FrontEndDone(Exception):
    pass


def hook_pipeline(mode, ttgir_path, status_path, ptxas=False):
    """Wrap every backend's stages: record each stage's name; at `llir`,
    write the TTGIR and stop (`front_end`) or go on (`compile`, with ptxas
    replaced by nothing: every layout decision is made before it)."""
    import triton.compiler.compiler as cc
    orig = cc.make_backend

    def make_backend(target):
        backend = orig(target)
        orig_add = backend.add_stages
        if target.backend == "hip":
            # 3.4 asks ROCm's ld.lld (absent here) for the cache key
            backend.hash = lambda: str(target)

        def add_stages(stages, *rest, **kw):
            orig_add(stages, *rest, **kw)
            if "cubin" in stages and not ptxas:
                stages["cubin"] = lambda src, metadata: b""
            if "hsaco" in stages:
                # linked by ROCm's ld.lld; no layout is decided there
                stages["hsaco"] = lambda src, metadata: b""
            for ext, fn in list(stages.items()):

                def run(src, metadata, _fn=fn, _ext=ext):
                    with open(status_path, "w") as f:
                        f.write(_ext)
                    if _ext == "llir":
                        with open(ttgir_path, "w") as f:
                            f.write(str(src))
                        if mode == "front_end":
                            raise FrontEndDone()
                    return _fn(src, metadata)

                stages[ext] = run

        backend.add_stages = add_stages
        return backend

    cc.make_backend = make_backend


# ------------------------------------------------------------ shared TTIR

# Options the code generator never reads: configurations that differ only in
# these share one TTIR (`tl.extra.cuda.num_warps()` reads num_warps, so it is
# not one of them). Checked on every release's `triton/language` and
# `compiler/code_generator.py`: they name num_stages only as `tl.range`'s
# argument, num_ctas and maxnreg not at all.
NOT_IN_TTIR = ("num_stages", "num_ctas", "maxnreg")
# the texts a worker keeps (tens of KB each), oldest dropped first
SHARED_TTIR_LIMIT = 256


def ttir_key(src, options):
    """What the code generator's output depends on: the specialisation
    (`ASTSource.hash()`: the code, signature, constants and attributes) and
    every option it may read."""
    fields = sorted((k, repr(v)) for k, v in vars(options).items() if k not in NOT_IN_TTIR)
    return hashlib.sha256(f"{src.hash()}|{fields}".encode()).hexdigest()


def share_ttir(shared, work):
    """In the child: answer `ASTSource.make_ir` from a TTIR this worker
    generated before for the same key (parsed back, locations included, so
    every later stage sees the module the code generator would have made),
    and leave a newly generated one in `work` for the parent to keep.
    Gluon's source class has its own `make_ir` and is never shared."""
    from triton.compiler.compiler import ASTSource
    from triton._C.libtriton import ir
    generate = ASTSource.make_ir

    def make_ir(self, *a, **kw):
        options = next((x for x in a if hasattr(x, "num_warps")), kw.get("options"))
        context = a[-1] if a else kw["context"]
        key = ttir_key(self, options) if options is not None else None
        if key is not None and key in shared:
            path = os.path.join(work, "shared.ttir")
            with open(path, "w") as f:
                f.write(shared[key])
            module = ir.parse_mlir_module(path, context)
            module.context = context
            return module
        module = generate(self, *a, **kw)
        if key is not None:
            with open(os.path.join(work, "ttir"), "w") as f:
                f.write(str(module))
            with open(os.path.join(work, "ttir.key"), "w") as f:
                f.write(key)
        return module

    ASTSource.make_ir = make_ir


def keep_ttir(shared, work):
    """In the parent: keep the TTIR the child generated, if any."""
    try:
        with open(os.path.join(work, "ttir.key")) as f:
            key = f.read().strip()
        with open(os.path.join(work, "ttir")) as f:
            text = f.read()
    except OSError:
        return
    shared[key] = text
    while len(shared) > SHARED_TTIR_LIMIT:
        shared.pop(next(iter(shared)))


def run_job(state, job, ttgir_path, status_path):
    import triton
    op = job["op"]
    hook_pipeline("front_end" if op == "front_end" else "compile", ttgir_path, status_path, job.get("ptxas", False))
    with open(status_path, "w") as f:
        f.write("ast")
    if op == "compile_ir":
        path = os.path.join(os.path.dirname(ttgir_path), "module.ttgir")
        with open(path, "w") as f:
            f.write(job["ttgir"])
        triton.compile(path, target=state["driver"].target)
        return
    jit = state["jit"]
    given = {**job.get("args", {}), **job.get("kwargs", {})}
    options = {k: v for k, v in job.get("options", {}).items() if v is not None}
    if job.get("heuristics") and state.get("heuristics"):
        # what @triton.heuristics computes, outermost first, from the
        # arguments, the configuration's constexprs and its options
        # a descriptor whose block a heuristic sizes is made after it
        seen = {k: make_value(v) for k, v in given.items()
                if not (isinstance(v, dict) and "desc" in v and not all(isinstance(d, int) for d in v["block"]))}
        seen.update(options)
        for h in state["heuristics"]:
            for name, fn in h.values.items():
                try:
                    value = fn(dict(seen))
                except Exception as e:  # noqa: BLE001
                    raise RuntimeError(f"heuristic {name} could not be evaluated on the example arguments "
                                       f"({type(e).__name__}: {e}); give {name} with --constexpr") from None
                seen[name] = value
                given[name] = value
                state.setdefault("computed", {})[name] = _plain(value)
    check_options(options, state["driver"].target)
    resolve_blocks(given)
    values = bind(jit, given)
    share_ttir(state.setdefault("ttir", {}), os.path.dirname(ttgir_path))
    jit.run(grid=(1, ), warmup=True, **values, **options)


def summary(e):
    while e.__cause__ is not None:
        e = e.__cause__
    lines = [ln.rstrip() for ln in str(e).splitlines() if ln.strip() and not ln.strip().startswith("^")]
    msg = lines[-1].strip() if lines else ""
    return f"{type(e).__name__}: {msg}" if msg else type(e).__name__


def child_main(state, job, work, timeout):
    """In the forked child: run the job, write {"done"} or {"exception"}."""
    err = os.open(os.path.join(work, "stderr"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(err, 2)
    os.dup2(err, 1)
    signal.alarm(max(1, int(timeout)))
    result = {}
    try:
        run_job(state, job, os.path.join(work, "ttgir"), os.path.join(work, "status"))
        result["done"] = True
    except FrontEndDone:
        result["done"] = True
    except BaseException as e:  # noqa: BLE001
        traceback.print_exc()
        sys.stderr.write(EXC_MARK + summary(e) + "\n")
        result["exception"] = summary(e)
    result["heuristics"] = state.get("computed", {})
    sys.stderr.flush()
    sys.stdout.flush()
    with open(os.path.join(work, "result.json"), "w") as f:
        json.dump(result, f)
    os._exit(0)


def strip_path(line):
    line = re.sub(r"^(?:[^\s:]+: )?/(?:[^\s:]*/)?([^\s/:]+:\d+:)", r"\1", line)
    return re.sub(r"/(?:[\w.+-]+/)+([\w.+-]+\"?:\d+)", r"\1", line)


def key_line(stderr):
    lines = [ln.rstrip() for ln in stderr.splitlines() if ln.strip()]
    for i, ln in enumerate(lines):
        if ln.startswith("UNREACHABLE executed at"):
            before = lines[i - 1].strip() + " -- " if i > 0 else ""
            return (before + strip_path(ln.strip()))[:500]
    for pat in (r"Assertion .* failed", r"LLVM ERROR", r"terminate called after throwing", r"(^|\s)error: "):
        for ln in lines:
            if re.search(pat, ln):
                return strip_path(ln.strip())[:500]
    for ln in reversed(lines):
        if ln.startswith(EXC_MARK):
            return ln[len(EXC_MARK):].strip()[:500]
    return (lines[-1].strip() if lines else "")[:500]


def answer(state, job, timeout):
    work = tempfile.mkdtemp(prefix="ll-scan-")
    t0 = time.time()
    os.environ["TRITON_CACHE_DIR"] = os.path.join(work, "cache")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            child_main(state, job, work, timeout)
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    secs = round(time.time() - t0, 3)

    def read(name):
        try:
            with open(os.path.join(work, name)) as f:
                return f.read()
        except OSError:
            return None

    keep_ttir(state.setdefault("ttir", {}), work)
    stderr = read("stderr") or ""
    result = json.loads(read("result.json") or "{}")
    ttgir = read("ttgir")
    stage = (read("status") or "").strip() or None
    out = {"id": job.get("id"), "seconds": secs, "stage": stage, "signal": None, "message": "", "exception": None,
           "heuristics": result.get("heuristics", {})}
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        out["signal"] = sig
        if sig == signal.SIGALRM:
            out["status"], out["message"] = "timeout", f"no result after {timeout} s"
        else:
            out["status"] = "abort"
            out["message"] = key_line(stderr) or f"killed by signal {sig}"
    elif result.get("done"):
        if job["op"] == "front_end":
            out["status"] = "ttgir" if ttgir is not None else "error"
            if ttgir is None:
                out["message"] = "the pipeline ended before the TTGIR stage"
        else:
            out["status"] = "ok"
    elif "exception" in result:
        out["status"] = "error"
        out["exception"] = result["exception"]
        out["message"] = key_line(stderr)
    else:
        out["status"] = "abort"
        out["message"] = key_line(stderr) or f"the child exited with {os.WEXITSTATUS(status)}"
    if ttgir is not None and job.get("want_ttgir", True):
        out["ttgir"] = ttgir
    if out["status"] not in ("ttgir", "ok"):
        out["stderr_tail"] = [strip_path(ln)[:500] for ln in stderr.splitlines() if ln.strip()][-6:]
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    return out


def warm_caches(target):
    """Fill, once in this process, what every forked child would otherwise
    compute again and lose. None of it changes what is compiled:
    - `triton_key()`, the name of the compiler's build in cache keys, hashes
      every file of the compiler and back ends (0.4 s, lru-cached; in
      `triton.compiler.compiler` up to 3.4, `triton.runtime.cache` from 3.5).
      Every job compiles into a cache directory of its own that nothing reads
      again, so the key only has to be a name: the release's version is one.
    - The back end's hash runs `ptxas --version` (lru-cached per arch).
    - The JIT's binder imports Gluon lazily (3.4 on)."""
    import importlib
    import triton
    build = f"linear-layout-scan-{triton.__version__}"
    for name in ("triton.runtime.cache", "triton.compiler.compiler", "triton.runtime.autotuner"):
        try:
            module = importlib.import_module(name)
        except Exception:  # noqa: BLE001 -- a module this release lacks
            continue
        if hasattr(module, "triton_key"):
            module.triton_key = lambda: build
    try:
        from triton.compiler.compiler import make_backend
        make_backend(target).hash()
    except Exception:  # noqa: BLE001 -- only a cache (3.4's HIP hash asks an absent ld.lld): the child pays
        pass
    try:
        import triton.experimental.gluon  # noqa: F401
    except Exception:  # noqa: BLE001 -- absent before 3.4
        pass


# ------------------------------------------------------------ the channel

# The protocol's own file descriptors, apart from the kernel's: set up by
# private_channel() before any user code runs.
CHANNEL = {"in": None, "out": None}


def private_channel():
    """Move the protocol off fds 0 and 1: whatever the kernel's module prints
    (Python's print or C code writing to fd 1) goes to stderr, and what it
    reads from stdin is empty, so neither can corrupt or steal a message."""
    CHANNEL["out"] = os.fdopen(os.dup(1), "w", buffering=1)
    CHANNEL["in"] = os.fdopen(os.dup(0), "r")
    sys.stdout.flush()
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = sys.stderr


def send(obj):
    """One protocol message: a JSON line on the private channel."""
    CHANNEL["out"].write(json.dumps(obj) + "\n")
    CHANNEL["out"].flush()


class ImportTimeout(BaseException):
    """Not an Exception: the import's own fallbacks (`except Exception`)
    must not catch it and start over."""


def within(seconds, what, fn, *a):
    """fn(*a), or ImportTimeout after `seconds`: a Python-level alarm gives a
    clean message; faulthandler's watchdog thread ends the process a little
    later if the time is spent in C code the alarm cannot interrupt."""
    import faulthandler

    def expired(signum, frame):
        raise ImportTimeout(f"{what} took more than {seconds:g} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(max(1, int(seconds)))
    faulthandler.dump_traceback_later(seconds + 10, exit=True)
    try:
        return fn(*a)
    finally:
        signal.alarm(0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, old)


def serve(args):
    state = {"driver": install_driver(args.target), "torch": ensure_torch(args.target)}
    warm_caches(args.target)
    load_error = None
    if args.kernel:
        try:
            obj, _, _ = within(args.timeout, f"importing {args.kernel}", load_kernel, args.kernel, args.path)
            wrappers, state["jit"] = layers(obj)
            from triton.runtime.autotuner import Heuristics
            state["heuristics"] = [w for w in wrappers if isinstance(w, Heuristics)]
        except BaseException as e:  # noqa: BLE001
            load_error = summary(e) if not isinstance(e, SystemExit) else str(e)
    import triton
    send({"hello": WORKER_VERSION, "triton": triton.__version__, "error": load_error, "torch": state["torch"]})
    for line in CHANNEL["in"]:
        if not line.strip():
            continue
        job = json.loads(line)
        if load_error is not None and job["op"] != "compile_ir":
            out = {"id": job.get("id"), "status": "error", "stage": "import", "message": load_error,
                   "exception": load_error, "seconds": 0.0, "signal": None}
        else:
            out = answer(state, job, job.get("timeout", args.timeout))
        send(out)


# ------------------------------------------------------------ --call


class Captured(Exception):
    pass


REVERSE_DTYPES = {v: k for k, v in TORCH_DTYPES.items()}


def describe(v):
    """A launch argument as scan's arguments write it."""
    if type(v).__name__ == "TensorDescriptor" and hasattr(v, "block_shape") and hasattr(v, "base"):
        base = describe(v.base)
        return {"desc": base["ptr"], "block": [int(d) for d in v.block_shape]}
    if hasattr(v, "data_ptr") and hasattr(v, "dtype"):
        name = str(v.dtype).split(".")[-1]
        return {"ptr": REVERSE_DTYPES.get(name, name), "aligned": v.data_ptr() % 16 == 0}
    if type(v).__name__ == "dtype" and type(v).__module__.startswith("triton"):
        return {"tl": str(v).split(".")[-1] if "." in str(v) else v.name}
    if type(v).__name__ == "constexpr":
        return describe(v.value)
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    raise ValueError(f"cannot describe the argument {v!r}")


def capture(args):
    """Run `module:function`, which launches kernels; answer the first
    launch: the kernel as `module::name`, its arguments and options."""
    install_driver(args.target)
    ensure_torch(args.target)
    from triton.runtime.autotuner import Autotuner, Heuristics
    from triton.runtime.jit import JITFunction
    seen = {}

    def grab(self, *a, **kw):
        if "obj" not in seen:
            seen.update(obj=self, args=a, kwargs=kw)
        raise Captured()

    for cls in (JITFunction, Autotuner, Heuristics):
        cls.run = grab
    where, fn = args.call.rsplit(":", 1)
    import importlib
    for p in reversed(args.path):
        sys.path.insert(0, p)
    mod = importlib.import_module(where)
    try:
        getattr(mod, fn)()
    except Captured:
        pass
    if "obj" not in seen:
        raise SystemExit(f"{args.call} launched no Triton kernel")
    obj = seen["obj"]
    _, jit = layers(obj)
    module = sys.modules[jit.fn.__module__]
    name = next((k for k, v in vars(module).items() if v is obj), jit.fn.__name__)
    kw = dict(seen["kwargs"])
    kw.pop("grid", None)
    kw.pop("warmup", None)
    # every keyword that is not a parameter is a launch option
    options = {k: kw.pop(k) for k in list(kw) if k not in jit.arg_names}
    values = dict(zip(jit.arg_names, seen["args"]))
    values.update(kw)
    return {"kernel": f"{module.__name__}::{name}", "args": {k: describe(v) for k, v in values.items()},
            "options": options, "file": getattr(module, "__file__", None)}


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=("inspect", "serve", "version", "capture"))
    ap.add_argument("--call")
    ap.add_argument("--kernel")
    ap.add_argument("--target", default="cuda:90")
    ap.add_argument("--args")
    ap.add_argument("--configs")
    ap.add_argument("--path", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    args.target = parse_target(args.target)
    private_channel()
    if args.cmd == "version":
        import triton
        send({"worker": WORKER_VERSION, "triton": triton.__version__})
        return 0
    if args.cmd in ("inspect", "capture"):
        what = inspect_kernel if args.cmd == "inspect" else capture
        try:
            send(within(args.timeout, f"{args.cmd} of {args.kernel or args.call}", what, args))
        except SystemExit as e:
            send({"error": str(e)})
        except BaseException as e:  # noqa: BLE001
            send({"error": summary(e), "traceback": traceback.format_exc()[-3000:]})
        return 0
    serve(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
