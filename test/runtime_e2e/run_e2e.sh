#!/bin/bash
# Runtime end-to-end tests: hand-precompiled programs (*.c3.c, in the exact shape c3-precompile
# emits) linked with libc3rt.a, killed at chosen points and restarted; the output must equal the
# plain build's byte for byte, and every error path must give its one clear line.
#
# usage: run_e2e.sh <cc> <libc3rt.a> <include dir> <source dir> <work dir> <scenario>
set -u
CC=$1 LIB=$2 INC=$3 SRC=$4 WORK=$5 SCENARIO=$6

failures=0
fail() {
  echo "FAIL [$SCENARIO]: $*"
  failures=$((failures + 1))
}
# expect_file_eq <actual> <expected> <what>
expect_same() {
  if ! cmp -s "$1" "$2"; then
    fail "$3: $1 differs from $2"
    diff "$2" "$1" | head -20
  fi
}
expect_rc() {  # expect_rc <actual> <expected> <what>
  [ "$1" = "$2" ] || fail "$3: exit status $1, expected $2"
}
expect_grep() {  # expect_grep <fixed string> <file> <what>
  grep -qF -- "$1" "$2" || { fail "$3: '$1' not in $2:"; cat "$2"; }
}
expect_line() {  # expect_line <exact line> <file>: the file is exactly that one line
  printf '%s\n' "$1" > "$2.want"
  cmp -s "$2" "$2.want" || { fail "expected exactly: $1"; echo "got:"; cat "$2"; }
}

rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
C3FLAGS=(-O2 -no-pie -Wl,--build-id "-I$INC")
LINK=("$LIB" -lboost_serialization -lstdc++)

build() {  # build <name> [extra cflags...]: plain (expected output) and c3 builds of <name>
  local name=$1
  shift
  "$CC" -O2 "-I$INC" "$@" -o "$name.plain" "$SRC/$name.c" "$SRC/plain_c3_api.c" || exit 1
  "$CC" "${C3FLAGS[@]}" -Wall -Wextra -Werror "$@" -o "$name" "$SRC/$name.c3.c" "${LINK[@]}" || exit 1
}

# Runs <prog> killed by C3_FAULT=<fault>, then restarts it with C3_RESTART=latest, stdout appended
# to the same file. Leaves out, err1, err2.
kill_and_restart() {
  local prog=$1 fault=$2
  shift 2
  rm -rf c3-ckpt
  env C3_FAULT="$fault" "$@" "./$prog" world > out 2> err1
  expect_rc $? 137 "run with C3_FAULT=$fault must die by SIGKILL"
  env C3_RESTART=latest "./$prog" >> out 2> err2
  expect_rc $? 0 "restart after $fault"
}

flip_middle_byte() {
  python3 - "$1" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
data[len(data) // 2] ^= 0x40
open(path, 'wb').write(data)
PY
}

case $SCENARIO in
uninterrupted)
  build recurse
  ./recurse.plain world > expected
  ./recurse world > out 2> err
  expect_rc $? 0 "uninterrupted run"
  expect_same out expected "uninterrupted output"
  [ "$(grep -c '^c3: checkpoint [1-6] committed ([0-9.]* KiB, [0-9.]* s)$' err)" = 6 ] ||
    { fail "expected 6 'committed' lines"; cat err; }
  [ "$(ls c3-ckpt)" = "$(printf 'ckpt.000005\nckpt.000006')" ] || fail "C3_KEEP=2 must keep 5 and 6: $(ls c3-ckpt)"
  [ -f c3-ckpt/ckpt.000006/COMMITTED ] || fail "no COMMITTED marker"
  # C3_KEEP=1 leaves one.
  rm -rf c3-ckpt && C3_KEEP=1 ./recurse world > /dev/null 2>&1
  [ "$(ls c3-ckpt)" = ckpt.000006 ] || fail "C3_KEEP=1 must keep only 6: $(ls c3-ckpt)"
  ;;

after-commit)
  build recurse
  ./recurse.plain world > expected
  kill_and_restart recurse after-commit:2
  expect_same out expected "output after kill at after-commit:2 and restart"
  [ "$(tail -1 err1)" = "c3: checkpoint 2 committed $(tail -1 err1 | sed 's/.*committed //')" ] ||
    fail "the commit line must be printed before the kill"
  expect_grep "c3: restarting from checkpoint 2 (./c3-ckpt/ckpt.000002)" err2 "restart line"
  # Arguments come from the checkpoint (the restart passed none): 'arg=world' throughout.
  expect_grep "step 5: sum=77280 counter=21 arg=world" out "argv survives the restart"
  ;;

twice)
  # Killed, restarted, killed again, restarted again.
  build recurse
  ./recurse.plain world > expected
  rm -rf c3-ckpt
  C3_FAULT=after-commit:2 ./recurse world > out 2> /dev/null
  C3_FAULT=after-commit:4 C3_RESTART=latest ./recurse >> out 2> err2
  expect_rc $? 137 "first restart must die at after-commit:4"
  C3_RESTART=latest ./recurse >> out 2> err3
  expect_rc $? 0 "second restart"
  expect_grep "c3: restarting from checkpoint 4 " err3 "second restart line"
  expect_same out expected "output after two kills"
  ;;

mid-write)
  build recurse
  ./recurse.plain world > expected
  kill_and_restart recurse mid-write:3
  [ -e c3-ckpt/ckpt.000003/COMMITTED ] && fail "a half-written checkpoint must not be committed"
  expect_grep "c3: restarting from checkpoint 2 " err2 "falls back to checkpoint 2"
  expect_same out expected "output after kill mid-write"
  ;;

before-commit)
  build recurse
  ./recurse.plain world > expected
  rm -rf c3-ckpt
  C3_FAULT=before-commit:3 ./recurse world > out 2> err1
  expect_rc $? 137 "before-commit:3 must die"
  [ -f c3-ckpt/ckpt.000003/rank.0.c3 ] || fail "rank file of 3 must be in place"
  [ -e c3-ckpt/ckpt.000003/COMMITTED ] && fail "checkpoint 3 must not be committed"
  C3_RESTART=latest ./recurse >> out 2> err2
  expect_rc $? 0 "restart after before-commit"
  expect_grep "c3: restarting from checkpoint 2 " err2 "uncommitted 3 is skipped"
  expect_same out expected "output after kill before commit"
  ;;

damaged)
  build recurse
  ./recurse.plain world > expected
  rm -rf c3-ckpt
  C3_FAULT=after-commit:4 ./recurse world > out 2> err1
  flip_middle_byte c3-ckpt/ckpt.000004/rank.0.c3
  C3_RESTART=latest ./recurse >> out 2> err2
  expect_rc $? 0 "restart with damaged newest checkpoint"
  expect_grep "c3: warning: checkpoint 4 is damaged (" err2 "damage warning"
  expect_grep "; falling back to checkpoint 3" err2 "fallback named"
  expect_grep "c3: restarting from checkpoint 3 " err2 "restart from 3"
  expect_same out expected "output after fallback"
  # Asking for the damaged one explicitly is an error, no fallback.
  rm -rf c3-ckpt
  C3_FAULT=after-commit:4 ./recurse world > /dev/null 2>&1
  flip_middle_byte c3-ckpt/ckpt.000004/rank.0.c3
  C3_RESTART=4 ./recurse > out4 2> err4
  expect_rc $? 2 "explicit damaged checkpoint"
  expect_grep "c3: error: checkpoint 4 is damaged (" err4 "explicit damaged message"
  [ -s out4 ] && fail "nothing may run from a damaged checkpoint"
  # Every committed checkpoint damaged: error, not a silent fresh start.
  flip_middle_byte c3-ckpt/ckpt.000003/rank.0.c3
  C3_RESTART=auto ./recurse > out5 2> err5
  expect_rc $? 2 "all checkpoints damaged"
  expect_grep "no older committed checkpoint" err5 "all damaged message"
  ;;

older)
  # Restart from an older checkpoint than the newest: output still exact (cut back further).
  build recurse
  ./recurse.plain world > expected
  rm -rf c3-ckpt
  C3_FAULT=after-commit:2 ./recurse world > out 2> /dev/null
  C3_RESTART=1 ./recurse >> out 2> err2
  expect_rc $? 0 "explicit C3_RESTART=1"
  expect_grep "c3: restarting from checkpoint 1 " err2 "restart from 1"
  expect_same out expected "output after restart from checkpoint 1"
  C3_RESTART=99 ./recurse > out99 2> err99
  expect_rc $? 2 "missing checkpoint"
  expect_line "c3: error: checkpoint 99 not found in ./c3-ckpt" err99
  ;;

new-stdout)
  # Restarted into a fresh file (not >>): it holds exactly what follows the checkpoint.
  build recurse
  ./recurse.plain world > expected
  rm -rf c3-ckpt
  C3_FAULT=after-commit:3 ./recurse world > before 2> /dev/null
  cp -r c3-ckpt c3-ckpt.copy
  C3_RESTART=latest ./recurse > after 2> /dev/null
  expect_rc $? 0 "restart into a new file"
  cat before after > joined
  expect_same joined expected "output before the kill + output of the restart"
  # Through a pipe: same content.
  C3_CKPT_DIR=c3-ckpt.copy C3_RESTART=3 ./recurse 2> /dev/null | cat > piped
  expect_same piped after "restart output through a pipe"
  ;;

foreign)
  build recurse
  rm -rf c3-ckpt
  ./recurse world > /dev/null 2>&1
  "$CC" "${C3FLAGS[@]}" '-DGREETING="hi"' -o recurse2 "$SRC/recurse.c3.c" "${LINK[@]}" || exit 1
  C3_RESTART=latest ./recurse2 > out 2> err
  expect_rc $? 2 "restart with a different executable"
  expect_grep "c3: error: checkpoint 6 was written by a different executable (build-id " err "foreign message"
  expect_grep "); rebuild or point C3_CKPT_DIR elsewhere" err "foreign hint"
  [ -s out ] && fail "a foreign checkpoint must not run"
  ;;

no-checkpoint)
  build recurse
  ./recurse.plain world > expected
  C3_RESTART=latest C3_CKPT_DIR=empty ./recurse > out 2> err
  expect_rc $? 2 "latest with no checkpoint"
  expect_line "c3: error: nothing to restart from: the checkpoint directory empty does not exist (set C3_CKPT_DIR to the directory the first run wrote its checkpoints to)" err
  C3_RESTART=auto C3_CKPT_DIR=empty2 ./recurse world > out 2> err
  expect_rc $? 0 "auto with no checkpoint runs fresh"
  expect_same out expected "auto fresh run"
  ;;

bad-env)
  build recurse
  check_bad() {  # check_bad VAR value "expected line"
    env "$1=$2" ./recurse world > out 2> err
    expect_rc $? 2 "$1='$2'"
    expect_line "$3" err
    [ -s out ] && fail "$1='$2': the program must not run"
    [ -e c3-ckpt ] && fail "$1='$2': nothing may be written"
  }
  rm -rf c3-ckpt
  check_bad C3_INTERVAL abc "c3: error: C3_INTERVAL='abc': expected a number of seconds > 0"
  check_bad C3_INTERVAL 0 "c3: error: C3_INTERVAL='0': expected a number of seconds > 0"
  check_bad C3_KEEP 0 "c3: error: C3_KEEP='0': expected an integer >= 1"
  check_bad C3_RESTART newest "c3: error: C3_RESTART='newest': expected 'latest', 'auto' or a checkpoint number"
  check_bad C3_STACK_SIZE 12X "c3: error: C3_STACK_SIZE='12X': expected a size in bytes with an optional K, M or G suffix (e.g. 256M)"
  check_bad C3_HEAP_SIZE -1 "c3: error: C3_HEAP_SIZE='-1': expected a size in bytes with an optional K, M or G suffix (e.g. 256M)"
  check_bad C3_VERBOSE yes "c3: error: C3_VERBOSE='yes': expected 0 or 1"
  check_bad C3_FAULT crash:1 "c3: error: C3_FAULT='crash:1': expected STAGE:N or STAGE:N@RANK, STAGE one of after-commit, mid-write, before-commit, before-release, mid-release, nondet-log, recvonly-log, after-local-commit, site (N >= 1)"
  ;;

unwritable)
  build recurse
  ./recurse.plain world > expected
  # A path below a regular file cannot be created, even by root.
  touch not-a-dir
  C3_CKPT_DIR=not-a-dir/ckpt ./recurse world > out 2> err
  expect_rc $? 0 "unwritable checkpoint directory"
  expect_same out expected "output with an unwritable checkpoint directory"
  [ "$(grep -c '^c3: error: checkpoint 1 not written: .*not-a-dir/ckpt.*; no committed checkpoint yet$' err)" = 6 ] ||
    { fail "expected 6 'not written' lines"; cat err; }
  # A checkpoint directory that turns unusable after checkpoint 2: 3.. fail, 2 stays the newest.
  rm -rf c3-ckpt
  C3_FAULT=after-commit:2 ./recurse world > out 2> /dev/null
  mv c3-ckpt saved && touch c3-ckpt-file && mkdir -p c3-ckpt && mv saved/* c3-ckpt/ && rmdir saved
  chmod 0500 c3-ckpt
  if [ "$(id -u)" != 0 ]; then
    C3_RESTART=latest ./recurse >> out 2> err2
    expect_rc $? 0 "read-only directory after restart"
    expect_same out expected "output with a read-only checkpoint directory"
    expect_grep "c3: error: checkpoint 3 not written: " err2 "read-only failure"
    expect_grep "; checkpoint 2 stays the newest" err2 "read-only failure names the newest"
  fi
  chmod 0700 c3-ckpt
  ;;

disk-full)
  # Checkpoint 3 onwards runs out of space: each attempt is reported, its leftovers removed, and
  # the program finishes correctly; a later restart uses checkpoint 2.
  build recurse
  ./recurse.plain world > expected
  "$CC" -shared -fPIC -o enospc_shim.so "$SRC/enospc_shim.c" -ldl || exit 1
  rm -rf c3-ckpt
  C3_FAULT=after-commit:2 ./recurse world > out 2> /dev/null
  cp out out-at-2
  LD_PRELOAD=$PWD/enospc_shim.so C3_TEST_DISK_BYTES=1000 C3_RESTART=latest ./recurse >> out 2> err
  expect_rc $? 0 "run on a full disk"
  expect_same out expected "output on a full disk"
  [ "$(grep -c '^c3: error: checkpoint 3 not written: .*No space left on device; checkpoint 2 stays the newest$' err)" = 4 ] ||
    { fail "expected 4 'not written' lines for checkpoint 3"; cat err; }
  [ "$(ls c3-ckpt)" = "$(printf 'ckpt.000001\nckpt.000002')" ] || fail "leftovers of failed checkpoints: $(ls c3-ckpt)"
  cp out-at-2 out
  C3_RESTART=latest ./recurse >> out 2> err2
  expect_rc $? 0 "restart after the disk-full run"
  expect_grep "c3: restarting from checkpoint 2 " err2 "checkpoint 2 is still the newest"
  expect_same out expected "output of the restart after the disk-full run"
  ;;

interval)
  build interval
  ./interval.plain > expected
  rm -rf c3-ckpt
  ./interval > out 2> err
  expect_rc $? 0 "interval program without C3_INTERVAL"
  expect_same out expected "interval program output"
  expect_line "c3: warning: checkpoint at interval.c:20 not taken: it is reached through a call c3 cannot re-enter (into 'cmp' from code c3 did not instrument, e.g. a library callback or a function c3 left uninstrumented); move the pragma out of it" err
  [ -e c3-ckpt ] && fail "without C3_INTERVAL unforced sites must not checkpoint"
  # Checkpoints by time, killed at the 30 millionth pragma visit, restarted.
  kill_and_restart interval site:30000000 C3_INTERVAL=0.05
  grep -q "committed" err1 || fail "no checkpoint committed before the kill"
  expect_grep "on_restart: arg in the heap" err2 "restart callback"
  expect_same out expected "interval program after kill and restart"
  ;;

*)
  echo "unknown scenario $SCENARIO"
  exit 2
  ;;
esac

if [ "$failures" -ne 0 ]; then
  echo "$SCENARIO: $failures failure(s)"
  exit 1
fi
echo "$SCENARIO: ok"
