#!/usr/bin/env bash
# File-by-file builds with the real c3cc: each object carries its c3 link unit, and the link
# instruments again exactly the objects that the whole program shows to be instrumented wrongly.
#   usage: link_units_test.sh <case> <c3cc executable>
# cases: exact (which objects are compiled again, and a restart through them), plain_link (a
# link without c3cc is refused by name), damaged_unit (a broken unit is reported and its object
# linked as compiled), archive (code in an archive keeps the sound assumption), rebuild_one (one
# object compiled again with a pragma added, the others kept), other_clang (C3CC_CLANG naming
# another clang: c3-precompile runs its commands as processes, not the clang it links).
set -euo pipefail

case_name=$1
c3cc=$2
clang=${C3CC_CLANG:-clang-14}

work=$(mktemp -d "${TMPDIR:-/tmp}/c3cc-units.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() {
  echo "FAIL ($case_name): $*" >&2
  for f in link.err run.err; do [[ -f $f ]] && { echo "--- $f:" >&2; cat "$f" >&2; }; done
  exit 1
}

# main -> kernel (kernel.c) -> leaf (leaf.c, a forced pragma); kernel and main also call
# functions of util.c that reach nothing, which compiled alone they cannot know.
mkdir -p src obj
cat > src/main.c <<'C'
#include <stdio.h>
long kernel(int n);
long checksum(long total);
int main(void) {
  long total = 0;
  for (int i = 1; i <= 6; ++i) {
    total += kernel(i);
#pragma ccc_checkpoint
  }
  printf("total %ld checksum %ld\n", total, checksum(total));
  return 0;
}
C
cat > src/kernel.c <<'C'
long leaf(int i);
long scale(long x);
long kernel(int n) {
  long s = 0;
  for (int j = 0; j < n; ++j) s += scale(j);
  return s + leaf(n);
}
long pure_sum(int n) {
  long s = 0;
  for (int j = 0; j < n; ++j) s += scale(j);
  return s;
}
C
cat > src/leaf.c <<'C'
long leaf(int i) {
  if (i == 3) {
#pragma ccc_checkpoint force
  }
  return 10L * i;
}
C
cat > src/util.c <<'C'
long scale(long x) { return 3 * x + 1; }
long checksum(long total) { return total % 97; }
C
"$clang" -O2 -o ref src/*.c || fail "the plain build failed"
expected=$(./ref)

compile_all() {
  for f in main kernel leaf util; do
    "$c3cc" -O2 -c "src/$f.c" -o "obj/$f.o" || fail "c3cc -c src/$f.c failed"
  done
}

# link <output> <inputs...>: c3cc -v; the list of objects compiled again goes to ./again.
link() {
  local out=$1
  shift
  "$c3cc" -v -O2 -o "$out" "$@" 2> link.err || fail "c3cc link of $* failed"
  sed -n 's/^c3cc: instrumented again for the whole program: //p' link.err > again
}

expect_again() {
  [[ $(cat again) == "$1" ]] || fail "expected '$1' compiled again, got '$(cat again)'"
}

run_checked() {
  local output
  output=$(C3_CKPT_DIR=$work/ckpt "./$1" 2> run.err) || fail "$1 failed"
  [[ $output == "$expected" ]] || fail "$1 printed '$output', expected '$expected'"
}

case $case_name in
  exact)
    compile_all
    for f in main kernel leaf util; do
      readelf -S "obj/$f.o" | grep -q '\.c3\.unit' || fail "obj/$f.o has no .c3.unit section"
    done
    link prog obj/main.o obj/kernel.o obj/leaf.o obj/util.o
    # kernel.o: pure_sum was instrumented. (main.o and kernel.o also treated the calls of
    # checksum and scale as call sites: harmless, and left alone.)
    expect_again "obj/kernel.o"
    ! readelf -S prog | grep -q '\.c3\.unit' || fail "the executable kept a .c3.unit section"
    run_checked prog
    # Killed after the forced checkpoint in leaf, beneath main and kernel (compiled again).
    rm -rf ckpt
    status=0
    C3_CKPT_DIR=$work/ckpt C3_FAULT=after-commit:1 ./prog > first.out 2> run.err || status=$?
    [[ $status == 137 ]] || fail "C3_FAULT=after-commit:1: exit $status, expected 137"
    output=$(C3_CKPT_DIR=$work/ckpt C3_RESTART=latest ./prog 2> run.err) || fail "the restart failed"
    [[ $(cat first.out; echo "$output") == "$expected" ]] ||
      fail "killed and restarted: '$(cat first.out) / $output', expected '$expected'"
    ;;
  plain_link)
    compile_all
    status=0
    "$clang" -o plain obj/main.o obj/kernel.o obj/leaf.o obj/util.o 2> link.err || status=$?
    [[ $status != 0 ]] || fail "a plain link of c3cc objects succeeded"
    grep -q '__c3_objects_compiled_by_c3cc_must_be_linked_by_c3cc' link.err ||
      fail "the plain link's error does not name the c3cc guard symbol"
    ;;
  damaged_unit)
    compile_all
    objcopy --dump-section .c3.unit=unit.bin obj/kernel.o
    # A byte in the middle of the unit: inside its source text, which only the checksum covers.
    printf 'X' | dd of=unit.bin bs=1 seek=$(($(stat -c %s unit.bin) / 2)) conv=notrunc status=none
    objcopy --update-section .c3.unit=unit.bin obj/kernel.o obj/kernel-damaged.o
    link prog obj/main.o obj/kernel-damaged.o obj/leaf.o obj/util.o
    grep -q "warning: ignoring the c3 link unit of 'obj/kernel-damaged.o' (checksum mismatch)" link.err ||
      fail "the damaged unit was not reported"
    # Without kernel's unit the program is not known whole; kernel-damaged.o stays as compiled.
    [[ $(cat again) != *kernel* ]] || fail "the object with the damaged unit was compiled again"
    run_checked prog
    ;;
  archive)
    compile_all
    ar rcs libutil.a obj/util.o
    # util's functions are defined in no unit the link reads: they may reach a checkpoint, as
    # compiled alone: nothing is compiled again, whether the archive is named or found by -l.
    link prog obj/main.o obj/kernel.o obj/leaf.o libutil.a
    expect_again ""
    run_checked prog
    link prog2 obj/main.o obj/kernel.o obj/leaf.o -L. -lutil
    expect_again ""
    run_checked prog2
    ;;
  rebuild_one)
    compile_all
    link prog obj/main.o obj/kernel.o obj/leaf.o obj/util.o
    expect_again "obj/kernel.o"
    # scale gets a pragma: pure_sum reaches it, kernel.o's guess is right now.
    cat > src/util.c <<'C'
long scale(long x) {
  if (x == 2) {
#pragma ccc_checkpoint
  }
  return 3 * x + 1;
}
long checksum(long total) { return total % 97; }
C
    "$c3cc" -O2 -c src/util.c -o obj/util.o || fail "c3cc -c src/util.c failed"
    link prog obj/main.o obj/kernel.o obj/leaf.o obj/util.o
    expect_again ""
    run_checked prog
    ;;
  other_clang)
    printf '#!/bin/sh\necho "$*" >> "%s/clang.log"\nexec %s "$@"\n' "$work" "$clang" > other-clang
    chmod +x other-clang
    C3CC_CLANG=$work/other-clang "$c3cc" -O2 -c src/leaf.c -o obj/leaf.o || fail "c3cc -c with C3CC_CLANG failed"
    grep -q -- '-E .*src/leaf.c' clang.log || fail "the preprocess did not run the clang C3CC_CLANG names"
    grep -q -- '-x cpp-output -c .*leaf.c3.i -o obj/leaf.o' clang.log ||
      fail "the compile did not run the clang C3CC_CLANG names"
    ;;
  *) fail "unknown case" ;;
esac
echo "PASS ($case_name)"
