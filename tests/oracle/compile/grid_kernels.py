"""Kernel templates for the compile-outcome grid (run_grid.py).

Every kernel runs as a single program on one block, without masks, on
row-major contiguous inputs.  Products accumulate in fp32 (int8 products in
int32, whatever `out_dtype` says: `tl.dot` fixes that for integers) and the
stored result is cast back to the element type of the inputs.  Pointer arguments
are marked 16-byte aligned (tt.divisibility = 16) in whatever form the
installed Triton release expects.

Patterns (sizes are tl.constexpr arguments):

- ``dot``          C[M,N] = A[M,K] . B[K,N]
- ``chain-a``      P = (A[M,K] . B[K,N]) as dtype;  O[M,X] = P . C[N,X]
                   (the first product is operand A of the second)
- ``chain-b``      P = (A[M,K] . B[K,N]) as dtype;  O[X,N] = D[X,M] . P
                   (the first product is operand B of the second)
- ``inductor-3d``  the shape of an Inductor-generated matmul-as-reduction:
                   a [YBLOCK, XBLOCK, R0_BLOCK] index space (y outermost, as
                   Inductor orders its tiling axes), a loop over a reduction
                   axis of length RNUMEL in steps of R0_BLOCK, two 3-D loads
                   (one contiguous along the reduction axis, dim 2, the other
                   contiguous along y, dim 0), reshaped to 2-D and transposed
                   into one tl.dot; M = XBLOCK, N = YBLOCK, K = R0_BLOCK.
- ``scan``         O[M,N] = cumsum of X[M,N] along axis 0 (in fp32), cast
                   back (no K)
- ``gather``       O[M,K] = gather(S[M,N], I, axis=1) with in-range indices
                   I[M,K] computed in the kernel (tl.gather, 3.3 on)
- ``attention``    flash-attention's forward loop (AMD targets): Q[M,K]
                   loaded once; per block of N keys out of SEQ = 4096,
                   S = Q . K^T (the [K,N] tile of K[SEQ,K]) * 0.125, the
                   online softmax, O += P . V (V's [N,K] tile)
- ``attention-bias`` the same with an fp32 per-key bias kb[N] loaded in the
                   loop and added to the scaled scores
- ``desc-dot``     C[M,N] = sum over a K of 4096 in steps of K of A[M,K] . B[K,N],
                   the tiles loaded through tensor descriptors (AMD targets)

Imports only triton / triton.language (language features of 3.1 on). The one copy of the
kernels: `linear-layout repro` embeds each `grid_<pattern>` (keep them self-contained).
"""

import re

import triton
import triton.language as tl

RNUMEL = 8192  # reduction length of the inductor-3d pattern (and its row pitch)

# config dtype name -> Triton signature type
DTYPES = {"fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "fp8e4nv": "fp8e4nv", "fp8e5": "fp8e5", "int8": "i8"}

PATTERNS = ("dot", "chain-a", "chain-b", "inductor-3d", "scan", "gather", "attention", "attention-bias", "desc-dot")
SEQ = 4096  # keys the attention patterns loop over
KTOTAL = 4096  # the K the descriptor pattern loops over


@triton.jit
def grid_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    ks = tl.arange(0, K)
    a = tl.load(a_ptr + rows[:, None] * K + ks[None, :])
    b = tl.load(b_ptr + ks[:, None] * N + cols[None, :])
    acc = tl.dot(a, b, out_dtype=tl.float32)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def grid_chain_a(a_ptr, b_ptr, c_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, X: tl.constexpr):
    rows = tl.arange(0, M)
    mids = tl.arange(0, N)
    ks = tl.arange(0, K)
    xs = tl.arange(0, X)
    a = tl.load(a_ptr + rows[:, None] * K + ks[None, :])
    b = tl.load(b_ptr + ks[:, None] * N + mids[None, :])
    p = tl.dot(a, b, out_dtype=tl.float32).to(a_ptr.dtype.element_ty)  # [M, N]
    c = tl.load(c_ptr + mids[:, None] * X + xs[None, :])  # [N, X]
    o = tl.dot(p, c, out_dtype=tl.float32)  # [M, X]
    tl.store(o_ptr + rows[:, None] * X + xs[None, :], o.to(o_ptr.dtype.element_ty))


@triton.jit
def grid_chain_b(a_ptr, b_ptr, d_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, X: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    ks = tl.arange(0, K)
    xs = tl.arange(0, X)
    a = tl.load(a_ptr + rows[:, None] * K + ks[None, :])
    b = tl.load(b_ptr + ks[:, None] * N + cols[None, :])
    p = tl.dot(a, b, out_dtype=tl.float32).to(a_ptr.dtype.element_ty)  # [M, N]
    d = tl.load(d_ptr + xs[:, None] * M + rows[None, :])  # [X, M]
    o = tl.dot(d, p, out_dtype=tl.float32)  # [X, N]
    tl.store(o_ptr + xs[:, None] * N + cols[None, :], o.to(o_ptr.dtype.element_ty))


@triton.jit
def grid_inductor_3d(in0_ptr, in1_ptr, out_ptr, XBLOCK: tl.constexpr, YBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr,
                     RN: tl.constexpr):
    # in0 is [XBLOCK.., RN] row-major (x rows, reduction columns);
    # in1 is [RN, YBLOCK..] row-major (reduction rows, y columns);
    # out[x, y] = sum_r in0[x, r] * in1[r, y], stored with row pitch RN.
    y3 = tl.arange(0, YBLOCK)[:, None, None]
    x3 = tl.arange(0, XBLOCK)[None, :, None]
    r3 = tl.arange(0, R0_BLOCK)[None, None, :]
    # An int8 dot accumulates in int32 (and `tl.dot` requires its `acc` to
    # match); this `if` is resolved at compile time and emits nothing.
    if in0_ptr.dtype.element_ty == tl.int8:
        acc = tl.zeros([XBLOCK, YBLOCK], dtype=tl.int32)
    else:
        acc = tl.zeros([XBLOCK, YBLOCK], dtype=tl.float32)
    for r0_offset in range(0, RN, R0_BLOCK):
        r = r0_offset + r3
        lhs = tl.load(in0_ptr + (x3 * RN + r))  # [1, XBLOCK, R0_BLOCK], contiguous along dim 2
        rhs = tl.load(in1_ptr + (r * RN + y3))  # [YBLOCK, 1, R0_BLOCK], contiguous along dim 0
        lhs2 = tl.reshape(lhs, [XBLOCK, R0_BLOCK])
        rhs2 = tl.trans(tl.reshape(rhs, [YBLOCK, R0_BLOCK]))  # [R0_BLOCK, YBLOCK]
        acc = tl.dot(lhs2, rhs2, acc)
    res = tl.reshape(tl.trans(acc), [YBLOCK, XBLOCK, 1])
    tl.store(out_ptr + (x3 * RN + y3), res.to(out_ptr.dtype.element_ty))


@triton.jit
def grid_scan(x_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :]).to(tl.float32)
    s = tl.cumsum(x, axis=0)
    tl.store(o_ptr + rows[:, None] * N + cols[None, :], s.to(o_ptr.dtype.element_ty))


@triton.jit
def grid_gather(src_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    src = tl.load(src_ptr + rows * N + tl.arange(0, N)[None, :])  # [M, N]
    cols = tl.arange(0, K)[None, :]
    idx = (rows * 7 + cols * 3) % N  # [M, K], in range
    # `tl.gather` exists from Triton 3.3; earlier releases raise
    # AttributeError while building the kernel's IR.
    res = tl.gather(src, idx, 1)
    tl.store(o_ptr + rows * K + cols, res)


@triton.jit
def grid_attention(q_ptr, k_ptr, v_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                   SEQ: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rd = tl.arange(0, K)
    q = tl.load(q_ptr + rm[:, None] * K + rd[None, :])
    m_i = tl.full([M], float("-inf"), tl.float32)
    l_i = tl.zeros([M], tl.float32)
    acc = tl.zeros([M, K], tl.float32)
    for start in range(0, SEQ, N):
        kt = tl.load(k_ptr + (start + rn)[None, :] * K + rd[:, None])  # [K, N], contiguous along dim 0
        s = tl.dot(q, kt) * 0.125
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + (start + rn)[:, None] * K + rd[None, :])  # [N, K]
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(o_ptr + rm[:, None] * K + rd[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty))


@triton.jit
def grid_attention_bias(q_ptr, k_ptr, v_ptr, kb_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                        SEQ: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rd = tl.arange(0, K)
    q = tl.load(q_ptr + rm[:, None] * K + rd[None, :])
    m_i = tl.full([M], float("-inf"), tl.float32)
    l_i = tl.zeros([M], tl.float32)
    acc = tl.zeros([M, K], tl.float32)
    for start in range(0, SEQ, N):
        kt = tl.load(k_ptr + (start + rn)[None, :] * K + rd[:, None])
        # the per-key fp32 bias reaches P, the second dot's operand, through the softmax
        s = tl.dot(q, kt) * 0.125 + tl.load(kb_ptr + start + rn)[None, :]
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + (start + rn)[:, None] * K + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(o_ptr + rm[:, None] * K + rd[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty))


@triton.jit
def grid_desc_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, KTOTAL: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, KTOTAL], strides=[KTOTAL, 1], block_shape=[M, K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[KTOTAL, N], strides=[N, 1], block_shape=[K, N])
    acc = tl.zeros([M, N], dtype=tl.float32)
    for k in range(0, KTOTAL, K):
        acc = tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]), acc)
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[M, N])
    c_desc.store([0, 0], acc.to(c_desc.dtype))


def kernel_spec(cfg):
    """(jit function, [(arg name, type string or ('constexpr', value))]) for a config dict."""
    t = "*" + DTYPES[cfg["dtype"]]
    m, n, k, x = cfg["m"], cfg["n"], cfg["k"], cfg.get("x")
    c = lambda v: ("constexpr", v)
    p = cfg["pattern"]
    if p == "dot":
        return grid_dot, [("a_ptr", t), ("b_ptr", t), ("c_ptr", t), ("M", c(m)), ("N", c(n)), ("K", c(k))]
    if p == "chain-a":
        return grid_chain_a, [("a_ptr", t), ("b_ptr", t), ("c_ptr", t), ("o_ptr", t), ("M", c(m)), ("N", c(n)),
                              ("K", c(k)), ("X", c(x))]
    if p == "chain-b":
        return grid_chain_b, [("a_ptr", t), ("b_ptr", t), ("d_ptr", t), ("o_ptr", t), ("M", c(m)), ("N", c(n)),
                              ("K", c(k)), ("X", c(x))]
    if p == "inductor-3d":
        return grid_inductor_3d, [("in0_ptr", t), ("in1_ptr", t), ("out_ptr", t), ("XBLOCK", c(m)),
                                  ("YBLOCK", c(n)), ("R0_BLOCK", c(k)), ("RN", c(RNUMEL))]
    if p == "scan":
        return grid_scan, [("x_ptr", t), ("o_ptr", t), ("M", c(m)), ("N", c(n))]
    if p == "gather":
        return grid_gather, [("src_ptr", t), ("o_ptr", t), ("M", c(m)), ("N", c(n)), ("K", c(k))]
    if p == "attention":
        return grid_attention, [("q_ptr", t), ("k_ptr", t), ("v_ptr", t), ("o_ptr", t), ("M", c(m)), ("N", c(n)),
                                ("K", c(k)), ("SEQ", c(SEQ))]
    if p == "desc-dot":
        return grid_desc_dot, [("a_ptr", t), ("b_ptr", t), ("c_ptr", t), ("M", c(m)), ("N", c(n)), ("K", c(k)),
                               ("KTOTAL", c(KTOTAL))]
    if p == "attention-bias":
        return grid_attention_bias, [("q_ptr", t), ("k_ptr", t), ("v_ptr", t), ("kb_ptr", "*fp32"), ("o_ptr", t),
                                     ("M", c(m)), ("N", c(n)), ("K", c(k)), ("SEQ", c(SEQ))]
    raise ValueError(f"unknown pattern {p!r}")


def gpu_target(arch):
    """(backend, arch, warp size) of `GPUTarget` for a configuration's
    target: `sm90` is ("cuda", 90, 32); an AMD `gfx…` target is ("hip",
    "gfx942", wave size), 64 on CDNA (gfx9) and 32 on RDNA (gfx10 on),
    the wave size Triton's HIP backend compiles for there."""
    if arch.startswith("gfx"):
        return "hip", arch, 64 if arch.startswith("gfx9") else 32
    return "cuda", int(arch.replace("sm", "")), 32


def version_tuple(v):
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def make_ast_source(fn, args):
    """An ASTSource for `fn` with the arguments `args` ([(name, type) or
    (name, ('constexpr', value))]), pointers marked divisible by 16, in the
    form the installed release expects."""
    from triton.compiler import ASTSource
    names = list(fn.arg_names)
    if names != [a for a, _ in args]:
        raise ValueError(f"{fn.__name__}: argument list {[a for a, _ in args]} does not match {names}")
    is_const = lambda s: isinstance(s, tuple) and s[0] == "constexpr"
    aligned = [i for i, (_, s) in enumerate(args) if not is_const(s) and s.startswith("*")]
    ver = version_tuple(triton.__version__)
    if ver < (3, 2):
        # 3.1: runtime arguments in the signature (by name), constexpr values
        # by name, a dataclass AttrsDescriptor holding argument indices.
        from triton.compiler.compiler import AttrsDescriptor
        signature = {n: s for n, s in args if not is_const(s)}
        constants = {n: s[1] for n, s in args if is_const(s)}
        attrs = AttrsDescriptor(divisible_by_16=set(aligned), equal_to_1=set())
        return ASTSource(fn, signature=signature, constants=constants, attrs=attrs)
    if ver < (3, 3):
        # 3.2: same split, attributes built from {index: 16} hints.
        from triton.backends.compiler import AttrsDescriptor
        signature = {n: s for n, s in args if not is_const(s)}
        constants = {n: s[1] for n, s in args if is_const(s)}
        attrs = AttrsDescriptor.from_hints({i: 16 for i in aligned})
        return ASTSource(fn, signature=signature, constants=constants, attrs=attrs)
    # 3.3 and later: every argument in the signature ("constexpr" for the
    # constexpr ones), their values in `constexprs`, attributes keyed by an
    # argument path tuple.
    signature = {n: ("constexpr" if is_const(s) else s) for n, s in args}
    constexprs = {(i, ): s[1] for i, (_, s) in enumerate(args) if is_const(s)}
    attrs = {(i, ): [["tt.divisibility", 16]] for i in aligned}
    return ASTSource(fn, signature, constexprs=constexprs, attrs=attrs)
