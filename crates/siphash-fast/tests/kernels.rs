//! Every kernel against the scalar oracle for every length 0..=80 at every
//! start offset 0..64 (misaligned word loads, overlapping tail loads), and
//! the dispatcher's choice.

use simd_core::testing::for_each_len_offset;
use siphash_fast as sf;

#[test]
fn kernel_list_shape() {
    let names: Vec<&str> = sf::kernels().map(|k| k.name()).collect();
    assert_eq!(names.last(), Some(&"scalar"), "{names:?}");
    #[cfg(target_arch = "x86_64")]
    {
        let f = cpu_detect::features();
        assert_eq!(names.contains(&"avx2"), f.avx2);
        assert_eq!(names.contains(&"avx512"), f.avx512f && f.avx2);
    }
    #[cfg(target_arch = "aarch64")]
    assert!(names.contains(&"neon"));
    // The word path is always testable on Linux, fast or not.
    #[cfg(all(target_arch = "riscv64", target_os = "linux"))]
    assert!(
        names.contains(&"rv64-word")
            || cpu_detect::features().misaligned_scalar
                == cpu_detect::MisalignedAccess::Unsupported
    );
    println!(
        "kernels: {names:?}, misaligned: {:?}",
        cpu_detect::features().misaligned_scalar
    );
}

#[test]
fn every_length_and_offset() {
    let key = *b"offsets-and-lens";
    let scalar = sf::kernels().last().unwrap();
    for k in sf::kernels() {
        for_each_len_offset(80, 11, |s, off| {
            let n = k.name();
            assert_eq!(
                k.siphash12(&key, s),
                scalar.siphash12(&key, s),
                "{n} len {} off {off}",
                s.len()
            );
            assert_eq!(
                k.siphash12_nocase(&key, s),
                scalar.siphash12_nocase(&key, s),
                "{n} nocase len {} off {off}",
                s.len()
            );
            assert_eq!(
                k.siphash13(&key, s),
                scalar.siphash13(&key, s),
                "{n} len {} off {off}",
                s.len()
            );
            assert_eq!(
                k.siphash24(&key, s),
                scalar.siphash24(&key, s),
                "{n} len {} off {off}",
                s.len()
            );
            assert_eq!(
                k.siphash13_128(&key, s),
                scalar.siphash13_128(&key, s),
                "{n} len {} off {off}",
                s.len()
            );
            assert_eq!(
                k.siphash24_128(&key, s),
                scalar.siphash24_128(&key, s),
                "{n} len {} off {off}",
                s.len()
            );
        });
    }
    // The public (possibly dispatched) functions too.
    for_each_len_offset(80, 12, |s, off| {
        assert_eq!(
            sf::siphash13(&key, s),
            scalar.siphash13(&key, s),
            "len {} off {off}",
            s.len()
        );
        assert_eq!(
            sf::siphash12_nocase(&key, s),
            scalar.siphash12_nocase(&key, s),
            "len {} off {off}",
            s.len()
        );
        assert_eq!(
            sf::siphash24_128(&key, s),
            scalar.siphash24_128(&key, s),
            "len {} off {off}",
            s.len()
        );
    });
}

#[test]
fn nocase_is_hash_of_lowercase() {
    let key = [5u8; 16];
    let all: Vec<u8> = (0..=255u8).collect();
    for k in sf::kernels() {
        for len in 0..all.len() {
            for start in [0usize, 60, 190] {
                let s = &all[start.min(255 - len.min(255))..]
                    [..len.min(256 - start.min(255 - len.min(255)))];
                assert_eq!(
                    k.siphash12_nocase(&key, s),
                    k.siphash12(&key, &s.to_ascii_lowercase()),
                    "{} len {}",
                    k.name(),
                    s.len()
                );
            }
        }
    }
}

#[test]
fn dispatcher_respects_cpu_and_ceiling() {
    let chosen = sf::selected_kernel();
    let max = cpu_detect::max_level();
    assert!(
        max.includes(chosen.level()),
        "{} above {max}",
        chosen.name()
    );
    assert!(sf::kernels().any(|k| k.name() == chosen.name()));
    // The best kernel the ceiling allows is the one chosen (riscv64 prefers
    // the word kernel only when misaligned loads are fast).
    #[cfg(not(target_arch = "riscv64"))]
    {
        let best = sf::kernels().find(|k| max.includes(k.level())).unwrap();
        assert_eq!(chosen.name(), best.name());
    }
    #[cfg(target_arch = "riscv64")]
    assert_eq!(
        chosen.name() == "rv64-word",
        cpu_detect::features().misaligned_scalar == cpu_detect::MisalignedAccess::Fast
    );
    println!("selected: {} (max level {max})", chosen.name());
}
