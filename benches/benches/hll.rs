//! Benchmarks for `hll` (filled in by its issue).

fn placeholder(_c: &mut criterion::Criterion) {}

criterion::criterion_group! {
    name = benches;
    config = benches::config();
    targets = placeholder
}
criterion::criterion_main!(benches);
