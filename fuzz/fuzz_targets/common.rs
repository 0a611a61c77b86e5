//! The input layout of the targets that feed a stream in pieces: the first byte's value mod 8 is
//! the number of cuts, the next two bytes per cut (little-endian, mod the body's length + 1) say
//! where, the rest is the stream. A text seed starts with `0` (48 mod 8 = 0: no cut), so the
//! corpus stays readable and libFuzzer mutates the cuts like any other byte.

pub fn cut(data: &[u8]) -> (Vec<&[u8]>, &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return (Vec::new(), data);
    };
    let header = (2 * usize::from(n % 8)).min(rest.len());
    let (offsets, body) = rest.split_at(header);
    let mut cuts: Vec<usize> = offsets
        .chunks_exact(2)
        .map(|c| usize::from(u16::from_le_bytes([c[0], c[1]])) % (body.len() + 1))
        .collect();
    cuts.sort_unstable();
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for c in cuts {
        pieces.push(&body[start..c]);
        start = c;
    }
    pieces.push(&body[start..]);
    (pieces, body)
}
