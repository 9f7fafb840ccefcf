//! Prints every detected feature, the detected level, the ceiling and the
//! level dispatchers will use: `cargo run -p cpu-detect --example report`.

fn main() {
    let f = cpu_detect::features();
    println!("target arch: {}", std::env::consts::ARCH);
    let flags: [(&str, bool); 20] = [
        ("sse2", f.sse2),
        ("ssse3", f.ssse3),
        ("sse4.1", f.sse41),
        ("sse4.2", f.sse42),
        ("popcnt", f.popcnt),
        ("avx", f.avx),
        ("avx2", f.avx2),
        ("bmi1", f.bmi1),
        ("bmi2", f.bmi2),
        ("avx512f", f.avx512f),
        ("avx512bw", f.avx512bw),
        ("avx512vl", f.avx512vl),
        ("avx512vpopcntdq", f.avx512vpopcntdq),
        ("avx512bitalg", f.avx512bitalg),
        ("avx512vbmi", f.avx512vbmi),
        ("avx512vbmi2", f.avx512vbmi2),
        ("neon", f.neon),
        ("sve", f.sve),
        ("zbb", f.zbb),
        ("v", f.v),
    ];
    for (name, on) in flags {
        println!("  {name:<16} {}", if on { "yes" } else { "no" });
    }
    println!("  {:<16} {}", "misaligned", f.misaligned_scalar.name());
    println!(
        "  {:<16} {:?}, family {:#x}, model {:#x}{}",
        "vendor",
        f.vendor,
        f.family,
        f.model,
        if f.splits_256bit_ops() {
            " (256-bit operations run as two halves)"
        } else if f.splits_512bit_ops() {
            " (512-bit operations run as two halves)"
        } else {
            ""
        }
    );
    println!("detected level: {}", cpu_detect::detected_level());
    match cpu_detect::ceiling() {
        Some(cap) => println!("ceiling: {cap} (CPU_DETECT_MAX_LEVEL or set_max_level)"),
        None => println!("ceiling: none"),
    }
    println!("level: {}", cpu_detect::max_level());
}
