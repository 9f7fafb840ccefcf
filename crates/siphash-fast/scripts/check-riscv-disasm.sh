#!/usr/bin/env bash
# Checks from the disassembly that the riscv64 word-load path of
# siphash-fast reads its 8-byte blocks with `ld` and never with `lbu`.
#
# Usage (from anywhere in the workspace):
#   crates/siphash-fast/scripts/check-riscv-disasm.sh            # builds the test binary
#   crates/siphash-fast/scripts/check-riscv-disasm.sh BINARY...  # checks given riscv64 ELF files
#
# Without arguments it runs
#   cargo test -p siphash-fast --target riscv64gc-unknown-linux-gnu --test kernels --no-run
# (honouring CARGO_TARGET_DIR and the workspace's .cargo/config.toml linker)
# and checks the resulting executable. Environment:
#   OBJDUMP  objdump for riscv64 (default riscv64-linux-gnu-objdump)
#   SYMBOL   function name to look for (default siphash_rv64_word_blocks;
#            the block loop is #[inline(never)] under that name, one copy per
#            (rounds, nocase) instantiation)
#
# For every instance of the symbol it finds the loop (a backward branch to
# an address inside the function) and requires: at least one `ld` whose base
# register is not sp in the loop, and no `lbu`/`lb` anywhere in the function.
# Exit status 0 when every instance passes, 1 otherwise (or when none is found).
set -euo pipefail

OBJDUMP=${OBJDUMP:-riscv64-linux-gnu-objdump}
SYMBOL=${SYMBOL:-siphash_rv64_word_blocks}

if [ "$#" -eq 0 ]; then
    here=$(cd "$(dirname "$0")" && pwd)
    bin=$(cd "$here/../../.." && cargo test -p siphash-fast --target riscv64gc-unknown-linux-gnu \
        --test kernels --no-run --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
    if [ -z "$bin" ]; then
        echo "check-riscv-disasm: could not build the riscv64 test binary" >&2
        exit 1
    fi
    set -- "$bin"
fi

status=0
for bin in "$@"; do
    "$OBJDUMP" -d --no-show-raw-insn "$bin" | awk -v sym="$SYMBOL" -v bin="$bin" '
        # Portable (mawk has no strtonum).
        function hex(s,   i, v) {
            v = 0; s = tolower(s)
            for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return v
        }
        function check_fn(   i, lo, hi, ld_in_loop, narrow, loops) {
            if (name == "") return
            found++
            lo = -1; hi = -1; loops = 0; narrow = 0; ld_in_loop = 0
            for (i = 1; i <= n; i++) {
                if (op[i] ~ /^(lbu|lb)$/) narrow++
                # A branch back to an address inside this function is a loop.
                if (op[i] ~ /^(b|j)/ && args[i] ~ /</) {
                    t = args[i]; sub(/[ \t].*$/, "", t); sub(/.*,/, "", t)
                    tgt = hex(t)
                    if (tgt < addr[i] && tgt >= addr[1]) {
                        loops++
                        if (lo < 0 || tgt < lo) lo = tgt
                        if (addr[i] > hi) hi = addr[i]
                    }
                }
            }
            for (i = 1; i <= n; i++)
                if (addr[i] >= lo && addr[i] <= hi && op[i] == "ld" && args[i] !~ /\(sp\)/) ld_in_loop++
            ok = (loops > 0 && ld_in_loop > 0 && narrow == 0)
            printf "%s %s: %d instructions, loop %d, ld in loop %d, lbu/lb %d\n", ok ? "ok  " : "FAIL", name, n, loops, ld_in_loop, narrow
            if (!ok) bad++
        }
        /^[0-9a-f]+ <.*>:$/ {
            check_fn(); name = ""; n = 0
            if (index($0, sym) > 0) { name = $2; sub(/:$/, "", name) }
            next
        }
        name != "" && /^ +[0-9a-f]+:\t/ {
            line = $0
            a = line; sub(/:.*/, "", a); gsub(/ /, "", a)
            rest = line; sub(/^[^\t]*\t/, "", rest)
            n++
            addr[n] = hex(a)
            o = rest; sub(/[ \t].*$/, "", o); op[n] = o
            r = rest; sub(/^[^ \t]*[ \t]*/, "", r); args[n] = r
        }
        END {
            check_fn()
            if (found == 0) { printf "FAIL no function named *%s* in %s\n", sym, bin; exit 1 }
            exit bad > 0 ? 1 : 0
        }' || status=1
done
exit $status
