"""Kernels of the 3.7-3.9 families (families.py): the constructs current kernels use on Hopper and
Blackwell, each written small enough to read, with its sizes as constexpr arguments.

Every kernel runs as one program over one tile (or a short loop of tiles), without masks, on
row-major contiguous inputs; pointers are 16-byte aligned. A kernel is built by `spec(family,
params)`, which returns the jit function and its argument list in grid_kernels.make_ast_source's
form: [(name, signature type) or (name, ("constexpr", value))]. A host tensor descriptor is the
signature type `tensordesc<fp16[64,64]>` (3.4 on).

Families (the `family` of a configuration) and their parameters:

- ``dot_scaled``     C[M,N] = dot_scaled(A, sa, FA, B, sb, FB): FA, FB in e2m1 (two values a
                     byte, packed along K unless PACK_A / PACK_B is 0), e4m3, e5m2, bf16 (no
                     scale); scales are e8m0 bytes, one per 32 values along K. B=1 is rank 2;
                     B>1 a batched (rank-3) product
- ``ws_matmul``      C[M,N] += A[M,K] . B (B [K,N], or [N,K] and transposed when TRANS_B) over
                     K in a `tl.range(..., warp_specialize=WS)` loop, operands from host TMA
                     descriptors (DESC=host) or in-kernel `tl.make_tensor_descriptor`
                     (DESC=device) or pointers (DESC=none); dtype fp16, bf16, fp8e4nv, int8
- ``persistent``     the persistent matmul: a `tl.range(pid, tiles, NUM_SMS, flatten=FLAT,
                     warp_specialize=WS)` loop over output tiles, an inner K loop, TMA operands
- ``attention``      flash-attention forward over one (batch, head) with Q, K, V tiles from
                     TMA descriptors or pointers, an online softmax, `warp_specialize=WS`
- ``reduce``         O = sum or max of X[M,N] along AXIS (1-D result)
- ``trans_store``    Y[N,M] = X[M,N]^T stored through tl.trans (the DSMEM conversion with CTAs)
- ``join_split``     tl.join of two [M,N] tiles, then tl.split of the result, stored
- ``bmm``            C[B,M,N] = A[B,M,K] . B[B,K,N] (rank-3 tl.dot)
- ``topk``           the K largest of each row of X[M,N] (tl.topk)
- ``tma_rank``       one tile loaded through a descriptor of rank RANK (2, 3 or 4: block [LEAD, C],
                     [LEAD, R, C] or [1, LEAD, R, C]), host (DESC=host) or in-kernel (DESC=device,
                     rank 3), its leading dims reshaped away (FLAT=1, the front end folds the
                     reshape of unit dims into the load) or kept, stored through pointers; DOT=1:
                     the [1, M, K] tile flattened is operand A of a dot (sglang's fused MoE GEMM)
- ``ws_norm``        a row-block RMS norm with a per-block quantization, its column loop in a
                     `tl.range(..., warp_specialize=True)` (triton #10901's shape)
"""

import triton
import triton.language as tl

DTYPES = {"fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "fp8e4nv": "fp8e4nv", "fp8e5": "fp8e5", "int8": "i8",
          "uint8": "u8"}


def const(v):
    return ("constexpr", v)


# ---------------------------------------------------------------- dot_scaled


@triton.jit
def k_dot_scaled(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                 FA: tl.constexpr, FB: tl.constexpr, PACK_A: tl.constexpr, PACK_B: tl.constexpr,
                 SCALE_A: tl.constexpr, SCALE_B: tl.constexpr):
    # A: [M, K / DIV_A] or [M / 2, K] packed along M; B: [K / DIV_B, N] or [K, N / 2]
    DIV_A: tl.constexpr = 2 if (FA == "e2m1" and PACK_A) else 1
    DIV_B: tl.constexpr = 2 if (FB == "e2m1" and PACK_B) else 1
    AM: tl.constexpr = M // 2 if (FA == "e2m1" and not PACK_A) else M
    BN: tl.constexpr = N // 2 if (FB == "e2m1" and not PACK_B) else N
    ra = tl.arange(0, AM)
    ka = tl.arange(0, K // DIV_A)
    kb = tl.arange(0, K // DIV_B)
    cb = tl.arange(0, BN)
    a = tl.load(a_ptr + ra[:, None] * (K // DIV_A) + ka[None, :])
    b = tl.load(b_ptr + kb[:, None] * BN + cb[None, :])
    ks = tl.arange(0, K // 32)
    if SCALE_A:
        sa = tl.load(as_ptr + tl.arange(0, M)[:, None] * (K // 32) + ks[None, :])
    else:
        sa = None
    if SCALE_B:
        sb = tl.load(bs_ptr + tl.arange(0, N)[:, None] * (K // 32) + ks[None, :])
    else:
        sb = None
    c = tl.dot_scaled(a, sa, FA, b, sb, FB, lhs_k_pack=PACK_A, rhs_k_pack=PACK_B)
    tl.store(c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


@triton.jit
def k_dot_scaled_batched(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, BATCH: tl.constexpr, M: tl.constexpr,
                         N: tl.constexpr, K: tl.constexpr, FA: tl.constexpr, FB: tl.constexpr):
    DIV_A: tl.constexpr = 2 if FA == "e2m1" else 1
    DIV_B: tl.constexpr = 2 if FB == "e2m1" else 1
    bi = tl.arange(0, BATCH)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    ka = tl.arange(0, K // DIV_A)
    kb = tl.arange(0, K // DIV_B)
    ks = tl.arange(0, K // 32)
    a = tl.load(a_ptr + bi * (M * (K // DIV_A)) + rm * (K // DIV_A) + ka[None, None, :])
    b = tl.load(b_ptr + bi * ((K // DIV_B) * N) + kb[None, :, None] * N + rn)
    sa = tl.load(as_ptr + bi * (M * (K // 32)) + rm * (K // 32) + ks[None, None, :])
    sb = tl.load(bs_ptr + bi * (N * (K // 32)) + tl.arange(0, N)[None, :, None] * (K // 32) + ks[None, None, :])
    c = tl.dot_scaled(a, sa, FA, b, sb, FB)
    tl.store(c_ptr + bi * (M * N) + rm * N + rn, c)


def _scaled_elem(fmt):
    return {"e2m1": "u8", "e4m3": "fp8e4nv", "e5m2": "fp8e5", "bf16": "bf16", "fp16": "fp16"}[fmt]


def spec_dot_scaled(p):
    fa, fb = p["fa"], p["fb"]
    sa = fa not in ("bf16", "fp16")
    sb = fb not in ("bf16", "fp16")
    common = [("a_ptr", "*" + _scaled_elem(fa)), ("as_ptr", "*u8"), ("b_ptr", "*" + _scaled_elem(fb)),
              ("bs_ptr", "*u8"), ("c_ptr", "*fp32")]
    if p.get("batch", 1) > 1:
        return k_dot_scaled_batched, common + [("BATCH", const(p["batch"])), ("M", const(p["m"])),
                                                ("N", const(p["n"])), ("K", const(p["k"])), ("FA", const(fa)),
                                                ("FB", const(fb))]
    return k_dot_scaled, common + [("M", const(p["m"])), ("N", const(p["n"])), ("K", const(p["k"])),
                                   ("FA", const(fa)), ("FB", const(fb)), ("PACK_A", const(p.get("pack_a", 1) == 1)),
                                   ("PACK_B", const(p.get("pack_b", 1) == 1)), ("SCALE_A", const(sa)),
                                   ("SCALE_B", const(sb))]


# ---------------------------------------------------------------- warp-specialized matmul


@triton.jit
def k_ws_matmul_host(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                     TRANS_B: tl.constexpr, WS: tl.constexpr, STAGES: tl.constexpr, ACC: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=ACC)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES, warp_specialize=WS):
        a = a_desc.load([pid_m * BM, k * BK])
        if TRANS_B:
            b = b_desc.load([pid_n * BN, k * BK]).T
        else:
            b = b_desc.load([k * BK, pid_n * BN])
        acc = tl.dot(a, b, acc, out_dtype=ACC)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


@triton.jit
def k_ws_matmul_device(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                       TRANS_B: tl.constexpr, WS: tl.constexpr, STAGES: tl.constexpr, ACC: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    if TRANS_B:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=ACC)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES, warp_specialize=WS):
        a = a_desc.load([pid_m * BM, k * BK])
        if TRANS_B:
            b = b_desc.load([pid_n * BN, k * BK]).T
        else:
            b = b_desc.load([k * BK, pid_n * BN])
        acc = tl.dot(a, b, acc, out_dtype=ACC)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


@triton.jit
def k_ws_matmul_ptr(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                    TRANS_B: tl.constexpr, WS: tl.constexpr, STAGES: tl.constexpr, ACC: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=ACC)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES, warp_specialize=WS):
        a = tl.load(a_ptr + rm[:, None] * K + (k * BK + rk)[None, :])
        if TRANS_B:
            b = tl.load(b_ptr + rn[:, None] * K + (k * BK + rk)[None, :]).T
        else:
            b = tl.load(b_ptr + (k * BK + rk)[:, None] * 4096 + rn[None, :])
        acc = tl.dot(a, b, acc, out_dtype=ACC)
    tl.store(c_ptr + rm[:, None] * 4096 + rn[None, :], acc.to(c_ptr.dtype.element_ty))


def _acc(dtype):
    return tl.int32 if dtype == "int8" else tl.float32


def _out(dtype):
    return {"int8": "i32", "fp8e4nv": "fp16", "fp8e5": "fp16"}.get(dtype, DTYPES[dtype])


def spec_ws_matmul(p):
    d = DTYPES[p["dtype"]]
    bm, bn, bk = p["m"], p["n"], p["k"]
    tb = p.get("trans_b", 0) == 1
    tail = [("BM", const(bm)), ("BN", const(bn)), ("BK", const(bk)), ("TRANS_B", const(tb)),
            ("WS", const(p.get("ws", 1) == 1)), ("STAGES", const(p.get("stages", 3))), ("ACC", const(_acc(p["dtype"])))]
    desc = p.get("desc", "host")
    if desc == "host":
        bshape = f"[{bn},{bk}]" if tb else f"[{bk},{bn}]"
        return k_ws_matmul_host, [("a_desc", f"tensordesc<{d}[{bm},{bk}]>"), ("b_desc", f"tensordesc<{d}{bshape}>"),
                                  ("c_desc", f"tensordesc<{_out(p['dtype'])}[{bm},{bn}]>"), ("K", "i32")] + tail
    if desc == "device":
        return k_ws_matmul_device, [("a_ptr", "*" + d), ("b_ptr", "*" + d), ("c_ptr", "*" + _out(p["dtype"])),
                                    ("M", "i32"), ("N", "i32"), ("K", "i32")] + tail
    return k_ws_matmul_ptr, [("a_ptr", "*" + d), ("b_ptr", "*" + d), ("c_ptr", "*" + _out(p["dtype"])),
                             ("K", "i32")] + tail


# ---------------------------------------------------------------- persistent matmul


@triton.jit
def k_persistent(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                 NUM_SMS: tl.constexpr, FLAT: tl.constexpr, WS: tl.constexpr, EPI_SPLIT: tl.constexpr):
    start = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    for tile in tl.range(start, tiles_m * tiles_n, NUM_SMS, flatten=FLAT, warp_specialize=WS):
        pid_m = tile // tiles_n
        pid_n = tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(k_tiles):
            a = a_desc.load([pid_m * BM, k * BK])
            b = b_desc.load([pid_n * BN, k * BK])
            acc = tl.dot(a, b.T, acc)
        if EPI_SPLIT:
            acc = tl.reshape(acc, (BM, 2, BN // 2))
            acc = tl.permute(acc, (0, 2, 1))
            c0, c1 = tl.split(acc)
            c_desc.store([pid_m * BM, pid_n * BN], c0.to(c_desc.dtype))
            c_desc.store([pid_m * BM, pid_n * BN + BN // 2], c1.to(c_desc.dtype))
        else:
            c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


def spec_persistent(p):
    d = DTYPES[p["dtype"]]
    bm, bn, bk = p["m"], p["n"], p["k"]
    split = p.get("epi_split", 0) == 1
    cbn = bn // 2 if split else bn
    return k_persistent, [("a_desc", f"tensordesc<{d}[{bm},{bk}]>"), ("b_desc", f"tensordesc<{d}[{bn},{bk}]>"),
                          ("c_desc", f"tensordesc<{_out(p['dtype'])}[{bm},{cbn}]>"), ("M", "i32"), ("N", "i32"),
                          ("K", "i32"), ("BM", const(bm)), ("BN", const(bn)), ("BK", const(bk)),
                          ("NUM_SMS", const(132)), ("FLAT", const(p.get("flat", 0) == 1)),
                          ("WS", const(p.get("ws", 0) == 1)), ("EPI_SPLIT", const(split))]


# ---------------------------------------------------------------- attention


@triton.jit
def k_attention(q_desc, k_desc, v_desc, o_desc, sm_scale, N_CTX, BM: tl.constexpr, BN: tl.constexpr,
                HEAD: tl.constexpr, WS: tl.constexpr, STAGES: tl.constexpr):
    start_m = tl.program_id(0)
    off = tl.program_id(1) * N_CTX
    q = q_desc.load([off + start_m * BM, 0])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, HEAD], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in tl.range(0, N_CTX, BN, num_stages=STAGES, warp_specialize=WS):
        k = k_desc.load([off + start_n, 0]).T
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = v_desc.load([off + start_n, 0])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_desc.store([off + start_m * BM, 0], acc.to(o_desc.dtype))


@triton.jit
def k_attention_ptr(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, N_CTX, BM: tl.constexpr, BN: tl.constexpr,
                    HEAD: tl.constexpr, WS: tl.constexpr, STAGES: tl.constexpr):
    start_m = tl.program_id(0)
    off = tl.program_id(1) * N_CTX * HEAD
    rm = start_m * BM + tl.arange(0, BM)
    rd = tl.arange(0, HEAD)
    rn = tl.arange(0, BN)
    q = tl.load(q_ptr + off + rm[:, None] * HEAD + rd[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, HEAD], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in tl.range(0, N_CTX, BN, num_stages=STAGES, warp_specialize=WS):
        kt = tl.load(k_ptr + off + rd[:, None] + (start_n + rn)[None, :] * HEAD)
        qk = tl.dot(q, kt)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + off + (start_n + rn)[:, None] * HEAD + rd[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + off + rm[:, None] * HEAD + rd[None, :], acc.to(o_ptr.dtype.element_ty))


def spec_attention(p):
    d = DTYPES[p["dtype"]]
    bm, bn, hd = p["m"], p["n"], p["head"]
    tail = [("sm_scale", "fp32"), ("N_CTX", "i32"), ("BM", const(bm)), ("BN", const(bn)), ("HEAD", const(hd)),
            ("WS", const(p.get("ws", 0) == 1)), ("STAGES", const(p.get("stages", 2)))]
    if p.get("desc", "host") == "host":
        o = "fp16" if d.startswith("fp8") else d
        return k_attention, [("q_desc", f"tensordesc<{d}[{bm},{hd}]>"), ("k_desc", f"tensordesc<{d}[{bn},{hd}]>"),
                             ("v_desc", f"tensordesc<{d}[{bn},{hd}]>"), ("o_desc", f"tensordesc<{o}[{bm},{hd}]>")] + tail
    return k_attention_ptr, [("q_ptr", "*" + d), ("k_ptr", "*" + d), ("v_ptr", "*" + d), ("o_ptr", "*" + d)] + tail


# ---------------------------------------------------------------- reductions, shape ops


@triton.jit
def k_reduce(x_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, OP: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]).to(tl.float32)
    if OP == "max":
        r = tl.max(x, AXIS)
    else:
        r = tl.sum(x, AXIS)
    if AXIS == 0:
        tl.store(o_ptr + tl.arange(0, N), r)
    else:
        tl.store(o_ptr + tl.arange(0, M), r)


@triton.jit
def k_trans_store(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(y_ptr + tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :], tl.trans(x))


@triton.jit
def k_join_split(x_ptr, y_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    j = tl.join(x, y)
    a, b = tl.split(j * 2)
    tl.store(o_ptr + offs, a + b)


@triton.jit
def k_bmm(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    bi = tl.arange(0, B)[:, None, None]
    a = tl.load(a_ptr + bi * (M * K) + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :])
    b = tl.load(b_ptr + bi * (K * N) + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + bi * (M * N) + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :],
             c.to(c_ptr.dtype.element_ty))


@triton.jit
def k_topk(x_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, TOPK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    t = tl.topk(x, TOPK, dim=1)
    tl.store(o_ptr + tl.arange(0, M)[:, None] * TOPK + tl.arange(0, TOPK)[None, :], t)


@triton.jit
def k_ws_norm(x_ptr, w_ptr, y_ptr, s_ptr, N, eps, ROWS: tl.constexpr, BLOCK: tl.constexpr, WS: tl.constexpr):
    row0 = tl.program_id(0) * ROWS
    rows = row0 + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    ss = tl.zeros([ROWS, BLOCK], dtype=tl.float32)
    for c in tl.range(0, N, BLOCK, warp_specialize=WS):
        x = tl.load(x_ptr + rows[:, None] * N + (c + cols)[None, :]).to(tl.float32)
        ss += x * x
    rstd = tl.rsqrt(tl.sum(ss, 1) / N + eps)
    for c in tl.range(0, N, BLOCK, warp_specialize=WS):
        x = tl.load(x_ptr + rows[:, None] * N + (c + cols)[None, :]).to(tl.float32)
        w = tl.load(w_ptr + c + cols).to(tl.float32)
        y = x * rstd[:, None] * w[None, :]
        amax = tl.max(tl.abs(y), 1)
        scale = tl.maximum(amax, 1e-6) / 448.0
        tl.store(s_ptr + rows * (N // BLOCK) + c // BLOCK, scale)
        tl.store(y_ptr + rows[:, None] * N + (c + cols)[None, :], (y / scale[:, None]).to(tl.float8e4nv))


def spec_simple(p):
    fam = p["family"]
    d = DTYPES.get(p.get("dtype", "fp16"))
    if fam == "reduce":
        return k_reduce, [("x_ptr", "*" + d), ("o_ptr", "*fp32"), ("M", const(p["m"])), ("N", const(p["n"])),
                          ("AXIS", const(p["axis"])), ("OP", const(p.get("op", "sum")))]
    if fam == "trans_store":
        return k_trans_store, [("x_ptr", "*" + d), ("y_ptr", "*" + d), ("M", const(p["m"])), ("N", const(p["n"]))]
    if fam == "join_split":
        return k_join_split, [("x_ptr", "*" + d), ("y_ptr", "*" + d), ("o_ptr", "*" + d), ("M", const(p["m"])),
                              ("N", const(p["n"]))]
    if fam == "bmm":
        acc = "fp32"
        return k_bmm, [("a_ptr", "*" + d), ("b_ptr", "*" + d), ("c_ptr", "*" + acc), ("B", const(p["b"])),
                       ("M", const(p["m"])), ("N", const(p["n"])), ("K", const(p["k"]))]
    if fam == "topk":
        return k_topk, [("x_ptr", "*" + d), ("o_ptr", "*" + d), ("M", const(p["m"])), ("N", const(p["n"])),
                        ("TOPK", const(p["topk"]))]
    if fam == "ws_norm":
        return k_ws_norm, [("x_ptr", "*" + d), ("w_ptr", "*" + d), ("y_ptr", "*fp8e4nv"), ("s_ptr", "*fp32"),
                           ("N", "i32"), ("eps", "fp32"), ("ROWS", const(p["m"])), ("BLOCK", const(p["n"])),
                           ("WS", const(p.get("ws", 1) == 1))]
    raise ValueError(f"unknown family {fam!r}")



# ---------------------------------------------------------------- TMA descriptors


@triton.jit
def k_tma_host(in_desc, out_desc, y_ptr, R: tl.constexpr, C: tl.constexpr, MODE: tl.constexpr):
    # MODE: "store" (descriptor in, descriptor out), "ptr" (descriptor in, pointer store), "trans"
    # (the loaded block transposed, then stored through pointers), "atomic" (atomic_add through the
    # output descriptor), "gather" (rows picked by index, TMA gather)
    if MODE == "gather":
        rows = tl.arange(0, R) * 2
        x = in_desc.gather(rows, 0)
    else:
        x = in_desc.load([0, 0])
    if MODE == "store" or MODE == "gather":
        out_desc.store([0, 0], x)
    elif MODE == "atomic":
        out_desc.atomic_add([0, 0], x)
    elif MODE == "trans":
        tl.store(y_ptr + tl.arange(0, C)[:, None] * R + tl.arange(0, R)[None, :], tl.trans(x))
    else:
        tl.store(y_ptr + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :], x)


@triton.jit
def k_tma_device(x_ptr, y_ptr, M, N, R: tl.constexpr, C: tl.constexpr, MODE: tl.constexpr):
    in_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[R, C])
    out_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[R, C])
    if MODE == "gather":
        rows = tl.arange(0, R) * 2
        x = in_desc.gather(rows, 0)
    else:
        x = in_desc.load([0, 0])
    if MODE == "atomic":
        out_desc.atomic_add([0, 0], x)
    elif MODE == "trans":
        tl.store(y_ptr + tl.arange(0, C)[:, None] * R + tl.arange(0, R)[None, :], tl.trans(x))
    elif MODE == "ptr":
        tl.store(y_ptr + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :], x)
    else:
        out_desc.store([0, 0], x)


def spec_tma(p):
    d = DTYPES[p["dtype"]]
    r, c, mode = p["m"], p["n"], p.get("mode", "store")
    tail = [("R", const(r)), ("C", const(c)), ("MODE", const(mode))]
    if p.get("desc", "host") == "host":
        return k_tma_host, [("in_desc", f"tensordesc<{d}[{1 if mode == 'gather' else r},{c}]>"),
                            ("out_desc", f"tensordesc<{d}[{r},{c}]>"), ("y_ptr", "*" + d)] + tail
    return k_tma_device, [("x_ptr", "*" + d), ("y_ptr", "*" + d), ("M", "i32"), ("N", "i32")] + tail


# ---------------------------------------------------------------- descriptors of rank 2 to 4


@triton.jit
def k_tma_rank_host(in_desc, y_ptr, LEAD: tl.constexpr, R: tl.constexpr, C: tl.constexpr, RANK: tl.constexpr,
                    FLAT: tl.constexpr):
    if RANK == 2:
        x = in_desc.load([0, 0])
    elif RANK == 3:
        x = in_desc.load([0, 0, 0])
    else:
        x = in_desc.load([0, 0, 0, 0])
    if RANK == 2 and FLAT:
        tl.store(y_ptr + tl.arange(0, C), x.reshape(C))
    elif RANK == 2:
        tl.store(y_ptr + tl.arange(0, LEAD)[:, None] * C + tl.arange(0, C)[None, :], x)
    elif FLAT:
        tl.store(y_ptr + tl.arange(0, LEAD * R)[:, None] * C + tl.arange(0, C)[None, :], x.reshape(LEAD * R, C))
    else:
        tl.store(y_ptr + tl.arange(0, LEAD)[:, None, None] * R * C + tl.arange(0, R)[None, :, None] * C +
                 tl.arange(0, C)[None, None, :], x)


@triton.jit
def k_tma_rank_device(x_ptr, y_ptr, LEAD: tl.constexpr, R: tl.constexpr, C: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, shape=[LEAD, R, C], strides=[R * C, C, 1], block_shape=[LEAD, R, C])
    x = d.load([0, 0, 0]).reshape(LEAD * R, C)
    tl.store(y_ptr + tl.arange(0, LEAD * R)[:, None] * C + tl.arange(0, C)[None, :], x)


@triton.jit
def k_tma_rank_dot(a_desc, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = a_desc.load([0, 0, 0]).reshape(M, K)
    b = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


def spec_tma_rank(p):
    d = DTYPES[p["dtype"]]
    lead, r, c = p.get("lead", 1), p["m"], p["n"]
    if p.get("dot"):
        return k_tma_rank_dot, [("a_desc", f"tensordesc<{d}[1,{r},{c}]>"), ("b_ptr", "*" + d),
                                ("c_ptr", "*fp32"), ("M", const(r)), ("N", const(64)),
                                ("K", const(c))]
    if p.get("desc", "host") == "device":
        return k_tma_rank_device, [("x_ptr", "*" + d), ("y_ptr", "*" + d), ("LEAD", const(lead)), ("R", const(r)),
                                   ("C", const(c))]
    rank = p.get("rank", 3)
    block = {2: [lead, c], 3: [lead, r, c], 4: [1, lead, r, c]}[rank]
    return k_tma_rank_host, [("in_desc", f"tensordesc<{d}[{','.join(map(str, block))}]>"), ("y_ptr", "*" + d),
                             ("LEAD", const(lead)), ("R", const(r)), ("C", const(c)), ("RANK", const(rank)),
                             ("FLAT", const(p.get("flat", 1)))]


def spec(p):
    """(jit function, argument list) for the configuration `p` (its `family` and parameters)."""
    fam = p["family"]
    if fam == "dot_scaled":
        return spec_dot_scaled(p)
    if fam == "ws_matmul":
        return spec_ws_matmul(p)
    if fam == "persistent":
        return spec_persistent(p)
    if fam == "attention":
        return spec_attention(p)
    if fam == "tma":
        return spec_tma(p)
    if fam == "tma_rank":
        return spec_tma_rank(p)
    return spec_simple(p)
