//! A stable 128-bit content hash (FNV-1a) for cache keys: the same bytes
//! give the same key on every machine and build, which `std`'s hasher does
//! not promise. Keys are not a defence against crafted collisions; the
//! cache is the user's own.

/// The FNV-1a 128-bit hash of `bytes`, as 32 hex digits.
pub fn hex(bytes: &[u8]) -> String {
    format!("{:032x}", fnv128(bytes))
}

fn fnv128(bytes: &[u8]) -> u128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    bytes
        .iter()
        .fold(OFFSET, |h, &b| (h ^ u128::from(b)).wrapping_mul(PRIME))
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_values() {
        assert_eq!(super::hex(b""), "6c62272e07bb014262b821756295c58d");
        assert_ne!(super::hex(b"a"), super::hex(b"b"));
        assert_eq!(super::hex(b"a").len(), 32);
    }
}
