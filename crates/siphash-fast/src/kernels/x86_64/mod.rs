//! x86_64 batch kernels. One-shot hashing stays scalar (one `mov` per
//! block); SIMD pays off only across independent inputs. This file holds
//! the helper both kernels use.

pub(crate) mod avx2;
pub(crate) mod avx512;

/// The length shared by every input of `g`, if they all have one.
#[inline(always)]
pub(crate) fn same_len(g: &[&[u8]]) -> Option<usize> {
    let len = g[0].len();
    // An OR of differences, not `all()`: no early exit to mispredict.
    let diff = g.iter().fold(0, |a, x| a | (x.len() ^ len));
    (diff == 0).then_some(len)
}

#[cfg(test)]
mod tests {
    use super::same_len;

    /// The uniform-length fast path is taken exactly when every length is
    /// equal (a wrong answer either way still hashes correctly, so the
    /// oracle tests cannot see it).
    #[test]
    fn same_len_answers() {
        let (a, b, c) = (&[1u8; 16][..], &[2u8; 16][..], &[3u8; 17][..]);
        assert_eq!(same_len(&[a, b, a, b]), Some(16));
        assert_eq!(same_len(&[a, b, c, a]), None);
        assert_eq!(same_len(&[c, a]), None);
        assert_eq!(same_len(&[&[][..], &[][..]]), Some(0));
        assert_eq!(same_len(&[&[][..], &[0][..]]), None);
    }
}
