//! Reproducers for the real compiler: a self-contained Python script that
//! compiles the pattern kernel for the target on CPU (no GPU) in a child
//! process and reports how it ended, and a minimal TTGIR module holding just
//! the failing op, which `triton.compile("repro.ttgir", target=...)` accepts.

use super::config::{Config, Pattern};
use super::decisions::{DotShape, choose_mma, nvmma_swizzle};
use super::sites::{self, Site};
use crate::attr::swizzle_phases;

/// The kernel body of a pattern, in Triton's Python DSL.
fn kernel_source(pattern: Pattern) -> &'static str {
    match pattern {
        Pattern::Dot => {
            r#"@triton.jit
def kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c.to(c_ptr.dtype.element_ty))
"#
        }
        Pattern::ChainA => {
            r#"@triton.jit
def kernel(a_ptr, b_ptr, c_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, X: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    rx = tl.arange(0, X)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    p = tl.dot(a, b).to(a_ptr.dtype.element_ty)
    c = tl.load(c_ptr + rn[:, None] * X + rx[None, :])
    o = tl.dot(p, c)
    tl.store(o_ptr + rm[:, None] * X + rx[None, :], o.to(o_ptr.dtype.element_ty))
"#
        }
        Pattern::ChainB => {
            r#"@triton.jit
def kernel(a_ptr, b_ptr, d_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, X: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    rx = tl.arange(0, X)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    p = tl.dot(a, b).to(a_ptr.dtype.element_ty)
    d = tl.load(d_ptr + rx[:, None] * M + rm[None, :])
    o = tl.dot(d, p)
    tl.store(o_ptr + rx[:, None] * N + rn[None, :], o.to(o_ptr.dtype.element_ty))
"#
        }
        Pattern::Inductor3d => {
            r#"@triton.jit
def kernel(in0_ptr, in1_ptr, out_ptr, XBLOCK: tl.constexpr, YBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr,
           RN: tl.constexpr):
    # triton #5882's structure: out[x, y] = sum_r in0[x, r] * in1[r, y] over a
    # reduction of RN in steps of R0_BLOCK, through rank-3 loads reshaped and
    # transposed into the dot.
    y3 = tl.arange(0, YBLOCK)[:, None, None]
    x3 = tl.arange(0, XBLOCK)[None, :, None]
    r3 = tl.arange(0, R0_BLOCK)[None, None, :]
    # int8 products accumulate in int32 (resolved at compile time).
    if in0_ptr.dtype.element_ty == tl.int8:
        acc = tl.zeros([XBLOCK, YBLOCK], dtype=tl.int32)
    else:
        acc = tl.zeros([XBLOCK, YBLOCK], dtype=tl.float32)
    for r0_offset in range(0, RN, R0_BLOCK):
        r = r0_offset + r3
        lhs = tl.load(in0_ptr + (x3 * RN + r))
        rhs = tl.load(in1_ptr + (r * RN + y3))
        acc = tl.dot(tl.reshape(lhs, [XBLOCK, R0_BLOCK]), tl.trans(tl.reshape(rhs, [YBLOCK, R0_BLOCK])), acc)
    res = tl.reshape(tl.trans(acc), [YBLOCK, XBLOCK, 1])
    tl.store(out_ptr + (x3 * RN + y3), res.to(out_ptr.dtype.element_ty))
"#
        }
        Pattern::Scan => {
            r#"@triton.jit
def kernel(x_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :]).to(tl.float32)
    s = tl.cumsum(x, axis=0)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], s.to(o_ptr.dtype.element_ty))
"#
        }
        Pattern::Gather => {
            r#"@triton.jit
def kernel(src_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    src = tl.load(src_ptr + rows * N + tl.arange(0, N)[None, :])
    cols = tl.arange(0, K)[None, :]
    idx = (rows * 7 + cols * 3) % N
    res = tl.gather(src, idx, 1)
    tl.store(o_ptr + rows * K + cols, res)
"#
        }
        Pattern::Attention => {
            r#"@triton.jit
def kernel(q_ptr, k_ptr, v_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, SEQ: tl.constexpr):
    # flash-attention's forward loop: Q[M,K] against SEQ keys in blocks of N
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rd = tl.arange(0, K)
    q = tl.load(q_ptr + rm[:, None] * K + rd[None, :])
    m_i = tl.full([M], float("-inf"), tl.float32)
    l_i = tl.zeros([M], tl.float32)
    acc = tl.zeros([M, K], tl.float32)
    for start in range(0, SEQ, N):
        kt = tl.load(k_ptr + (start + rn)[None, :] * K + rd[:, None])
        s = tl.dot(q, kt) * 0.125
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + (start + rn)[:, None] * K + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(o_ptr + rm[:, None] * K + rd[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty))
"#
        }
        Pattern::AttentionBias => {
            r#"@triton.jit
def kernel(q_ptr, k_ptr, v_ptr, kb_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
           SEQ: tl.constexpr):
    # flash-attention's forward loop with a per-key fp32 bias added to the
    # scaled scores (a key-padding mask)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rd = tl.arange(0, K)
    q = tl.load(q_ptr + rm[:, None] * K + rd[None, :])
    m_i = tl.full([M], float("-inf"), tl.float32)
    l_i = tl.zeros([M], tl.float32)
    acc = tl.zeros([M, K], tl.float32)
    for start in range(0, SEQ, N):
        kt = tl.load(k_ptr + (start + rn)[None, :] * K + rd[:, None])
        s = tl.dot(q, kt) * 0.125 + tl.load(kb_ptr + start + rn)[None, :]
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + (start + rn)[:, None] * K + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(o_ptr + rm[:, None] * K + rd[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty))
"#
        }
        Pattern::DescDot => {
            r#"@triton.jit
def kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, KTOTAL: tl.constexpr):
    # a matmul's K loop through tensor descriptors
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, KTOTAL], strides=[KTOTAL, 1], block_shape=[M, K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[KTOTAL, N], strides=[N, 1], block_shape=[K, N])
    acc = tl.zeros([M, N], dtype=tl.float32)
    for k in range(0, KTOTAL, K):
        acc = tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]), acc)
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[M, N])
    c_desc.store([0, 0], acc.to(c_desc.dtype))
"#
        }
    }
}

fn pointer_args(pattern: Pattern) -> &'static [&'static str] {
    match pattern {
        Pattern::Dot => &["a_ptr", "b_ptr", "c_ptr"],
        Pattern::Inductor3d => &["in0_ptr", "in1_ptr", "out_ptr"],
        Pattern::ChainA => &["a_ptr", "b_ptr", "c_ptr", "o_ptr"],
        Pattern::ChainB => &["a_ptr", "b_ptr", "d_ptr", "o_ptr"],
        Pattern::Scan => &["x_ptr", "o_ptr"],
        Pattern::Gather => &["src_ptr", "o_ptr"],
        Pattern::Attention => &["q_ptr", "k_ptr", "v_ptr", "o_ptr"],
        Pattern::AttentionBias => &["q_ptr", "k_ptr", "v_ptr", "kb_ptr", "o_ptr"],
        Pattern::DescDot => &["a_ptr", "b_ptr", "c_ptr"],
    }
}

/// The pointers whose element type is not the configuration's: the
/// attention key bias is fp32.
fn other_pointer_types(pattern: Pattern) -> &'static str {
    match pattern {
        Pattern::AttentionBias => r#"{"kb_ptr": "fp32"}"#,
        _ => "{}",
    }
}

/// A Python script reproducing `cfg` with the user's installed `triton`.
/// `expect` is the predicted verdict (printed for comparison).
pub fn python_script(cfg: &Config, expect: &str) -> String {
    let ptrs = pointer_args(cfg.pattern);
    let ptr_list = ptrs
        .iter()
        .map(|p| format!("\"{p}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let constants = match (cfg.pattern, cfg.x) {
        (Pattern::Inductor3d, _) => {
            format!(
                "{{\"XBLOCK\": {}, \"YBLOCK\": {}, \"R0_BLOCK\": {}, \"RN\": 8192}}",
                cfg.m, cfg.n, cfg.k
            )
        }
        (_, Some(x)) => format!(
            "{{\"M\": {}, \"N\": {}, \"K\": {}, \"X\": {x}}}",
            cfg.m, cfg.n, cfg.k
        ),
        (Pattern::Scan, _) => format!("{{\"M\": {}, \"N\": {}}}", cfg.m, cfg.n),
        (Pattern::Attention | Pattern::AttentionBias, _) => format!(
            "{{\"M\": {}, \"N\": {}, \"K\": {}, \"SEQ\": 4096}}",
            cfg.m, cfg.n, cfg.k
        ),
        (Pattern::DescDot, _) => format!(
            "{{\"M\": {}, \"N\": {}, \"K\": {}, \"KTOTAL\": 4096}}",
            cfg.m, cfg.n, cfg.k
        ),
        (_, None) => format!("{{\"M\": {}, \"N\": {}, \"K\": {}}}", cfg.m, cfg.n, cfg.k),
    };
    format!(
        r#"#!/usr/bin/env python3
"""Reproducer generated by linear-layout for: {cfg}

Compiles the kernel below for {target} on the CPU (no GPU
needed) with the installed `triton`, in a child process so that a failed
C++ assertion (which kills the process) is reported instead of killing this
script. It installs nothing. Predicted outcome: {expect}.

Run: python3 repro.py
"""
import os
import subprocess
import sys
import tempfile

import triton
import triton.language as tl

{kernel}
POINTERS = [{ptr_list}]
CONSTANTS = {constants}
DTYPE = "{dtype}"
# pointers to another element type than DTYPE's
POINTER_TYPES = {pointer_types}
NUM_WARPS = {warps}
NUM_STAGES = {stages}
NUM_CTAS = {ctas}


def version():
    return tuple(int(p) for p in triton.__version__.split(".")[:2])


def source():
    """The ASTSource in the form the installed release expects; pointers are
    16-byte aligned (tt.divisibility = 16), as the launcher does for tensors."""
    from triton.compiler import ASTSource
    names = POINTERS + list(CONSTANTS)
    if version() >= (3, 3):
        signature = {{n: ("constexpr" if n in CONSTANTS else "*" + POINTER_TYPES.get(n, DTYPE)) for n in names}}
        attrs = {{(i,): [["tt.divisibility", 16]] for i in range(len(POINTERS))}}
        return ASTSource(kernel, signature, constexprs=dict(CONSTANTS), attrs=attrs)
    if version() >= (3, 2):
        from triton.backends.compiler import AttrsDescriptor
        signature = {{n: "*" + POINTER_TYPES.get(n, DTYPE) for n in POINTERS}}
        attrs = AttrsDescriptor.from_hints({{i: 16 for i in range(len(POINTERS))}})
        return ASTSource(kernel, signature=signature, constants=dict(CONSTANTS), attrs=attrs)
    from triton.compiler.compiler import AttrsDescriptor
    signature = {{i: "*" + DTYPE for i in range(len(POINTERS))}}
    constants = {{len(POINTERS) + i: v for i, v in enumerate(CONSTANTS.values())}}
    attrs = AttrsDescriptor(divisible_by_16=tuple(range(len(POINTERS))), equal_to_1=())
    return ASTSource(kernel, signature=signature, constants=constants, attrs=attrs)


def compile_here():
    from triton.backends.compiler import GPUTarget
    target = {target}
{hip_stub}    triton.compile(source(), target=target,
                   options=dict(num_warps=NUM_WARPS, num_stages=NUM_STAGES, num_ctas=NUM_CTAS))


{main}"#,
        main = child_main(expect),
        kernel = kernel_source(cfg.pattern),
        pointer_types = other_pointer_types(cfg.pattern),
        dtype = cfg.dtype.signature(),
        warps = cfg.num_warps,
        stages = cfg.num_stages,
        ctas = cfg.num_ctas,
        target = cfg.arch.gpu_target(),
        hip_stub = if cfg.arch.is_amd() {
            HIP_WITHOUT_ROCM
        } else {
            ""
        },
    )
}

/// For an AMD target: the last stage, AMDGCN to a code object linked by
/// ROCm's `ld.lld`, is replaced by one that links nothing (every layout
/// decision is made before it), and so is the backend's cache key, which
/// 3.4 asks that linker for, so that no ROCm install is needed.
const HIP_WITHOUT_ROCM: &str = r#"    import triton.compiler.compiler as cc
    make_backend = cc.make_backend

    def without_rocm(target):
        backend = make_backend(target)
        add_stages = backend.add_stages
        backend.hash = lambda: str(target)

        def stages_without_link(stages, *args, **kwargs):
            add_stages(stages, *args, **kwargs)
            stages["hsaco"] = lambda src, metadata: b""

        backend.add_stages = stages_without_link
        return backend

    cc.make_backend = without_rocm
"#;

/// The reproducer scripts' `main` (this one's and `scan`'s): compile with
/// `compile_here()` in a child process with a fresh Triton cache, so that a
/// failed C++ assertion is reported rather than kill the script; print
/// `triton VERSION -> ok | abort (signal N) | error`, the failure's key line
/// and last lines, and the prediction; exit 1 unless it compiled.
pub fn child_main(expect: &str) -> String {
    let expect = expect.replace('\\', "\\\\").replace('"', "\\\"");
    format!(
        r#"def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        compile_here()
        return
    import triton
    env = dict(os.environ, TRITON_CACHE_DIR=tempfile.mkdtemp(prefix="repro-cache-"))
    child = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"],
                           capture_output=True, text=True, env=env)
    lines = [l for l in (child.stderr or "").splitlines() if l.strip()]
    if child.returncode == 0:
        outcome = "ok"
    elif child.returncode < 0:
        outcome = "abort (signal %d)" % -child.returncode
    else:
        outcome = "error"
    print("triton", triton.__version__, "->", outcome)
    if outcome != "ok":
        key = [l for mark in ("Assertion", "LLVM ERROR", "UNREACHABLE", "error:") for l in lines if mark in l]
        print("\n".join((key or lines)[:1] + lines[-3:]))
    print("predicted: {expect}")
    sys.exit(0 if outcome == "ok" else 1)


if __name__ == "__main__":
    main()
"#
    )
}

/// Whether `site` is the stmatrix site, which fails on P's `local_alloc`
/// alone.
fn is_stmatrix_site(site: &Site) -> bool {
    std::ptr::eq(site, &sites::stmatrix::SITE)
}

/// A minimal TTGIR module holding just the op the finder blames, in the
/// release's dialect spelling, given the predicted failure's `site`: for the
/// stmatrix sites, one `local_alloc` of the first dot's accumulator into its
/// NVMMA shared buffer. `None` for every other site, and for a
/// configuration predicted to compile: the same `local_alloc` written for
/// those would end some other way (an illegal shared encoding when the tile
/// is narrower than any swizzle, for one), and reproduce nothing.
pub fn ttgir_module(cfg: &Config, site: Option<&Site>) -> Option<String> {
    if !cfg.pattern.is_chain() || !site.is_some_and(is_stmatrix_site) {
        return None;
    }
    let d = cfg.triton.dialect();
    let dot = DotShape {
        m: cfg.m,
        n: cfg.n,
        k: cfg.k,
        dtype: cfg.dtype,
        chained: true,
    };
    let mma = choose_mma(cfg, &dot);
    if mma.version != 3 {
        return None;
    }
    let bits = cfg.dtype.bits();
    let swizzle = nvmma_swizzle(cfg.n, bits).unwrap_or(0);
    let (vec, per_phase, max_phase) = match swizzle_phases(swizzle) {
        Some((per_phase, max_phase)) => (128 / bits, per_phase, max_phase),
        None => (1, 1, 1),
    };
    let ty = cfg.dtype.mlir();
    let (m, n) = (cfg.m, cfg.n);
    let legacy = cfg.triton.has_legacy_shared_layouts();
    let shared = if legacy {
        format!(
            "#{d}.shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, order = [1, 0], hasLeadingOffset = true}}>"
        )
    } else {
        format!(
            "#{d}.nvmma_shared<{{swizzlingByteWidth = {swizzle}, transposed = false, elementBitWidth = {bits}}}>"
        )
    };
    let memdesc = if legacy {
        format!("!tt.memdesc<{m}x{n}x{ty}, #shared, #{d}.shared_memory>")
    } else {
        format!("!ttg.memdesc<{m}x{n}x{ty}, #shared, #smem>")
    };
    let smem = if legacy {
        String::new()
    } else {
        "#smem = #ttg.shared_memory\n".into()
    };
    // The stored value and the buffer are used (read back and stored to
    // global memory), so the local_alloc survives to the lowering.
    Some(format!(
        r#"#blocked = #{d}.blocked<{{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [{warps}, 1], order = [1, 0]}}>
#mma = {mma}
#shared = {shared}
{smem}module attributes {{"{d}.num-ctas" = 1 : i32, "{d}.num-warps" = {warps} : i32, {d}.target = "{target}", "{d}.threads-per-warp" = {warp} : i32}} {{
  tt.func public @repro(%arg0: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}) {{
    %ptrs = tt.splat %arg0 : !tt.ptr<{ty}> -> tensor<{m}x{n}x!tt.ptr<{ty}>, #blocked>
    %in = tt.load %ptrs : tensor<{m}x{n}x!tt.ptr<{ty}>, #blocked>
    %acc = {d}.convert_layout %in : tensor<{m}x{n}x{ty}, #blocked> -> tensor<{m}x{n}x{ty}, #mma>
    %buf = {d}.local_alloc %acc : (tensor<{m}x{n}x{ty}, #mma>) -> {memdesc}
    %out = {d}.local_load %buf : {memdesc} -> tensor<{m}x{n}x{ty}, #blocked>
    tt.store %ptrs, %out : tensor<{m}x{n}x!tt.ptr<{ty}>, #blocked>
    tt.return
  }}
}}
"#,
        mma = mma.attr_text(cfg.triton),
        warps = cfg.num_warps,
        target = cfg.arch.ttgir_target(),
        warp = cfg.arch.warp_size(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Release;
    use crate::finder::check_ttgir::check;
    use crate::finder::config::{Arch, Dtype};
    use crate::finder::predict;

    /// Over every chain on sm90 in the releases with stmatrix sites (and
    /// 3.1, which has none): a module is written exactly for a stmatrix
    /// failure, and `check-ttgir` blames its store at that same site.
    /// The script compiles with the configuration's CTA count, and a scan's
    /// constants have no K (its kernel takes none).
    #[test]
    fn the_script_carries_num_ctas_and_each_pattern_its_constants() {
        let scan = Config {
            pattern: Pattern::Scan,
            m: 2,
            n: 64,
            k: 0,
            x: None,
            dtype: Dtype::Fp32,
            num_warps: 4,
            num_stages: 1,
            arch: Arch::Sm90,
            num_ctas: 4,
            triton: Release::V3_9,
            variant: None,
        };
        let script = python_script(&scan, "error");
        assert!(script.contains("NUM_CTAS = 4"), "{script}");
        assert!(script.contains("num_ctas=NUM_CTAS"), "{script}");
        assert!(script.contains(r#"{"M": 2, "N": 64}"#), "{script}");
        assert!(script.contains("tl.cumsum"), "{script}");
        let gather = Config {
            pattern: Pattern::Gather,
            k: 8,
            num_ctas: 1,
            ..scan
        };
        let script = python_script(&gather, "ok");
        assert!(script.contains("NUM_CTAS = 1"), "{script}");
        assert!(script.contains(r#""K": 8"#), "{script}");
        assert!(script.contains("tl.gather"), "{script}");
    }

    #[test]
    fn a_module_is_written_only_for_the_failure_it_reproduces() {
        let (mut written, mut withheld) = (0, 0);
        for triton in [Release::V3_1, Release::V3_2, Release::V3_3] {
            for pattern in [Pattern::ChainA, Pattern::ChainB] {
                for dtype in Dtype::ALL {
                    for (m, n, k, x) in [(64, 16, 32, 16), (64, 16, 16, 64), (64, 128, 32, 64)] {
                        for num_warps in [4, 8] {
                            let cfg = Config {
                                pattern,
                                m,
                                n,
                                k,
                                x: Some(x),
                                dtype,
                                num_warps,
                                num_stages: 1,
                                arch: Arch::Sm90,
                                num_ctas: 1,
                                triton,
                                variant: None,
                            };
                            let p = predict(&cfg).expect("valid configuration");
                            let site = p.failure.as_ref().map(|f| f.site);
                            let module = ttgir_module(&cfg, site);
                            let stmatrix = site.is_some_and(is_stmatrix_site);
                            assert_eq!(module.is_some(), stmatrix, "{cfg}: {:?}", p.site_id());
                            let Some(module) = module else {
                                withheld += usize::from(site.is_some());
                                continue;
                            };
                            written += 1;
                            let findings = check(&module, triton).expect("the module parses");
                            assert!(
                                findings.iter().any(|f| Some(f.failure.site) == site),
                                "{cfg}: {findings:?}"
                            );
                        }
                    }
                }
            }
        }
        // Both kinds occur: stmatrix failures, and failures elsewhere (the
        // 3.2 accumulator shortcut, 3.1's Hopper MMA) that get no module.
        assert!(written >= 4, "{written} modules");
        assert!(withheld >= 4, "{withheld} failures without a module");
    }
}
