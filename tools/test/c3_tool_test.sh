#!/bin/sh
# CTest for the c3 tool: exit codes and messages on good, damaged, incomplete checkpoints.
#   c3_tool_test.sh C3 SAMPLE_WRITER WORK_DIR
set -u
C3=$1
SAMPLE=$2
WORK=$3
DIR=$WORK/ckpts
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect STATUS PATTERN -- command...: runs it, checks exit status and that output matches.
expect() {
  want_status=$1
  pattern=$2
  shift 3
  out=$("$@" 2>&1)
  status=$?
  [ "$status" -eq "$want_status" ] || fail "'$*' exited $status, expected $want_status. Output:
$out"
  if [ -n "$pattern" ] && ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
    fail "'$*' output lacks '$pattern'. Output:
$out"
  fi
}

# Overwrites one byte of a file (at OFFSET) with 0xA5.
poke() {
  printf '\245' | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

rm -rf "$WORK"
mkdir -p "$WORK"
"$SAMPLE" "$DIR" 1 1 || exit 1
"$SAMPLE" "$DIR" 2 3 || exit 1
"$SAMPLE" "$DIR" 3 2 --no-commit || exit 1

expect 0 "c3 0.1.0" -- "$C3" --version
expect 0 "verify DIR" -- "$C3" --help
expect 2 "unknown command 'frobnicate'" -- "$C3" frobnicate "$DIR"
expect 2 "usage" -- "$C3"
expect 2 "No such file or directory" -- "$C3" verify "$WORK/missing"
expect 2 "No such file or directory" -- "$C3" ls "$WORK/missing"
expect 2 "not a directory" -- "$C3" info "$DIR/ckpt.000001/rank.0.c3"
expect 2 "no checkpoint 9" -- "$C3" verify "$DIR" 9
expect 2 "not a checkpoint number" -- "$C3" verify "$DIR" nine

expect 0 "ckpt.000002  *committed  *3/3" -- "$C3" ls "$DIR"
expect 0 "ckpt.000003  *incomplete *1 " -- "$C3" ls "$DIR"
expect 0 "ckpt.000003: incomplete: 1 rank file written and no commit marker (the job stopped while writing it); a restart never uses it" -- "$C3" ls "$DIR"
expect 0 "ckpt.000001: ok (1 rank," -- "$C3" verify "$DIR"
expect 0 "ckpt.000002: ok (3 ranks," -- "$C3" verify "$DIR"
expect 0 "ckpt.000003: incomplete" -- "$C3" verify "$DIR"
expect 0 "HEAP  *100002 bytes" -- "$C3" info "$DIR" 2
expect 0 "rank            1 of 3" -- "$C3" info "$DIR" ckpt.000002

# A flipped byte in the HEAP payload of rank 1 of checkpoint 2.
poke "$DIR/ckpt.000002/rank.1.c3" 50000
expect 1 "rank.1.c3: section HEAP: checksum mismatch" -- "$C3" verify "$DIR"
expect 1 "ckpt.000002: DAMAGED" -- "$C3" verify "$DIR" 2
expect 0 "ckpt.000001: ok" -- "$C3" verify "$DIR" 1
expect 1 "checksum mismatch" -- "$C3" info "$DIR" 2

# A truncated file.
truncate -s -40 "$DIR/ckpt.000001/rank.0.c3"
expect 1 "rank.0.c3: truncated after section FRAMES (expected END)" -- "$C3" verify "$DIR" 1

# A committed checkpoint with a missing rank file: ls flags it, verify fails.
"$SAMPLE" "$DIR" 4 2 || exit 1
rm "$DIR/ckpt.000004/rank.1.c3"
expect 0 "ckpt.000004  *damaged?  *1/2" -- "$C3" ls "$DIR"
expect 0 "ckpt.000004: committed by 2 ranks but 1 rank file(s) found; .c3 verify. tells which" -- "$C3" ls "$DIR"
expect 1 "rank.1.c3: missing" -- "$C3" verify "$DIR" 4

# Damage in a checkpoint that never committed is reported but is no error.
poke "$DIR/ckpt.000003/rank.0.c3" 100
expect 0 "incomplete (not committed; 1 rank file present, with errors)" -- "$C3" verify "$DIR" 3

# An empty directory.
mkdir -p "$WORK/empty"
expect 0 "no checkpoints" -- "$C3" verify "$WORK/empty"
expect 0 "no checkpoints" -- "$C3" ls "$WORK/empty"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
rm -rf "$WORK"
echo "all c3 tool checks passed"
