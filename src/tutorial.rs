//! # A short tutorial: layouts as linear maps over GF(2)
//!
//! ## Why linear?
//! A GPU kernel spreads a tensor over registers, threads (lanes), warps and
//! CTAs (blocks). Every index is a bit pattern: lane 5 is `0b00101`. Triton's
//! observation is that every layout it uses sends each *input bit* to a fixed
//! offset in the tensor, and combines bits with XOR: the element held by
//! register `r` of lane `l` is `L(r) ⊕ L(l)`. A map that respects XOR is a
//! linear map over the two-element field GF(2), so a layout is a bit matrix.
//!
//! ## Bases
//! Rather than a matrix, a layout is written as *bases*: for each in-dim, the
//! image of each of its bits. Here each lane holds one element of a 4 × 8
//! tile: the first three lane bits walk along columns (`dim1`), the last two
//! down rows (`dim0`):
//!
//! ```
//! use linear_layout::{LinearLayout, dim};
//! let lanes = LinearLayout::from_bases(
//!     &[(dim("lane"), vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0]])],
//!     &[dim("dim0"), dim("dim1")],
//! )?;
//! // lane 11 = 0b01011 = bits 0, 1, 3 → (0,1) ⊕ (0,2) ⊕ (1,0) = (1, 3)
//! let at = lanes.apply(&[(dim("lane"), 11)])?;
//! assert_eq!(at.as_slice(), &[(dim("dim0"), 1), (dim("dim1"), 3)]);
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```
//!
//! A zero basis means *broadcast*: flipping that bit reaches the same element,
//! so those lanes hold copies.
//!
//! ## Building layouts: the product
//! `inner.product(&outer)` places a copy of `inner` at every point of `outer`:
//! registers inside lanes inside warps. Triton builds every layout this way.
//!
//! ```
//! use linear_layout::{LinearLayout, dim};
//! let (r, l, c) = (dim("register"), dim("lane"), dim("dim1"));
//! let tile = LinearLayout::identity_1d(4, r, c)?.product(&LinearLayout::identity_1d(8, l, c)?)?;
//! // 4 consecutive elements per thread, 8 threads side by side: lane 1 starts at 4.
//! assert_eq!(tile.apply(&[(r, 0), (l, 1)])?.as_slice(), &[(c, 4)]);
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```
//!
//! ## Converting between layouts: solving
//! To move data from layout `A` to layout `B`, a compiler needs, for each of
//! A's hardware positions, the position in B holding the same element: a `C`
//! with `B(C(x)) = A(x)`. That is [`LinearLayout::invert_and_compose`](crate::LinearLayout::invert_and_compose). When
//! B broadcasts, many `C` work; Triton picks the one that uses only B's
//! *pivot* bits (bits independent of the bits before them), and this crate
//! picks the same one, bit for bit.
//!
//! ## Why the errors matter
//! Each operation has preconditions (matching dims, sizes that fit, images
//! that contain each other). Triton checks them with `assert`, which kills the
//! process. Here each is a [`LayoutError`](crate::LayoutError) naming the
//! operation, the dims and the sizes — the raw material for explaining a
//! compiler crash.
