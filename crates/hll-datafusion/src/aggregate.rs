//! The aggregates `redis_hll` (PFADD) and `redis_hll_merge` (PFMERGE), for
//! one group ([`Accumulator`]) and many ([`GroupsAccumulator`]). Their
//! partial state is the Redis string itself, one `Binary` field.

use crate::values::{self, Sink};
use datafusion::arrow::array::{Array, ArrayRef, BinaryArray, BooleanArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility,
};
use hll::{Hll, Registers};
use std::sync::Arc;

/// Which aggregate: the two share the state and the merge of states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// `redis_hll(x)`: PFADD of the values.
    Add,
    /// `redis_hll_merge(h)`: PFMERGE of HyperLogLog strings.
    Merge,
}

/// `redis_hll(x)`: the Redis string `PFADD key` builds from the values.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct RedisHll {
    signature: Signature,
    kind: Kind,
}

impl RedisHll {
    pub(crate) fn add() -> RedisHll {
        RedisHll {
            signature: Signature::any(1, Volatility::Immutable),
            kind: Kind::Add,
        }
    }

    pub(crate) fn merge() -> RedisHll {
        RedisHll {
            signature: Signature::any(1, Volatility::Immutable),
            kind: Kind::Merge,
        }
    }
}

impl AggregateUDFImpl for RedisHll {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Add => "redis_hll",
            Kind::Merge => "redis_hll_merge",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        match self.kind {
            Kind::Add => values::check_element_type(self.name(), arg_types)?,
            Kind::Merge => values::check_hll_type(self.name(), arg_types)?,
        }
        Ok(DataType::Binary)
    }

    fn is_nullable(&self) -> bool {
        false
    }

    fn default_value(&self, _data_type: &DataType) -> Result<ScalarValue> {
        Ok(ScalarValue::Binary(Some(Hll::new().into_bytes())))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![Arc::new(Field::new(
            format_state_name(args.name, "hll"),
            DataType::Binary,
            false,
        ))])
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        self.check_args(&args)?;
        Ok(Box::new(One {
            kind: self.kind,
            hll: match self.kind {
                Kind::Add => None,
                Kind::Merge => Some(Hll::new()),
            },
            dense: None,
        }))
    }

    fn groups_accumulator_supported(&self, _args: AccumulatorArgs) -> bool {
        true
    }

    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        self.check_args(&args)?;
        Ok(Box::new(Groups::new(self.kind)))
    }
}

impl RedisHll {
    fn check_args(&self, args: &AccumulatorArgs) -> Result<()> {
        let types: Vec<DataType> = args
            .expr_fields
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        self.return_type(&types).map(|_| ())
    }
}

/// The execution error for a state or input that is not a HyperLogLog.
fn invalid(function: &str, e: hll::Error) -> DataFusionError {
    DataFusionError::Execution(format!("{function}: {e}"))
}

fn name(kind: Kind) -> &'static str {
    match kind {
        Kind::Add => "redis_hll",
        Kind::Merge => "redis_hll_merge",
    }
}

/// The longest sparse string one element makes: the header, two XZERO
/// and one VAL opcode. (Strings this short may also hold a few registers.)
const ONE_REGISTER_MAX_BYTES: usize = hll::HEADER_BYTES + 5;

/// Folds one partial state of `redis_hll` into a group. An empty group
/// takes the state as it is (so one partial state passes through byte for
/// byte); a state as short as one element's has each register it sets
/// added as an element that sets it would be (for a one-element state,
/// the PFADD of that element: rows passed on one by one, when DataFusion
/// skips partial aggregation, still give PFADD's bytes); anything else is
/// merged (PFMERGE). The registers are the union's in every case.
fn absorb_add(slot: &mut Option<Hll>, state: Hll) {
    match slot {
        None => *slot = Some(state),
        Some(h) if state.is_sparse() && state.as_bytes().len() <= ONE_REGISTER_MAX_BYTES => {
            for (i, &v) in state.registers().iter().enumerate() {
                if v != 0 {
                    h.add_hash(register_hash(i, v));
                }
            }
        }
        Some(h) => h.merge(&[&state]),
    }
}

/// A hash whose register index is `index` and whose run length is `count`
/// (1..=51), as `hll` splits hashes: index in the low 14 bits, the count
/// one more than the trailing zeros above them.
fn register_hash(index: usize, count: u8) -> u64 {
    let index = index as u64;
    if count >= 51 {
        index
    } else {
        index | 1u64 << (14 + u32::from(count) - 1)
    }
}

fn parse(kind: Kind, bytes: &[u8]) -> Result<Hll> {
    Hll::from_bytes(bytes).map_err(|e| invalid(name(kind), e))
}

/// Heap bytes of one HLL: its string and, while sparse, the add index.
fn heap_bytes(h: &Hll) -> usize {
    h.as_bytes().len() + if h.is_sparse() { 512 } else { 0 }
}

/// One group.
struct One {
    kind: Kind,
    /// `None` until the first value or state (redis_hll only), and once
    /// `dense` holds the registers.
    hll: Option<Hll>,
    /// redis_hll once dense: the registers a byte each.
    dense: Option<Registers>,
}

impl std::fmt::Debug for One {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("One")
            .field("kind", &self.kind)
            .field("hll", &self.hll)
            .field("dense", &self.dense.is_some())
            .finish()
    }
}

struct AddDense<'a>(&'a mut Registers);

impl Sink for AddDense<'_> {
    fn take<T: AsRef<[u8]>>(&mut self, rows: impl Iterator<Item = (usize, T)>) {
        self.0.add_all(rows.map(|(_, v)| v));
    }
}

struct AddAll<'a>(&'a mut Hll);

impl Sink for AddAll<'_> {
    fn take<T: AsRef<[u8]>>(&mut self, rows: impl Iterator<Item = (usize, T)>) {
        self.0.add_all(rows.map(|(_, v)| v));
    }
}

/// Collects the HyperLogLog strings of the selected rows, validated.
struct Parsed<'a> {
    kind: Kind,
    out: &'a mut Vec<(usize, Hll)>,
    error: Option<DataFusionError>,
}

impl Sink for Parsed<'_> {
    fn take<T: AsRef<[u8]>>(&mut self, rows: impl Iterator<Item = (usize, T)>) {
        for (i, v) in rows {
            match parse(self.kind, v.as_ref()) {
                Ok(h) => self.out.push((i, h)),
                Err(e) => {
                    self.error = Some(e);
                    return;
                }
            }
        }
    }
}

fn parse_rows(
    kind: Kind,
    array: &dyn Array,
    filter: Option<&BooleanArray>,
) -> Result<Vec<(usize, Hll)>> {
    let mut out = Vec::new();
    let mut sink = Parsed {
        kind,
        out: &mut out,
        error: None,
    };
    values::feed(array, values::mask(array, filter).as_ref(), &mut sink)?;
    match sink.error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

impl One {
    fn bytes(&self) -> Vec<u8> {
        match (&self.dense, &self.hll) {
            (Some(d), _) => d.to_bytes(),
            (None, Some(h)) => h.as_bytes().to_vec(),
            (None, None) => Hll::new().into_bytes(),
        }
    }

    /// Moves a dense `hll` to `dense`: a dense string depends only on its
    /// header and registers, so the registers a byte each give the same
    /// bytes at the end (`Registers::to_bytes`).
    fn settle(&mut self) {
        if let Some(h) = self.hll.take_if(|h| !h.is_sparse()) {
            self.dense = Some(Registers::from_hll(&h));
        }
    }
}

impl Accumulator for One {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let array = values[0].as_ref();
        match self.kind {
            Kind::Add => {
                let mask = values::mask(array, None);
                if let Some(d) = &mut self.dense {
                    return values::feed(array, mask.as_ref(), &mut AddDense(d));
                }
                let h = self.hll.get_or_insert_with(Hll::new);
                values::feed(array, mask.as_ref(), &mut AddAll(h))?;
                self.settle();
                Ok(())
            }
            Kind::Merge => {
                let inputs = parse_rows(self.kind, array, None)?;
                merge_all(self.hll.get_or_insert_with(Hll::new), &inputs);
                Ok(())
            }
        }
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let inputs = parse_rows(self.kind, states[0].as_ref(), None)?;
        match self.kind {
            Kind::Add => {
                for (_, h) in inputs {
                    match &mut self.dense {
                        Some(d) => d.merge(&h),
                        None => absorb_add(&mut self.hll, h),
                    }
                    self.settle();
                }
            }
            Kind::Merge => merge_all(self.hll.get_or_insert_with(Hll::new), &inputs),
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(self.bytes()))])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Binary(Some(self.bytes())))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self.hll.as_ref().map_or(0, heap_bytes)
            + self.dense.as_ref().map_or(0, Registers::heap_bytes)
    }
}

/// PFMERGE of `inputs` into `dest`, in one pass over them.
fn merge_all(dest: &mut Hll, inputs: &[(usize, Hll)]) {
    if inputs.is_empty() {
        return;
    }
    let refs: Vec<&Hll> = inputs.iter().map(|(_, h)| h).collect();
    dest.merge(&refs);
}

/// Many groups, indexed by DataFusion's group index.
#[derive(Debug)]
struct Groups {
    kind: Kind,
    /// `None`: no value or state yet (evaluates to the empty HLL).
    groups: Vec<Option<Hll>>,
    /// Heap bytes held by `groups`, kept up to date (size() is O(1)).
    heap: usize,
    /// Scratch space of [`AddToGroups`], kept between batches.
    bursts: Bursts,
}

/// A batch's hashes sorted by group (each group's in row order), reused
/// from batch to batch.
#[derive(Debug, Default)]
struct Bursts {
    /// Each row's group and hash, in row order.
    rows: Vec<(usize, u64)>,
    /// Per group, the end of its hashes in `hashes` once sorted.
    end: Vec<usize>,
    hashes: Vec<u64>,
}

impl Bursts {
    fn heap_bytes(&self) -> usize {
        self.rows.capacity() * std::mem::size_of::<(usize, u64)>()
            + self.end.capacity() * std::mem::size_of::<usize>()
            + self.hashes.capacity() * std::mem::size_of::<u64>()
    }
}

/// A batch takes the burst path from this many rows per group on average.
const BURST_MIN_ROWS: usize = 2;

struct AddToGroups<'a> {
    groups: &'a mut [Option<Hll>],
    index: &'a [usize],
    heap: &'a mut usize,
    bursts: &'a mut Bursts,
}

impl AddToGroups<'_> {
    /// PFADD of `hashes`, in order, into group `g`.
    fn add(&mut self, g: usize, hashes: &[u64]) {
        let slot = &mut self.groups[g];
        let before = slot.as_ref().map_or(0, heap_bytes);
        let h = slot.get_or_insert_with(Hll::new);
        for &x in hashes {
            h.add_hash(x);
        }
        *self.heap = (*self.heap + heap_bytes(h)).saturating_sub(before);
    }
}

impl Sink for AddToGroups<'_> {
    /// With several rows per group, the batch is hashed first, then added
    /// group by group: each group's string is edited in one burst while it
    /// is in cache, instead of once per row at random (a sparse edit moves
    /// the string's tail). Within a group the rows keep their order, so the
    /// bytes are those of PFADD row by row.
    fn take<T: AsRef<[u8]>>(&mut self, rows: impl Iterator<Item = (usize, T)>) {
        let groups = self.groups.len();
        if groups * BURST_MIN_ROWS > self.index.len() {
            for (row, v) in rows {
                self.add(self.index[row], &[hll::hash(v.as_ref())]);
            }
            return;
        }
        let mut b = std::mem::take(self.bursts);
        b.rows.clear();
        b.rows
            .extend(rows.map(|(row, v)| (self.index[row], hll::hash(v.as_ref()))));
        // A stable counting sort by group.
        b.end.clear();
        b.end.resize(groups, 0);
        for &(g, _) in &b.rows {
            b.end[g] += 1;
        }
        let mut sum = 0;
        for e in &mut b.end {
            let n = *e;
            *e = sum;
            sum += n;
        }
        b.hashes.resize(b.rows.len(), 0);
        for &(g, h) in &b.rows {
            b.hashes[b.end[g]] = h;
            b.end[g] += 1;
        }
        let mut start = 0;
        for g in 0..groups {
            let end = b.end[g];
            if end > start {
                self.add(g, &b.hashes[start..end]);
            }
            start = end;
        }
        *self.bursts = b;
    }
}

impl Groups {
    fn new(kind: Kind) -> Groups {
        Groups {
            kind,
            groups: Vec::new(),
            heap: 0,
            bursts: Bursts::default(),
        }
    }

    fn take(&mut self, emit_to: EmitTo) -> Vec<Option<Hll>> {
        let taken = emit_to.take_needed(&mut self.groups);
        let freed: usize = taken.iter().flatten().map(heap_bytes).sum();
        self.heap = self.heap.saturating_sub(freed);
        taken
    }

    fn emit(&mut self, emit_to: EmitTo) -> ArrayRef {
        let empty = Hll::new().into_bytes();
        let taken = self.take(emit_to);
        let array: BinaryArray = taken
            .iter()
            .map(|g| Some(g.as_ref().map_or(&empty[..], Hll::as_bytes)))
            .collect();
        Arc::new(array)
    }

    fn fold(&mut self, inputs: Vec<(usize, Hll)>, group_indices: &[usize]) {
        for (row, h) in inputs {
            let slot = &mut self.groups[group_indices[row]];
            let before = slot.as_ref().map_or(0, heap_bytes);
            match self.kind {
                Kind::Add => absorb_add(slot, h),
                Kind::Merge => slot.get_or_insert_with(Hll::new).merge(&[&h]),
            }
            let after = slot.as_ref().map_or(0, heap_bytes);
            self.heap = (self.heap + after).saturating_sub(before);
        }
    }
}

impl GroupsAccumulator for Groups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.groups.resize_with(total_num_groups, || None);
        let array = values[0].as_ref();
        match self.kind {
            Kind::Add => {
                let mut sink = AddToGroups {
                    groups: &mut self.groups,
                    index: group_indices,
                    heap: &mut self.heap,
                    bursts: &mut self.bursts,
                };
                values::feed(array, values::mask(array, opt_filter).as_ref(), &mut sink)
            }
            Kind::Merge => {
                let inputs = parse_rows(self.kind, array, opt_filter)?;
                self.fold(inputs, group_indices);
                Ok(())
            }
        }
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.groups.resize_with(total_num_groups, || None);
        let inputs = parse_rows(self.kind, values[0].as_ref(), None)?;
        self.fold(inputs, group_indices);
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        Ok(self.emit(emit_to))
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        Ok(vec![self.emit(emit_to)])
    }

    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        // Each row as its own group.
        let array = values[0].as_ref();
        let mut rows: Vec<Option<Hll>> = vec![None; array.len()];
        match self.kind {
            Kind::Add => {
                let index: Vec<usize> = (0..array.len()).collect();
                let mut heap = 0;
                let mut sink = AddToGroups {
                    groups: &mut rows,
                    index: &index,
                    heap: &mut heap,
                    bursts: &mut Bursts::default(),
                };
                values::feed(array, values::mask(array, opt_filter).as_ref(), &mut sink)?;
            }
            Kind::Merge => {
                for (row, h) in parse_rows(self.kind, array, opt_filter)? {
                    let mut m = Hll::new();
                    m.merge(&[&h]);
                    rows[row] = Some(m);
                }
            }
        }
        let empty = Hll::new().into_bytes();
        let array: BinaryArray = rows
            .iter()
            .map(|g| Some(g.as_ref().map_or(&empty[..], Hll::as_bytes)))
            .collect();
        Ok(vec![Arc::new(array)])
    }

    fn size(&self) -> usize {
        self.groups.capacity() * std::mem::size_of::<Option<Hll>>()
            + self.heap
            + self.bursts.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::AsArray;

    fn state_bytes(a: &ArrayRef, row: usize) -> &[u8] {
        a.as_binary::<i32>().value(row)
    }

    /// A group's registers a byte each (`hll::Registers`, what a single
    /// group keeps once dense) give the bytes of the same adds and merges
    /// on the `Hll`.
    #[test]
    fn registers_give_the_hll_bytes() {
        let mut h = Hll::new();
        h.add_all((0..5000u32).map(|i| i.to_le_bytes()));
        assert!(!h.is_sparse());
        let mut r = Registers::from_hll(&h);
        assert_eq!(r.to_bytes(), h.as_bytes());
        for i in 5000..200_000u32 {
            let e = i.wrapping_mul(2_654_435_761).to_be_bytes();
            h.add(&e);
            r.add(&e);
        }
        assert_eq!(r.to_bytes(), h.as_bytes());
        let mut other = Hll::new();
        other.add_all((0..100u32).map(|i| format!("o{i}")));
        h.merge(&[&other]);
        r.merge(&other);
        assert_eq!(r.to_bytes(), h.as_bytes());
        // A written cache: adds that change nothing keep it valid.
        h.count();
        let mut r = Registers::from_hll(&h);
        r.add(&0u32.to_le_bytes());
        assert_eq!(r.to_bytes(), h.as_bytes());
    }

    #[test]
    fn register_hash_lands_on_its_register() {
        for index in [0usize, 1, 5000, 16383] {
            for count in 1..=51u8 {
                let mut a = Hll::new();
                a.add_hash(register_hash(index, count));
                let r = a.registers();
                assert_eq!(r[index], count);
                assert_eq!(r.iter().filter(|&&v| v != 0).count(), 1);
            }
        }
    }

    #[test]
    fn one_element_states_are_short() {
        for e in 0..20_000u32 {
            let mut h = Hll::new();
            h.add(&e.to_le_bytes());
            assert!(h.as_bytes().len() <= ONE_REGISTER_MAX_BYTES);
        }
    }

    #[test]
    fn absorbing_short_states_keeps_the_union_registers() {
        let mut rng = 0x1234_5678_9abc_def0u64;
        for _ in 0..300 {
            let mut slot = Some(Hll::new());
            let mut union = Hll::new();
            for _ in 0..20 {
                let mut state = Hll::new();
                for _ in 0..(rng % 3) {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    // Neighbouring registers: short strings with VAL runs.
                    state.add_hash((rng % 8) | (rng & !0x3fff));
                }
                union.merge(&[&state]);
                absorb_add(&mut slot, state);
            }
            assert_eq!(slot.unwrap().registers(), union.registers());
        }
    }

    #[test]
    fn absorbing_single_element_states_is_pfadd() {
        let elements: Vec<String> = (0..3000).map(|i| format!("e{i}")).collect();
        let mut expected = Hll::new();
        let mut slot = None;
        for e in &elements {
            expected.add(e.as_bytes());
            let mut one = Hll::new();
            one.add(e.as_bytes());
            absorb_add(&mut slot, one);
        }
        assert_eq!(slot.unwrap().as_bytes(), expected.as_bytes());
    }

    /// Batches with many rows per group (added group by group) and with
    /// few (row by row) give every group the bytes of PFADD in row order,
    /// after each batch: sparse strings of neighbouring registers (whose
    /// bytes depend on the order of the adds), conversions to dense, nulls.
    #[test]
    fn grouped_batches_are_pfadd_in_row_order() {
        let groups = 7;
        // Values whose registers are among the first 700.
        let near: Vec<String> = (0..)
            .map(|i| format!("n{i}"))
            .filter(|v| hll::hash(v.as_bytes()) & 0x3fff < 700)
            .take(3000)
            .collect();
        let mut acc = Groups::new(Kind::Add);
        let mut want = vec![Hll::new(); groups];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for (rows, spread) in [
            (2000, false),
            (3, false),
            (3000, false),
            (10, true),
            (30_000, true),
        ] {
            let mut values = Vec::with_capacity(rows);
            let mut index = Vec::with_capacity(rows);
            for _ in 0..rows {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let g = (x % groups as u64) as usize;
                let v = if spread {
                    format!("v{}", x % 200_000)
                } else {
                    near[(x % 3000) as usize].clone()
                };
                let v = (!x.is_multiple_of(11)).then_some(v);
                if let Some(v) = &v {
                    want[g].add(v.as_bytes());
                }
                index.push(g);
                values.push(v);
            }
            let array: ArrayRef = Arc::new(datafusion::arrow::array::StringArray::from(values));
            acc.update_batch(&[array], &index, None, groups).unwrap();
            for (g, h) in want.iter().enumerate() {
                let got = acc.groups[g].as_ref().unwrap();
                assert_eq!(got.as_bytes(), h.as_bytes(), "group {g} after {rows} rows");
            }
        }
        assert!(want.iter().all(|h| !h.is_sparse()));
        let state = acc.state(EmitTo::All).unwrap().remove(0);
        for (g, h) in want.iter().enumerate() {
            assert_eq!(state_bytes(&state, g), h.as_bytes(), "group {g}");
        }
    }

    #[test]
    fn state_is_the_redis_string() {
        let mut acc = Groups::new(Kind::Add);
        let values: ArrayRef = Arc::new(datafusion::arrow::array::StringArray::from(vec![
            Some("a"),
            None,
            Some("b"),
        ]));
        acc.update_batch(&[values], &[0, 0, 1], None, 3).unwrap();
        let state = acc.state(EmitTo::All).unwrap().remove(0);
        let mut a = Hll::new();
        a.add(b"a");
        let mut b = Hll::new();
        b.add(b"b");
        assert_eq!(state_bytes(&state, 0), a.as_bytes());
        assert_eq!(state_bytes(&state, 1), b.as_bytes());
        assert_eq!(state_bytes(&state, 2), Hll::new().as_bytes());
    }
}
