//! The aggregates `redis_hll` (PFADD) and `redis_hll_merge` (PFMERGE), for
//! one group ([`Accumulator`]) and many ([`GroupsAccumulator`]). Their
//! partial state is the Redis string itself, one `Binary` field.

use crate::group::Group;
use crate::values::{self, Sink};
use datafusion::arrow::array::{Array, ArrayRef, BinaryBuilder, BooleanArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility,
};
use hll::Hll;
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
            group: Group::default(),
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

/// Calls `each(row, bytes)` for every selected row of a column of
/// HyperLogLog strings, stopping at the first error it returns (a string
/// that is not a HyperLogLog).
fn for_each_hll(
    kind: Kind,
    array: &dyn Array,
    filter: Option<&BooleanArray>,
    mut each: impl FnMut(usize, &[u8]) -> std::result::Result<(), hll::Error>,
) -> Result<()> {
    struct Parse<'a, F> {
        kind: Kind,
        each: &'a mut F,
        error: Option<DataFusionError>,
    }
    impl<F: FnMut(usize, &[u8]) -> std::result::Result<(), hll::Error>> Sink for Parse<'_, F> {
        fn take<T: AsRef<[u8]>>(&mut self, rows: impl Iterator<Item = (usize, T)>) {
            for (i, v) in rows {
                if let Err(e) = (self.each)(i, v.as_ref()) {
                    self.error = Some(invalid(name(self.kind), e));
                    return;
                }
            }
        }
    }
    let mut sink = Parse {
        kind,
        each: &mut each,
        error: None,
    };
    values::feed(array, values::mask(array, filter).as_ref(), &mut sink)?;
    sink.error.map_or(Ok(()), Err)
}

/// One group: `Accumulator` for an aggregate without `GROUP BY`.
#[derive(Debug)]
struct One {
    kind: Kind,
    group: Group,
}

/// Adds the selected rows' elements to one group: hashed one by one while
/// the group is a list, added in bulk (hash and byte max, prefetched) once
/// it is dense.
struct AddOne<'a>(&'a mut Group);

impl Sink for AddOne<'_> {
    fn take<T: AsRef<[u8]>>(&mut self, rows: impl Iterator<Item = (usize, T)>) {
        let mut rows = rows.map(|(_, v)| v);
        while !matches!(self.0, Group::Dense(_)) {
            match rows.next() {
                Some(v) => {
                    self.0.add_hash(hll::hash(v.as_ref()));
                }
                None => return,
            }
        }
        if let Group::Dense(r) = self.0 {
            r.add_all(rows);
        }
    }
}

impl Accumulator for One {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let array = values[0].as_ref();
        match self.kind {
            Kind::Add => values::feed(
                array,
                values::mask(array, None).as_ref(),
                &mut AddOne(&mut self.group),
            ),
            Kind::Merge => self.merge_batch(values),
        }
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let group = &mut self.group;
        for_each_hll(self.kind, states[0].as_ref(), None, |_, bytes| {
            group.merge_bytes(bytes).map(|_| ())
        })
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![self.evaluate()?])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let mut h = Hll::new();
        self.group.write(&mut h);
        Ok(ScalarValue::Binary(Some(h.into_bytes())))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.group.heap_bytes()
    }
}

/// Many groups, indexed by DataFusion's group index.
#[derive(Debug)]
struct Groups {
    kind: Kind,
    groups: Vec<Group>,
    /// Heap bytes held by `groups`, kept up to date (size() is O(1)).
    heap: usize,
    /// Scratch space of [`AddToGroups`].
    hashed: Vec<(usize, u64)>,
}

/// How many rows ahead the group updates prefetch their group's state.
const PREFETCH_ROWS: usize = 16;

/// Hints that `groups[g]` will be read soon (a group array of a million
/// groups is far larger than the caches).
#[inline(always)]
fn prefetch_group(groups: &[Group], g: usize) {
    if let Some(group) = groups.get(g) {
        simd_core::prefetch_read((group as *const Group).cast());
    }
}

/// Adds each selected row's element to its group, in two passes: hash
/// every row, then update the groups (a loop of loads and byte stores with
/// no hash in it keeps more register misses in flight).
struct AddToGroups<'a> {
    groups: &'a mut [Group],
    index: &'a [usize],
    /// Each selected row's group and hash, reused from batch to batch.
    hashed: &'a mut Vec<(usize, u64)>,
    delta: isize,
}

impl Sink for AddToGroups<'_> {
    fn take<T: AsRef<[u8]>>(&mut self, rows: impl Iterator<Item = (usize, T)>) {
        self.hashed.clear();
        self.hashed
            .extend(rows.map(|(row, v)| (self.index[row], hll::hash(v.as_ref()))));
        let hashed = &*self.hashed;
        let mut delta = 0;
        // Two stages ahead: a group's slot, then (once the slot is in
        // cache) the register byte or list end an add writes.
        for (k, &(g, h)) in hashed.iter().enumerate() {
            if let Some(&(ahead, _)) = hashed.get(k + 2 * PREFETCH_ROWS) {
                prefetch_group(self.groups, ahead);
            }
            if let Some(&(ahead, hash)) = hashed.get(k + PREFETCH_ROWS) {
                self.groups[ahead].prefetch_add(hash);
            }
            delta += self.groups[g].add_hash(h);
        }
        self.delta += delta;
    }
}

impl Groups {
    fn new(kind: Kind) -> Groups {
        Groups {
            kind,
            groups: Vec::new(),
            heap: 0,
            hashed: Vec::new(),
        }
    }

    fn apply(&mut self, delta: isize) {
        self.heap = self.heap.saturating_add_signed(delta);
    }

    /// The canonical strings of the groups `emit_to` takes.
    fn emit(&mut self, emit_to: EmitTo) -> ArrayRef {
        let mut taken = emit_to.take_needed(&mut self.groups);
        let freed: usize = taken.iter().map(Group::heap_bytes).sum();
        self.heap = self.heap.saturating_sub(freed);
        let mut out = BinaryBuilder::with_capacity(taken.len(), taken.len() * 24);
        let mut h = Hll::new();
        for g in &mut taken {
            g.write(&mut h);
            out.append_value(h.as_bytes());
        }
        Arc::new(out.finish())
    }

    fn merge_states(
        &mut self,
        array: &dyn Array,
        group_indices: &[usize],
        filter: Option<&BooleanArray>,
    ) -> Result<()> {
        let groups = &mut self.groups;
        let mut delta = 0;
        let done = for_each_hll(self.kind, array, filter, |row, bytes| {
            if let Some(&ahead) = group_indices.get(row + PREFETCH_ROWS) {
                prefetch_group(groups, ahead);
            }
            delta += groups[group_indices[row]].merge_bytes(bytes)?;
            Ok(())
        });
        self.apply(delta);
        done
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
        self.groups.resize_with(total_num_groups, Group::default);
        let array = values[0].as_ref();
        match self.kind {
            Kind::Add => {
                let mut sink = AddToGroups {
                    groups: &mut self.groups,
                    index: group_indices,
                    hashed: &mut self.hashed,
                    delta: 0,
                };
                let fed = values::feed(array, values::mask(array, opt_filter).as_ref(), &mut sink);
                let delta = sink.delta;
                self.apply(delta);
                fed
            }
            Kind::Merge => self.merge_states(array, group_indices, opt_filter),
        }
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.groups.resize_with(total_num_groups, Group::default);
        self.merge_states(values[0].as_ref(), group_indices, None)
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
        // Each row as its own group: its string written straight from the
        // row (one register for an element, the canonical string of the
        // input for a HyperLogLog), through one reused buffer.
        let array = values[0].as_ref();
        let mut out = BinaryBuilder::with_capacity(array.len(), array.len() * 20);
        let mut h = Hll::new();
        let empty = Hll::new();
        let mut next = 0;
        let mut pad = |out: &mut BinaryBuilder, upto: usize| {
            while next < upto {
                out.append_value(empty.as_bytes());
                next += 1;
            }
            next += 1;
        };
        match self.kind {
            Kind::Add => {
                struct One<'a, F>(&'a mut F);
                impl<F: FnMut(usize, &[u8])> Sink for One<'_, F> {
                    fn take<T: AsRef<[u8]>>(&mut self, rows: impl Iterator<Item = (usize, T)>) {
                        for (row, v) in rows {
                            (self.0)(row, v.as_ref());
                        }
                    }
                }
                let mut each = |row: usize, v: &[u8]| {
                    pad(&mut out, row);
                    let written = h.set_registers([hll::register_of(hll::hash(v))]);
                    debug_assert!(written.is_ok());
                    out.append_value(h.as_bytes());
                };
                values::feed(
                    array,
                    values::mask(array, opt_filter).as_ref(),
                    &mut One(&mut each),
                )?;
            }
            Kind::Merge => {
                for_each_hll(self.kind, array, opt_filter, |row, bytes| {
                    pad(&mut out, row);
                    h.set_registers(hll::NonzeroRegisters::from_bytes(bytes)?)?;
                    out.append_value(h.as_bytes());
                    Ok(())
                })?;
            }
        }
        pad(&mut out, array.len());
        Ok(vec![Arc::new(out.finish())])
    }

    fn size(&self) -> usize {
        self.groups.capacity() * std::mem::size_of::<Group>() + self.heap
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{AsArray, StringArray};

    fn state_bytes(a: &ArrayRef, row: usize) -> &[u8] {
        a.as_binary::<i32>().value(row)
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Values whose registers are among the first 700: sparse strings of
    /// neighbouring registers, whose PFADD bytes depend on the order.
    fn near(n: usize) -> Vec<String> {
        (0..)
            .map(|i| format!("n{i}"))
            .filter(|v| hll::hash(v.as_bytes()) & 0x3fff < 700)
            .take(n)
            .collect()
    }

    /// Feeds `rows` (group, value) in batches of `batch` to a fresh
    /// accumulator and returns each group's string.
    fn run_groups(rows: &[(usize, Option<String>)], groups: usize, batch: usize) -> Vec<Vec<u8>> {
        let mut acc = Groups::new(Kind::Add);
        for chunk in rows.chunks(batch) {
            let index: Vec<usize> = chunk.iter().map(|r| r.0).collect();
            let values: ArrayRef = Arc::new(StringArray::from(
                chunk.iter().map(|r| r.1.clone()).collect::<Vec<_>>(),
            ));
            acc.update_batch(&[values], &index, None, groups).unwrap();
        }
        let state = acc.evaluate(EmitTo::All).unwrap();
        (0..groups)
            .map(|g| state_bytes(&state, g).to_vec())
            .collect()
    }

    /// Every group's string is the canonical string of PFADD of its
    /// values, whatever the row order and batch size: sparse strings of
    /// neighbouring registers, groups that turn dense, nulls, empty groups.
    #[test]
    fn grouped_output_depends_only_on_the_values() {
        let groups = 9;
        let near = near(3000);
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut rows = Vec::new();
        for k in 0..40_000usize {
            let x = rng.next();
            // Group 8 stays empty; group 0 gets many rows (dense).
            let g = if k % 3 == 0 { 0 } else { (x % 8) as usize };
            let v = if x.is_multiple_of(5) {
                format!("v{}", x % 200_000)
            } else {
                near[(x >> 8) as usize % 3000].clone()
            };
            rows.push((g, (!x.is_multiple_of(11)).then_some(v)));
        }
        let mut want = vec![Hll::new(); groups];
        for (g, v) in &rows {
            if let Some(v) = v {
                want[*g].add(v.as_bytes());
            }
        }
        let want: Vec<Vec<u8>> = want.iter().map(|h| h.to_canonical().into_bytes()).collect();
        assert!(Hll::from_bytes(&want[1]).unwrap().is_sparse());
        assert!(!Hll::from_bytes(&want[0]).unwrap().is_sparse());
        for batch in [1, 7, 8192, 40_000] {
            assert_eq!(run_groups(&rows, groups, batch), want, "batch {batch}");
        }
        let mut reversed = rows.clone();
        reversed.reverse();
        assert_eq!(run_groups(&reversed, groups, 1000), want);
        // A shuffle.
        for i in (1..rows.len()).rev() {
            rows.swap(i, (rng.next() % (i as u64 + 1)) as usize);
        }
        assert_eq!(run_groups(&rows, groups, 333), want);
    }

    /// The example from the issue tracker: 62 values raising 62 adjacent
    /// registers to 1 give one string in either order.
    #[test]
    fn adjacent_registers_in_either_order() {
        let mut picked: Vec<Option<String>> = vec![None; 62];
        for i in 0.. {
            let v = format!("a{i}");
            let (r, c) = hll::register_of(hll::hash(v.as_bytes()));
            if r < 62 && c == 1 && picked[r].is_none() {
                picked[r] = Some(v);
                if picked.iter().all(Option::is_some) {
                    break;
                }
            }
        }
        let rows: Vec<(usize, Option<String>)> = picked.into_iter().map(|v| (0, v)).collect();
        let up = run_groups(&rows, 1, 8192);
        let mut rev = rows.clone();
        rev.reverse();
        assert_eq!(run_groups(&rev, 1, 8192), up);
        // VAL(1,4) x 15 then VAL(1,2): registers set in index order.
        let body = &up[0][16..];
        assert_eq!(
            &body[..16],
            &[0x83; 15]
                .iter()
                .chain(&[0x81])
                .copied()
                .collect::<Vec<_>>()[..]
        );
    }

    #[test]
    fn state_is_the_redis_string() {
        let mut acc = Groups::new(Kind::Add);
        let values: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), None, Some("b")]));
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

    /// Partial states merged in any grouping give the canonical string of
    /// the union, and `size()` follows the groups' heap.
    #[test]
    fn merged_states_are_the_union() {
        let near = near(2000);
        let mut parts = Vec::new();
        let mut union = Hll::new();
        let mut rng = Rng(5);
        for p in 0..4 {
            let mut h = Hll::new();
            for _ in 0..[3, 40, 300, 5000][p] {
                let v = &near[(rng.next() % 2000) as usize];
                h.add(v.as_bytes());
                union.add(v.as_bytes());
            }
            parts.push(h.into_bytes());
        }
        let states: ArrayRef = Arc::new(datafusion::arrow::array::BinaryArray::from_iter_values(
            parts.iter(),
        ));
        for order in [[0usize, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]] {
            let mut acc = Groups::new(Kind::Add);
            for &p in &order {
                acc.merge_batch(&[states.slice(p, 1)], &[0], 1).unwrap();
                assert_eq!(
                    acc.size(),
                    acc.groups.capacity() * std::mem::size_of::<Group>()
                        + acc.groups.iter().map(Group::heap_bytes).sum::<usize>()
                );
            }
            let out = acc.evaluate(EmitTo::All).unwrap();
            assert_eq!(state_bytes(&out, 0), union.to_canonical().as_bytes());
        }
    }
}
