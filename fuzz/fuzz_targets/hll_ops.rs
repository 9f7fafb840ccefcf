//! Random sequences of hll operations (add, merge, count, count_union, sparse
//! limits) checked after every step against a reference model that keeps the
//! 16384 registers as plain bytes and counts with the spec's estimator.
#![no_main]

use libfuzzer_sys::fuzz_target;

const M: usize = 16384;

/// (index, count) of an element, as the spec derives them from the hash.
fn index_count(element: &[u8]) -> (usize, u8) {
    let h = hll::hash(element);
    let index = (h & 16383) as usize;
    let rest = (h >> 14) | (1 << 50);
    (index, rest.trailing_zeros() as u8 + 1)
}

fn sigma(mut x: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    let mut y = 1.0;
    let mut z = x;
    loop {
        x *= x;
        let zp = z;
        z += x * y;
        y += y;
        if zp == z {
            return z;
        }
    }
}

fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 {
        return 0.0;
    }
    let mut y = 1.0;
    let mut z = 1.0 - x;
    loop {
        x = x.sqrt();
        let zp = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
        if zp == z {
            return z / 3.0;
        }
    }
}

/// The spec's estimator over plain registers.
fn estimate(regs: &[u8; M]) -> u64 {
    let mut hist = [0u32; 64];
    for &r in regs {
        hist[usize::from(r)] += 1;
    }
    let m = M as f64;
    let mut z = m * tau((m - f64::from(hist[51])) / m);
    for j in (1..=50).rev() {
        z += f64::from(hist[j]);
        z *= 0.5;
    }
    z += m * sigma(f64::from(hist[0]) / m);
    (0.721347520444481703680 * m * m / z).round() as u64
}

fuzz_target!(|data: &[u8]| {
    let mut hlls = [hll::Hll::new(), hll::Hll::new(), hll::Hll::new()];
    let mut model = [[0u8; M]; 3];
    // Bounded work per input: a few hundred operations are plenty to reach
    // promotion, merges of mixed encodings and cached counts.
    let mut ops = &data[..data.len().min(400)];
    while let Some((&op, rest)) = ops.split_first() {
        ops = rest;
        let k = usize::from(op >> 6) % 3;
        match op & 7 {
            0..=2 => {
                // Add the next few bytes as one element.
                let n = usize::from(op >> 3 & 7).min(ops.len());
                let (element, rest) = ops.split_at(n);
                ops = rest;
                let (i, c) = index_count(element);
                let changed = c > model[k][i];
                model[k][i] = model[k][i].max(c);
                assert_eq!(hlls[k].add(element), changed);
            }
            3 => {
                // Many elements at once (promotes to dense).
                let base = u32::from(op);
                let elements: Vec<[u8; 4]> = (0..200u32)
                    .map(|i| (base * 1000 + i).to_le_bytes())
                    .collect();
                for e in &elements {
                    let (i, c) = index_count(e);
                    model[k][i] = model[k][i].max(c);
                }
                hlls[k].add_all(elements.iter().map(|e| &e[..]));
            }
            4 => {
                let (a, b) = ((k + 1) % 3, (k + 2) % 3);
                for i in 0..M {
                    model[k][i] = model[k][i].max(model[a][i]).max(model[b][i]);
                }
                let (x, y) = (hlls[a].clone(), hlls[b].clone());
                hlls[k].merge(&[&x, &y]);
            }
            5 => assert_eq!(hlls[k].count(), estimate(&model[k])),
            6 => {
                let mut union = [0u8; M];
                for (u, i) in union.iter_mut().zip(0..M) {
                    *u = model[0][i].max(model[1][i]).max(model[2][i]);
                }
                assert_eq!(
                    hll::count_union(&[&hlls[0], &hlls[1], &hlls[2]]),
                    estimate(&union)
                );
            }
            _ => hlls[k].set_sparse_max_bytes(16 + usize::from(op >> 3) * 97),
        }
        assert_eq!(
            hlls[k].registers(),
            model[k],
            "registers after op {op:#04x}"
        );
        let back = hll::Hll::from_bytes(hlls[k].as_bytes()).expect("own bytes decode");
        assert_eq!(back.registers(), model[k]);
    }
});
