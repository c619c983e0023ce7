#!/bin/bash
# Golden tests of c3-precompile, in the style of clang-tools-extra's lit tests: every input holds
# its own FileCheck lines. Directives inside an input (all optional):
#
#   // C3-VARIANT: <prefix> [args] [other.c...]  one precompiler run per line, checked with
#                                               --check-prefix=<prefix>. Words ending in .c name
#                                               more sources of the program (relative to the
#                                               input's folder), precompiled in the same call;
#                                               the rest are precompiler options. Without any
#                                               variant: one run of the input alone, prefix CHECK
#   // C3-RUN: [<fault>]                        run mode: kill at C3_FAULT=<fault>, then restart
#                                               (no fault: only the uninterrupted run)
#   // C3-RUN-STDERR: <text>                    run mode: the uninterrupted c3 run's stderr
#                                               holds this line
#   // C3-CFLAGS: <flags>                       compile and run modes: more compiler flags, for
#                                               warnings the input itself draws
#
# usage: run_golden.sh <mode> <input.c> <work dir> <c3-precompile> <FileCheck> <include dir> [c3cc]
#   golden     precompile each variant and FileCheck the output, from the input's first line on
#              (without the embedded c3_abi.h); other sources with <prefix> lines are checked too
#   compile    clang -c the generated code of each variant with -Wall -Wextra -Werror
#   diagnose   the precompiler must exit 1; FileCheck its stderr (exact whitespace)
#   run        build the input alone with c3cc; a plain clang build's output and exit status must
#              equal the c3 build's, both uninterrupted and killed at each C3-RUN fault and
#              restarted with C3_RESTART=latest
set -u
MODE=$1 INPUT=$2 WORK=$3 PRECOMPILE=$4 FILECHECK=$5 INCLUDE=$6 C3CC=${7:-}
CLANG=${C3_TEST_CLANG:-clang-14}
SRC_DIR=$(cd "$(dirname "$INPUT")" && pwd)
INPUT=$SRC_DIR/$(basename "$INPUT")
NAME=$(basename "$INPUT" .c)

fail() {
  echo "FAIL [$MODE $NAME]: $*" >&2
  exit 1
}

rm -rf "$WORK" && mkdir -p "$WORK" || fail "cannot create $WORK"
cd "$WORK" || exit 1

# Values of one directive, one per line.
directive() { sed -n "s|^[[:space:]]*// $1:[[:space:]]*||p" "$INPUT"; }

mapfile -t VARIANTS < <(directive C3-VARIANT)
read -r -a CFLAGS <<< "$(directive C3-CFLAGS)"
[ ${#VARIANTS[@]} -gt 0 ] || VARIANTS=("CHECK")

preprocess() {  # preprocess <source> <output.i>
  "$CLANG" -E -isystem "$INCLUDE" -include c3/c3_abi.h "$1" -o "$2" || fail "clang -E $1 failed"
}

# Splits variant <index>: sets PREFIX, OPTIONS (array) and SOURCES (absolute paths, input first).
parse_variant() {
  local words word
  read -r PREFIX words <<< "${VARIANTS[$1]}"
  OPTIONS=()
  SOURCES=("$INPUT")
  for word in $words; do
    case $word in
    *.c) SOURCES+=("$SRC_DIR/$word") ;;
    *) OPTIONS+=("$word") ;;
    esac
  done
}

# precompile <variant index>: writes v<index>/<stem>.c3.i for every source of the variant.
# Returns the precompiler's exit status; its stderr is in v<index>/stderr.
precompile() {
  local dir=v$1 pairs=() source stem
  mkdir -p "$dir"
  for source in "${SOURCES[@]}"; do
    stem=$(basename "$source" .c)
    preprocess "$source" "$dir/$stem.i"
    pairs+=("$dir/$stem.i" "$dir/$stem.c3.i")
  done
  "$PRECOMPILE" "${OPTIONS[@]}" "${pairs[@]}" 2> "$dir/stderr"
}

# own_text <source> <generated>: the generated code from the source's own first line on, without
# the embedded c3_abi.h (the first line marker of the source after the header's).
own_text() {
  awk -v file="$1" 'index($0, "c3/c3_abi.h\"") { abi = 1 }
                    abi && index($0, "# 1 \"" file "\"") == 1 { on = 1 }
                    on' "$2"
}

# check_output <variant index> <source>: FileCheck the source's generated code.
check_output() {
  local dir=v$1 source=$2 stem
  stem=$(basename "$source" .c)
  own_text "$source" "$dir/$stem.c3.i" > "$dir/$stem.own.c"
  [ -s "$dir/$stem.own.c" ] || fail "no line marker for $source in $dir/$stem.c3.i"
  "$FILECHECK" --match-full-lines --check-prefix="$PREFIX" --input-file="$dir/$stem.own.c" \
    "$source" || fail "FileCheck --check-prefix=$PREFIX on $WORK/$dir/$stem.own.c"
}

case $MODE in
golden | compile)
  for index in "${!VARIANTS[@]}"; do
    parse_variant "$index"
    precompile "$index" ||
      { cat "v$index/stderr" >&2; fail "c3-precompile ${OPTIONS[*]} failed (variant $PREFIX)"; }
    if [ "$MODE" = golden ]; then
      check_output "$index" "$INPUT"
      for source in "${SOURCES[@]:1}"; do
        if grep -q "// $PREFIX[-A-Z]*:" "$source"; then check_output "$index" "$source"; fi
      done
    else
      for generated in "v$index"/*.c3.i; do
        "$CLANG" -c -Wall -Wextra -Werror "${CFLAGS[@]}" "$generated" -o "${generated%.i}.o" ||
          fail "the code generated for variant $PREFIX does not compile cleanly: $WORK/$generated"
      done
    fi
  done
  ;;
diagnose)
  for index in "${!VARIANTS[@]}"; do
    parse_variant "$index"
    precompile "$index"
    status=$?
    [ "$status" = 1 ] || { cat "v$index/stderr" >&2; fail "c3-precompile exited $status, expected 1"; }
    "$FILECHECK" --strict-whitespace --check-prefix="$PREFIX" --input-file="v$index/stderr" \
      "$INPUT" || fail "FileCheck --check-prefix=$PREFIX on $WORK/v$index/stderr"
  done
  ;;
run)
  [ -n "$C3CC" ] || fail "run mode needs c3cc"
  "$CLANG" -O1 -w -o plain "$INPUT" || fail "plain build failed"
  "$C3CC" -O1 -Wall -Wextra -Werror "${CFLAGS[@]}" -o c3prog "$INPUT" || fail "c3cc build failed"
  ./plain > expected
  expected_status=$?
  export C3_CKPT_DIR=$WORK/ckpt
  ./c3prog > out 2> err
  status=$?
  [ "$status" = "$expected_status" ] ||
    { cat err >&2; fail "the c3 build exited $status, the plain build $expected_status"; }
  cmp -s out expected || { diff expected out >&2; fail "uninterrupted c3 run differs"; }
  while IFS= read -r line; do
    grep -qxF -- "$line" err || { cat err >&2; fail "the c3 run's stderr lacks: $line"; }
  done < <(directive C3-RUN-STDERR)
  mapfile -t FAULTS < <(directive C3-RUN)
  for fault in "${FAULTS[@]}"; do
    [ -n "$fault" ] || continue  # a bare C3-RUN: only the uninterrupted run
    rm -rf "$C3_CKPT_DIR"
    # (The braces' stderr takes bash's notice of the intended SIGKILL.)
    { C3_FAULT=$fault ./c3prog > out 2> err1; } 2> /dev/null
    status=$?
    [ "$status" = 137 ] || { cat err1 >&2; fail "C3_FAULT=$fault: exit $status, expected 137"; }
    C3_RESTART=latest ./c3prog >> out 2> err2
    status=$?
    [ "$status" = "$expected_status" ] ||
      { cat err2 >&2; fail "restarted after $fault: exit $status, the plain build $expected_status"; }
    grep -q '^c3: restarting from checkpoint' err2 || { cat err2 >&2; fail "no restart after $fault"; }
    cmp -s out expected || { diff expected out >&2; fail "killed at $fault and restarted: output differs"; }
  done
  ;;
*) fail "unknown mode '$MODE'" ;;
esac
echo "PASS [$MODE $NAME]"
