//! Triton 3.1/3.2's legacy `getElemsPerThread`, which their slice layouts
//! pad their registers up to (the "register-count fix-up", removed in 3.3).

use super::cga::split_num;
use crate::attr::{Attr, Cga};

fn ceil(a: u64, b: u64) -> u64 {
    a.div_ceil(b.max(1))
}

/// The per-CTA shape as 3.2's legacy code computes it:
/// `shape[i] / min(shape[i], CTASplitNum[i])`.
fn shape_per_cta(cga: &Option<Cga>, shape: &[u64]) -> Option<Vec<u64>> {
    let split = split_num(cga, shape.len()).ok()?;
    Some(
        shape
            .iter()
            .zip(split)
            .map(|(&s, k)| s / s.min(k).max(1))
            .collect(),
    )
}

/// Elements per thread along each dim, or `None` where 3.2 has no formula
/// this crate models.
pub(crate) fn elems_per_thread(attr: &Attr, shape: &[u64]) -> Option<Vec<u64>> {
    let rank = shape.len();
    match attr {
        Attr::Blocked(b) => {
            let spc = shape_per_cta(&b.cga, shape)?;
            Some(
                (0..rank)
                    .map(|i| {
                        let tile =
                            b.size_per_thread[i] * b.threads_per_warp[i] * b.warps_per_cta[i];
                        ceil(spc[i], tile) * b.size_per_thread[i]
                    })
                    .collect(),
            )
        }
        Attr::NvidiaMma(m) if m.version_major == 2 => {
            let spc = shape_per_cta(&m.cga, shape)?;
            let w = &m.warps_per_cta;
            let mut e = vec![0; rank];
            e[rank - 2] = 2 * ceil(spc[rank - 2], 16 * w[rank - 2]);
            e[rank - 1] = 2 * ceil(spc[rank - 1], 8 * w[rank - 1]);
            if rank == 3 {
                e[0] = ceil(spc[0], w[0]);
            }
            Some(e)
        }
        Attr::NvidiaMma(m) if m.version_major == 3 && rank == 2 => {
            let spc = shape_per_cta(&m.cga, shape)?;
            let w = &m.warps_per_cta;
            let n = *m.instr_shape.get(1)?;
            Some(vec![
                2 * ceil(spc[0], 16 * w[0]),
                (n / 4) * ceil(spc[1], n * w[1]),
            ])
        }
        Attr::AmdMfma(m) => {
            let w = &m.warps_per_cta;
            let d = *m.instr_shape.first()?;
            let t = if d == 32 { 16 } else { 4 };
            let mut e = vec![0; rank];
            if rank == 3 {
                e[0] = ceil(shape[0], w[0]);
            }
            e[rank - 2] = ceil(shape[rank - 2], d * w[rank - 2]);
            e[rank - 1] = ceil(shape[rank - 1], d * w[rank - 1]);
            let at = if m.is_transposed { rank - 1 } else { rank - 2 };
            e[at] *= t;
            Some(e)
        }
        Attr::AmdWmma(wm) => {
            let w = wm.warps_per_cta.as_ref()?;
            let mut e = vec![0; rank];
            if rank == 3 {
                e[0] = ceil(shape[0], w[0]);
            }
            e[rank - 2] = ceil(shape[rank - 2], 16 * w[rank - 2]) * 8;
            e[rank - 1] = ceil(shape[rank - 1], 16 * w[rank - 1]);
            Some(e)
        }
        Attr::DotOperand(d) => match d.parent.as_ref() {
            Attr::AmdMfma(m) => {
                let w = &m.warps_per_cta;
                let k_width = d.k_width.unwrap_or(0);
                let (m_dim, n_dim) = (*m.instr_shape.first()?, *m.instr_shape.get(1)?);
                let k_groups = 64 / m_dim.max(1);
                let kd = k_width * k_groups;
                let floor1 = |a: u64, b: u64| (a / b.max(1)).max(1);
                let b = if rank == 3 { floor1(shape[0], w[0]) } else { 1 };
                let rep = if d.op_idx == 0 {
                    [
                        b,
                        floor1(shape[rank - 2], m_dim * w[rank - 2]),
                        floor1(shape[rank - 1], kd),
                    ]
                } else {
                    [
                        b,
                        floor1(shape[rank - 2], kd),
                        floor1(shape[rank - 1], n_dim * w[rank - 1]),
                    ]
                };
                let mut e = vec![0; rank];
                if rank == 3 {
                    e[0] = rep[0];
                }
                if d.op_idx == 0 {
                    e[rank - 2] = rep[1];
                    e[rank - 1] = rep[2] * k_width;
                } else {
                    e[rank - 2] = rep[1] * k_width;
                    e[rank - 1] = rep[2];
                }
                Some(e)
            }
            _ => None,
        },
        Attr::Slice(s) => {
            let mut parent_shape = shape.to_vec();
            parent_shape.insert(s.dim.min(shape.len()), 1);
            let mut e = elems_per_thread(&s.parent, &parent_shape)?;
            e.remove(s.dim.min(e.len().saturating_sub(1)));
            Some(e)
        }
        _ => None,
    }
}
