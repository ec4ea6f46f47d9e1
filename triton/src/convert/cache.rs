//! Conversions computed once per attribute and shape.
//!
//! Triton does not rebuild a layout each time it asks for one: its GPU
//! dialect keeps a `LinearLayoutCache` keyed by the shape and the (interned)
//! attribute, behind a reader–writer lock, and `toLinearLayout` answers from
//! it after the first call. [`ConversionCache`] does the same for
//! [`to_linear_layout`], with the release and the element width in the key
//! as well, since both change the answer here.
//!
//! ```
//! use linear_layout_triton::{ConversionCache, Defs, Release, parse_attr};
//!
//! let attr = parse_attr(
//!     "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
//!     &Defs::new(),
//! )?;
//! let cache = ConversionCache::new();
//! let first = cache.convert(&attr, &[64, 64], Release::LATEST, None)?;
//! let again = cache.convert(&attr, &[64, 64], Release::LATEST, None)?;
//! assert!(std::sync::Arc::ptr_eq(&first, &again)); // built once
//! assert_eq!(cache.len(), 1);
//! # Ok::<(), linear_layout_triton::ConvertError>(())
//! ```

use super::{Conversion, to_linear_layout};
use crate::error::Result;
use crate::{Attr, Release};
use rustc_hash::FxHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, PoisonError, RwLock};

/// What a conversion depends on.
#[derive(PartialEq, Eq)]
struct Key {
    attr: Attr,
    shape: Vec<u64>,
    version: Release,
    elem_bits: Option<u64>,
}

/// The keys whose hashes agree, each with its conversion.
type Bucket = Vec<(Key, Arc<Conversion>)>;

/// Memoised [`to_linear_layout`]; shareable between threads.
///
/// Only successful conversions are kept: an error (Triton would have
/// aborted) is recomputed on every call, so it is reported the same way.
#[derive(Default)]
pub struct ConversionCache {
    /// Keys hashed without copying them; each bucket holds the full keys, so
    /// a hash collision costs a comparison, never a wrong answer.
    buckets: RwLock<HashMap<u64, Bucket>>,
}

impl ConversionCache {
    /// An empty cache.
    pub fn new() -> Self {
        ConversionCache::default()
    }

    /// [`to_linear_layout`] of these arguments, computed on the first call.
    pub fn convert(
        &self,
        attr: &Attr,
        shape: &[u64],
        version: Release,
        elem_bits: Option<u64>,
    ) -> Result<Arc<Conversion>> {
        let hash = hash_of(attr, shape, version, elem_bits);
        let matches = |k: &Key| {
            k.version == version && k.elem_bits == elem_bits && k.shape == shape && k.attr == *attr
        };
        // A poisoned lock only means another thread panicked mid-insert; the
        // map itself is still consistent (inserts are single pushes).
        let read = self.buckets.read().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, hit)) = read
            .get(&hash)
            .and_then(|b| b.iter().find(|(k, _)| matches(k)))
        {
            return Ok(Arc::clone(hit));
        }
        drop(read);
        let built = Arc::new(to_linear_layout(attr, shape, version, elem_bits)?);
        let mut write = self.buckets.write().unwrap_or_else(PoisonError::into_inner);
        let bucket = write.entry(hash).or_default();
        // Another thread may have built it meanwhile: keep the first.
        if let Some((_, hit)) = bucket.iter().find(|(k, _)| matches(k)) {
            return Ok(Arc::clone(hit));
        }
        let key = Key {
            attr: attr.clone(),
            shape: shape.to_vec(),
            version,
            elem_bits,
        };
        bucket.push((key, Arc::clone(&built)));
        Ok(built)
    }

    /// How many conversions are stored.
    pub fn len(&self) -> usize {
        let read = self.buckets.read().unwrap_or_else(PoisonError::into_inner);
        read.values().map(Vec::len).sum()
    }

    /// Whether nothing is stored yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn hash_of(attr: &Attr, shape: &[u64], version: Release, elem_bits: Option<u64>) -> u64 {
    let mut h = FxHasher::default();
    attr.hash(&mut h);
    shape.hash(&mut h);
    version.hash(&mut h);
    elem_bits.hash(&mut h);
    h.finish()
}
