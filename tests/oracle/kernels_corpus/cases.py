"""The public kernels of the corpus: where each comes from (a pinned pip
package, imported at record time from a scratch directory, never vendored),
its arguments as `linear-layout scan` takes them, and the configurations
recorded.

A case's `space` is a list of axes; `configs(case)` enumerates their product
and keeps every `stride`-th one, so that each case contributes a bounded,
deterministic share of the corpus.
"""

import itertools

# package pins: (pip requirement, directory name under the scratch dir)
PACKAGES = {
    "liger": ("liger-kernel==0.5.10", "liger_kernel-0.5.10"),
    "fla": ("flash-linear-attention==0.2.0", "flash_linear_attention-0.2.0"),
    "torchao": ("torchao==0.11.0", "torchao-0.11.0"),
}
# pure-Python modules the kernels' packages import (installed beside them)
DEPS = ("einops==0.8.1", "PyYAML==6.0.2", "packaging==24.2")


def P(dtype):
    return {"ptr": dtype}


def _norm_args(kind, n, dtype):
    if kind == "rms":
        return {"Y_ptr": P(dtype), "Y_row_stride": n, "X_ptr": P(dtype), "X_row_stride": n, "W_ptr": P(dtype),
                "W_row_stride": 1, "RSTD_ptr": P("fp32"), "RSTD_row_stride": 1, "n_cols": n, "eps": 1e-6,
                "offset": 0.0}
    return {"Y_ptr": P(dtype), "Y_row_stride": n, "X_ptr": P(dtype), "X_row_stride": n, "W_ptr": P(dtype),
            "W_row_stride": 1, "B_ptr": P(dtype), "B_row_stride": 1, "Mean_ptr": P("fp32"), "Mean_row_stride": 1,
            "RSTD_ptr": P("fp32"), "RSTD_row_stride": 1, "n_cols": n, "eps": 1e-5}


def _pow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


CASES = []


def case(name, package, kernel, family, space, make, stride=1, archs=("sm80", "sm90")):
    CASES.append(dict(name=name, package=package, kernel=kernel, family=family, space=space, make=make,
                      stride=stride, archs=archs))


# --- norms (liger-kernel)
case("liger-rms-norm", "liger", "liger_kernel.ops.rms_norm::_rms_norm_forward_kernel", "norm",
     [("n", [1024, 4096, 8192]), ("dtype", ["bf16", "fp16"]), ("warps", [4, 8, 16, 32]), ("mode", [0, 1])],
     lambda n, dtype, warps, mode: (_norm_args("rms", n, dtype), {"casting_mode": mode, "BLOCK_SIZE": _pow2(n)},
                                    {"num_warps": warps}), stride=3)
case("liger-layer-norm", "liger", "liger_kernel.ops.layer_norm::_layer_norm_forward_kernel", "norm",
     [("n", [768, 4096, 8192]), ("dtype", ["bf16", "fp32"]), ("warps", [4, 8, 16, 32])],
     lambda n, dtype, warps: (_norm_args("ln", n, dtype), {"BLOCK_SIZE": _pow2(n)}, {"num_warps": warps}), stride=2)

# --- attention (flash-linear-attention's softmax attention)


def _attn(dtype, kv, bt, bs, warps, stages):
    args = {"q": P(dtype), "k": P(dtype), "v": P(dtype), "o": P(dtype), "g_cumsum": None, "lse": P("fp32"),
            "scale": 0.125, "cu_seqlens": None, "chunk_indices": None, "T": 4096}
    kw = {"B": 2, "H": 8, "HQ": 8, "G": 1, "K": kv, "V": kv, "BT": bt, "BS": bs, "BK": kv, "BV": min(kv, 128),
          "USE_G": False, "IS_VARLEN": False}
    return args, kw, {"num_warps": warps, "num_stages": stages}


case("fla-parallel-attn-fwd", "fla", "fla.ops.attn.parallel::parallel_attn_fwd_kernel", "attention",
     [("dtype", ["bf16", "fp16"]), ("kv", [64, 128]), ("bt", [64, 128]), ("bs", [32, 64]), ("warps", [2, 4, 8]),
      ("stages", [2, 3])], _attn, stride=3)

# --- linear attention (flash-linear-attention)


def _gla_o(dtype, kv, bk, bv, warps, stages):
    args = {"q": P(dtype), "v": P(dtype), "g": P("fp32"), "h": P(dtype), "o": P(dtype), "A": P(dtype),
            "cu_seqlens": None, "chunk_indices": None, "scale": 0.125, "T": 4096}
    kw = {"H": 8, "K": kv, "V": kv, "BT": 64, "BK": bk, "BV": bv, "IS_VARLEN": False}
    return args, kw, {"num_warps": warps, "num_stages": stages}


case("fla-gla-chunk-o", "fla", "fla.ops.gla.chunk::chunk_gla_fwd_kernel_o", "linear-attention",
     [("dtype", ["bf16", "fp16"]), ("kv", [64, 128]), ("bk", [32, 64]), ("bv", [32, 64]), ("warps", [2, 4, 8]),
      ("stages", [2, 3])], _gla_o, stride=3)


def _chunk_h(dtype, kv, bk, bv, warps, stages, gk):
    args = {"k": P(dtype), "v": P(dtype), "h": P(dtype), "g": None, "gk": P("fp32") if gk else None, "gv": None,
            "h0": None, "ht": None, "cu_seqlens": None, "split_offsets": None, "T": 4096}
    kw = {"H": 8, "K": kv, "V": kv, "BT": 64, "BS": 64, "BK": bk, "BV": bv, "USE_G": False, "USE_GK": gk,
          "USE_GV": False, "USE_INITIAL_STATE": False, "STORE_FINAL_STATE": False, "IS_VARLEN": False}
    return args, kw, {"num_warps": warps, "num_stages": stages}


case("fla-chunk-h", "fla", "fla.ops.common.chunk_h::chunk_fwd_kernel_h", "linear-attention",
     [("dtype", ["bf16", "fp16"]), ("kv", [64, 128]), ("bk", [32, 64]), ("bv", [32, 64]), ("warps", [1, 2, 4, 8]),
      ("stages", [2, 3]), ("gk", [False, True])], _chunk_h, stride=8)



def _gated_delta(bv, warps, stages):
    # flash-linear-attention #196's call (tests/oracle/compile/fla.py): K = V = 256, chunk 64, T = 8192
    args = {"k": P("bf16"), "v": P("bf16"), "d": P("bf16"), "v_new": P("bf16"), "g": P("fp32"), "h": P("bf16"),
            "h0": None, "ht": None, "cu_seqlens": None, "chunk_offsets": None, "T": {"int": "i32"}}
    kw = {"H": 36, "K": 256, "V": 256, "BT": 64, "BV": bv, "NT": 128, "USE_G": True, "USE_INITIAL_STATE": False,
          "STORE_FINAL_STATE": False, "SAVE_NEW_VALUE": True, "IS_VARLEN": False}
    return args, kw, {"num_warps": warps, "num_stages": stages}


case("fla-gated-delta-h", "fla", "fla.ops.common.chunk_delta_h::chunk_gated_delta_rule_fwd_kernel_h_blockdim64",
     "linear-attention", [("bv", [16, 32, 64]), ("warps", [2, 4, 8, 16]), ("stages", [2, 3])], _gated_delta)

# --- a linear recurrence / state-space scan (flash-linear-attention's HGRN)


def _hgrn(dtype, d, bd, warps, stages):
    args = {"x": P(dtype), "g": P(dtype), "gc": P("fp32"), "o": P(dtype), "h0": None, "T": 4096}
    return args, {"D": d, "BT": 64, "BD": bd, "USE_INITIAL_STATE": False}, {"num_warps": warps,
                                                                           "num_stages": stages}


case("fla-hgrn-chunk-h", "fla", "fla.ops.hgrn.chunk::chunk_hgrn_fwd_kernel_h", "state-space",
     [("dtype", ["bf16", "fp32"]), ("d", [512, 2048]), ("bd", [32, 64, 128]), ("warps", [1, 2, 4, 8]),
      ("stages", [3])], _hgrn, stride=2)

# --- elementwise gating (liger-kernel)
case("liger-swiglu-fwd", "liger", "liger_kernel.ops.swiglu::_swiglu_forward_kernel", "norm",
     [("n", [4096, 11008, 14336]), ("dtype", ["bf16", "fp32"]), ("warps", [4, 8, 16, 32])],
     lambda n, dtype, warps: ({"a_ptr": P(dtype), "b_ptr": P(dtype), "c_ptr": P(dtype), "stride": n},
                              {"n_cols": n, "BLOCK_SIZE": _pow2(n)}, {"num_warps": warps}), stride=2)

# --- matmul (torchao's port of triton.ops.matmul: pointer arithmetic, autotuned)


def _mm(dtype, bm, bn, bk, warps, stages):
    args = {"A": P(dtype), "B": P(dtype), "C": P("fp16" if dtype.startswith("fp8") else dtype), "M": 4096, "N": 4096,
            "K": 4096, "stride_am": 4096, "stride_ak": 1, "stride_bk": 4096, "stride_bn": 1, "stride_cm": 4096,
            "stride_cn": 1}
    kw = {"acc_dtype": {"tl": "float32"}, "input_precision": "tf32" if dtype == "fp32" else "ieee",
          "fp8_fast_accum": True, "BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "SPLIT_K": 1,
          "EVEN_K": True, "AB_DTYPE": None}
    return args, kw, {"num_warps": warps, "num_stages": stages}


case("torchao-matmul", "torchao", "torchao.prototype.common.triton.matmul::_kernel", "matmul",
     [("dtype", ["fp16", "bf16", "fp32", "fp8e4nv"]), ("bm", [64, 128]), ("bn", [32, 64, 128, 256]),
      ("bk", [32, 64]), ("warps", [4, 8]), ("stages", [2, 3, 4])], _mm, stride=9)

# --- matmul (torchao's int8 scaled matmul)


def _intmm(bm, bn, bk, warps, stages):
    args = {"a_ptr": P("i8"), "b_ptr": P("i8"), "c_ptr": P("fp16"), "s1_ptr": P("fp16"), "M": 4096, "N": 4096,
            "K": 4096, "stride_am": 4096, "stride_ak": 1, "stride_bk": 4096, "stride_bn": 1, "stride_cm": 4096,
            "stride_cn": 1, "stride_s1m": 1, "stride_s1n": 0}
    kw = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "EVEN_K": True}
    return args, kw, {"num_warps": warps, "num_stages": stages}


case("torchao-int8-scaled-mm", "torchao", "torchao.kernel.intmm_triton::scaled_matmul_kernel_with_block_pointers",
     "matmul", [("bm", [32, 64, 128]), ("bn", [32, 64, 128, 256]), ("bk", [32, 64, 128]), ("warps", [2, 4, 8]),
                ("stages", [2, 3, 4])], _intmm, stride=10)


def configs(c):
    """The case's recorded configurations: (label, args, kwargs, options, arch)."""
    names = [n for n, _ in c["space"]]
    out = []
    for i, values in enumerate(itertools.product(*[v for _, v in c["space"]])):
        if i % c["stride"]:
            continue
        args, kwargs, options = c["make"](*values)
        label = "-".join(f"{n}{v}" for n, v in zip(names, values))
        arch = c["archs"][(i // c["stride"]) % len(c["archs"])]
        out.append((label, args, kwargs, options, arch))
    return out


if __name__ == "__main__":
    total = 0
    for c in CASES:
        n = len(configs(c))
        total += n
        print(c["name"], n)
    print("total", total)
