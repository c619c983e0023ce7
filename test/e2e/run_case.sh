#!/bin/bash
# End-to-end acceptance tests of c3: a C program built with c3cc is killed at chosen points (or
# at random) and restarted; its output must equal, byte for byte, that of the same program built
# with plain `mpicc -O2`. Also the error paths a user meets at this level.
#
#   run_case.sh build <work> <c3cc> <mpicc> <source dir> [--src F]... [--arg A]... [--cflag F]...
#                     [--env VAR=value]... [--stdin F] [--file F]... [--separate]
#       builds <work>/ref/<name> (mpicc -O2) and <work>/c3/<name> (one c3cc call); --separate
#       also builds <work>/c3sep/<name> file by file (c3cc -c, then c3cc *.o). Runs the
#       reference once (arguments, environment and stdin as given; every later run gets the
#       same) for the expected output and times one c3 run. Later actions read it all from <work>.
#       --file F: the program writes file F in its working directory; every run that finishes
#       must leave it equal to the reference's (<work>/expected.files/F).
#   run_case.sh <action> <work> [params] [--bin c3sep] [--restart auto|latest]
#                     [--restart-no-args | --restart-arg A...] [--env VAR=value]...
#       actions: separate-build | uninterrupted [min ckpts] | fault <C3_FAULT> | twice <fault> <fault> |
#       random <kills> [seed] | interval <seconds> <min ckpts> | release-window <checkpoint> |
#       split-output <fault> | shown-twice <checkpoint> | damaged flip|truncate <checkpoint> |
#       foreign | no-checkpoint | unwritable | bad-env | file-gone <fault> <file> |
#       refused <kind> <call:line> <n> (each is described where it is handled, below).
#
# Every action runs in its own scratch directory <work>/<action>[-<detail>] so tests can run in
# parallel. Exit status 0 = pass; failures are listed on stdout.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ACTION=${1:?action}
WORK=${2:?work dir}
shift 2
WORK=$(cd "$(dirname "$WORK")" && pwd)/$(basename "$WORK")
# Only what a test sets itself applies.
unset C3_RESTART C3_FAULT C3_INTERVAL C3_KEEP C3_VERBOSE C3_CKPT_DIR

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$ACTION: $failures failure(s) (scratch dir $SCRATCH)"
    exit 1
  fi
  echo "$ACTION: ok"
  exit 0
}
die() {
  echo "ERROR: $*"
  exit 1
}
expect_same() { # expect_same <actual> <expected> <what>
  if ! cmp -s "$1" "$2"; then
    fail "$3: output differs from the reference (< reference, > c3)"
    diff "$2" "$1" | head -20
  fi
}
expect_rc() { # expect_rc <actual> <expected> <what>
  [ "$1" = "$2" ] || fail "$3: exit status $1, expected $2"
}
expect_grep() { # expect_grep <extended regex> <file> <what>
  grep -qE -- "$1" "$2" || {
    fail "$3: /$1/ not found in $2:"
    head -20 "$2"
  }
}
expect_no_grep() {
  if grep -qE -- "$1" "$2"; then
    fail "$3: /$1/ found in $2:"
    grep -E -- "$1" "$2" | head -5
  fi
}
# c3 prints only its own lines on stderr; the test programs print nothing there.
expect_clean_stderr() { # expect_clean_stderr <file> <what>
  expect_no_grep '^c3: (error|warning)' "$1" "$2"
}
has_committed() { ls "$1"/ckpt.*/COMMITTED > /dev/null 2>&1; }
newest_committed() { # prints the number of the newest committed checkpoint in dir $1
  local d n=""
  for d in "$1"/ckpt.*; do
    [ -f "$d/COMMITTED" ] && n=$((10#${d##*ckpt.}))
  done
  echo "$n"
}

# ---------------------------------------------------------------------------------------------
if [ "$ACTION" = build ]; then
  C3CC=${1:?c3cc} MPICC=${2:?mpicc} SRCDIR=${3:?source dir}
  shift 3
  sources=() args=() cflags=() envs=() files=() separate=0 stdin=/dev/null
  while [ $# -gt 0 ]; do
    case $1 in
    --src) sources+=("$SRCDIR/$2"); shift 2 ;;
    --arg) args+=("$2"); shift 2 ;;
    --cflag) cflags+=("$2"); shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --stdin) stdin=$SRCDIR/$2; shift 2 ;;
    --file) files+=("$2"); shift 2 ;;
    --separate) separate=1; shift ;;
    *) die "build: unknown option $1" ;;
    esac
  done
  [ ${#sources[@]} -gt 0 ] || die "build: no --src"
  SCRATCH=$WORK
  rm -rf "$WORK" && mkdir -p "$WORK"/ref "$WORK"/c3 && cd "$WORK" || exit 1
  name=$(basename "$WORK")
  printf '%s\n' "$C3CC" > c3cc.path
  printf '%s\n' "$name" > name
  : > args
  for a in ${args[@]+"${args[@]}"}; do printf '%s\n' "$a" >> args; done
  printf '%s\n' "${sources[@]}" > sources
  : > env
  for e in ${envs[@]+"${envs[@]}"}; do printf '%s\n' "$e" >> env; done
  printf '%s\n' "$stdin" > stdin
  : > files
  for f in ${files[@]+"${files[@]}"}; do printf '%s\n' "$f" >> files; done
  : > cflags
  for f in ${cflags[@]+"${cflags[@]}"}; do printf '%s\n' "$f" >> cflags; done

  "$MPICC" -O2 -o "ref/$name" "${sources[@]}" ${cflags[@]+"${cflags[@]}"} > build-ref.log 2>&1 ||
    { cat build-ref.log; die "reference build failed"; }
  if ! "$C3CC" -O2 -o "c3/$name" "${sources[@]}" ${cflags[@]+"${cflags[@]}"} > build-c3.log 2>&1; then
    cat build-c3.log
    fail "c3cc -O2 ${sources[*]##*/} -o $name failed"
  fi
  if [ $separate = 1 ]; then
    # File by file. A failure here is reported by the separate-build test (and the c3sep tests
    # fail for want of the executable), so the one-call build can still be tested.
    mkdir -p c3sep/obj
    objects=()
    : > c3sep.log
    for s in "${sources[@]}"; do
      o=c3sep/obj/$(basename "${s%.c}").o
      echo "\$ c3cc -O2 -c $(basename "$s") -o $o" >> c3sep.log
      "$C3CC" -O2 -c "$s" -o "$o" >> c3sep.log 2>&1 || echo "FAILED: c3cc -O2 -c $(basename "$s")" >> c3sep.log
      objects+=("$o")
    done
    if ! grep -q '^FAILED' c3sep.log; then
      echo "\$ c3cc ${objects[*]} -o c3sep/$name" >> c3sep.log
      "$C3CC" -o "c3sep/$name" "${objects[@]}" ${cflags[@]+"${cflags[@]}"} >> c3sep.log 2>&1 ||
        echo "FAILED: c3cc ${objects[*]##*/} -o $name" >> c3sep.log
    fi
    grep -q '^FAILED' c3sep.log && echo "file-by-file build failed (see the separate-build test)"
  fi
  [ "$failures" -eq 0 ] || finish
  mapfile -t run_args < args
  # In a directory of its own: the files the program writes are the expected ones.
  mkdir -p expected.files
  (cd expected.files && env ${envs[@]+"${envs[@]}"} ../ref/"$name" ${run_args[@]+"${run_args[@]}"} < "$stdin" > ../expected 2> ../expected.err)
  echo $? > expected.rc
  for f in ${files[@]+"${files[@]}"}; do [ -f "expected.files/$f" ] || fail "the reference wrote no $f"; done
  [ -s expected ] || fail "the reference printed nothing"
  # How long the c3 build runs (bounds the random kill delays).
  mkdir -p timing && cd timing || exit 1
  start=$(date +%s%N)
  env ${envs[@]+"${envs[@]}"} C3_CKPT_DIR=ckpt ../c3/"$name" ${run_args[@]+"${run_args[@]}"} < "$stdin" > out 2> err
  end=$(date +%s%N)
  echo $(((end - start) / 1000000)) > ../duration_ms
  cd .. && rm -rf timing
  echo "reference exit $(cat expected.rc), $(wc -l < expected) lines; c3 build ran $(cat duration_ms) ms"
  finish
fi

# ---------------------------------------------------------------------------------------------
[ -f "$WORK/name" ] || die "$WORK was not built (run the build action first)"
NAME=$(cat "$WORK/name")
C3CC=$(cat "$WORK/c3cc.path")
mapfile -t ARGS < "$WORK/args"
EXPECTED=$WORK/expected
IN=$(cat "$WORK/stdin") # every run opens it afresh
mapfile -t FILES < "$WORK/files"
while read -r e; do export "${e?}"; done < "$WORK/env"
EXPECTED_RC=$(cat "$WORK/expected.rc")
BIN=c3
RESTART_MODE=auto
RESTART_ARGS=("${ARGS[@]+"${ARGS[@]}"}")
SCRATCH_TAG=""
positional=()
while [ $# -gt 0 ]; do
  case $1 in
  --bin) BIN=$2; SCRATCH_TAG+="-$2"; shift 2 ;;
  --restart) RESTART_MODE=$2; shift 2 ;;
  --restart-no-args) RESTART_ARGS=(); SCRATCH_TAG+="-noargs"; shift ;;
  --restart-arg) # repeatable: restart with these arguments instead of the original ones
    [ "$SCRATCH_TAG" = "${SCRATCH_TAG%-otherargs}" ] && RESTART_ARGS=() && SCRATCH_TAG+="-otherargs"
    RESTART_ARGS+=("$2"); shift 2 ;;
  --env) export "${2?}"; SCRATCH_TAG+="-${2%%=*}"; shift 2 ;; # for every run of this test
  *) positional+=("$1"); shift ;;
  esac
done
set -- ${positional[@]+"${positional[@]}"}
PROG=$WORK/$BIN/$NAME
[ -x "$PROG" ] || die "no executable $PROG"
SCRATCH=$WORK/$ACTION${1:+-${1//[:\/]/_}}$SCRATCH_TAG
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH" && cd "$SCRATCH" || exit 1
export C3_CKPT_DIR=./ckpt

run() { # run [VAR=value...]: the c3 build with the original arguments
  env "$@" "$PROG" ${ARGS[@]+"${ARGS[@]}"} < "$IN"
}
restart() { # restart [VAR=value...]: C3_RESTART=$RESTART_MODE with the restart arguments
  env C3_RESTART="$RESTART_MODE" "$@" "$PROG" ${RESTART_ARGS[@]+"${RESTART_ARGS[@]}"} < "$IN"
}
# Starts over when the killed run left no committed checkpoint (what a user does: a fresh run
# cannot continue a half-written output file). Empties the given files (default: out) and
# removes the files the program writes.
fresh_if_no_checkpoint() { # fresh_if_no_checkpoint [file...]
  has_committed ckpt && return 0
  local f
  for f in "${@:-out}"; do : > "$f"; done
  for f in ${FILES[@]+"${FILES[@]}"}; do rm -f "$f"; done
}
# The files the program wrote equal the reference's.
expect_same_files() { # expect_same_files <what>
  local f
  for f in ${FILES[@]+"${FILES[@]}"}; do
    if ! cmp -s "$f" "$WORK/expected.files/$f"; then
      fail "$1: file $f differs from the reference's (< reference, > c3)"
      diff "$WORK/expected.files/$f" "$f" | head -10
    fi
  done
}

# kill_and_restart <fault> [extra env for the killed run]: leaves out, err.kill, err.restart
kill_and_restart() {
  local fault=$1 rc committed
  shift
  run C3_FAULT="$fault" "$@" > out 2> err.kill
  rc=$?
  if [ "$rc" != 137 ]; then
    fail "C3_FAULT=$fault: exit status $rc, expected 137 (SIGKILL); did the program reach that point?"
    tail -5 err.kill
    return 1
  fi
  committed=$(newest_committed ckpt)
  fresh_if_no_checkpoint
  restart "$@" >> out 2> err.restart
  rc=$?
  expect_rc "$rc" "$EXPECTED_RC" "restart (C3_RESTART=$RESTART_MODE) after C3_FAULT=$fault"
  if [ -n "$committed" ]; then
    expect_grep "^c3: restarting from checkpoint $committed " err.restart "restart after $fault uses checkpoint $committed"
  else
    expect_no_grep '^c3: restarting' err.restart "no committed checkpoint before $fault: fresh run"
  fi
  expect_clean_stderr err.kill "killed run ($fault)"
  expect_clean_stderr err.restart "restart after $fault"
  return 0
}

case $ACTION in
separate-build)
  # The file-by-file build (c3cc -c each file, then c3cc *.o) done by the build action.
  cat "$WORK/c3sep.log"
  grep -q '^FAILED' "$WORK/c3sep.log" && fail "the file-by-file build failed"
  ;;

uninterrupted)
  # uninterrupted [min checkpoints]: same output and status; checkpoints committed as expected.
  min=${1:-1}
  run > out 2> err
  expect_rc $? "$EXPECTED_RC" "uninterrupted run"
  expect_same out "$EXPECTED" "uninterrupted run"
  expect_same_files "uninterrupted run"
  expect_clean_stderr err "uninterrupted run"
  n=$(grep -cE '^c3: checkpoint [0-9]+ committed' err)
  if [ "$min" = 0 ]; then
    [ "$n" = 0 ] || fail "expected no checkpoint, got $n"
    [ -e ckpt ] && fail "a program without checkpoints must not create $C3_CKPT_DIR"
    [ -s err ] && { fail "stderr must stay empty:"; head -5 err; }
  else
    [ "$n" -ge "$min" ] || fail "expected at least $min committed checkpoints, got $n"
  fi
  echo "$n checkpoints committed"
  ;;

fault)
  # fault <C3_FAULT value>: killed there, restarted with C3_RESTART=auto (or --restart), output
  # appended to the same file.
  fault=${1:?fault}
  case $fault in after-commit:* | *-release:*) RESTART_MODE=${RESTART_MODE/auto/latest} ;; esac
  if kill_and_restart "$fault"; then
    expect_same out "$EXPECTED" "kill at $fault, restart"
    expect_same_files "kill at $fault, restart"
  fi
  ;;

twice)
  # twice <fault 1> <fault 2>: killed, the restart killed again, restarted again.
  f1=${1:?fault 1} f2=${2:?fault 2}
  run C3_FAULT="$f1" > out 2> err.kill1
  expect_rc $? 137 "first run with C3_FAULT=$f1"
  fresh_if_no_checkpoint
  restart C3_FAULT="$f2" >> out 2> err.kill2
  expect_rc $? 137 "restart with C3_FAULT=$f2"
  fresh_if_no_checkpoint
  restart >> out 2> err.restart
  expect_rc $? "$EXPECTED_RC" "second restart"
  expect_same out "$EXPECTED" "kill at $f1, restart, kill at $f2, restart"
  expect_same_files "kill at $f1, restart, kill at $f2, restart"
  for e in err.kill1 err.kill2 err.restart; do expect_clean_stderr $e "$e"; done
  ;;

random)
  # random <kills> [seed]: SIGKILL from outside after a random delay, <kills> times, then let it
  # finish; every start but the first is a C3_RESTART=auto appending to the same file.
  kills=${1:-3}
  seed=${2:-$(date +%s%N | tail -c 6)}
  seed=$((10#$seed)) # date digits may start with 0, which is no octal number
  RANDOM=$seed
  duration=$(cat "$WORK/duration_ms")
  [ "$duration" -gt 50 ] || duration=50
  echo "seed $seed, uninterrupted run $duration ms"
  : > out
  : > err
  attempt=0 rc=1
  while [ $attempt -lt 20 ]; do
    attempt=$((attempt + 1))
    # stderr too: a run killed before its first checkpoint may have written to it already
    fresh_if_no_checkpoint out err
    # env execs the program, so $! is the program's own pid
    if [ $attempt = 1 ]; then
      env "$PROG" ${ARGS[@]+"${ARGS[@]}"} < "$IN" >> out 2>> err &
    else
      env C3_RESTART="$RESTART_MODE" "$PROG" ${RESTART_ARGS[@]+"${RESTART_ARGS[@]}"} < "$IN" >> out 2>> err &
    fi
    pid=$!
    if [ $attempt -le "$kills" ]; then
      # a restart has less left to do: shrink the window
      delay=$(((RANDOM * 32768 + RANDOM) % (duration / attempt + 1)))
      sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
      kill -9 "$pid" 2> /dev/null && echo "attempt $attempt: killed after $delay ms (checkpoint $(newest_committed ckpt))"
    fi
    wait "$pid"
    rc=$?
    [ "$rc" = 137 ] && continue
    break
  done
  expect_rc "$rc" "$EXPECTED_RC" "last of $attempt attempts"
  expect_same out "$EXPECTED" "after $attempt attempts with random kills"
  expect_same_files "after $attempt attempts with random kills"
  expect_clean_stderr err "random kills"
  # stderr was appended to one file as well: without c3's own lines it is the reference's
  grep -v '^c3: ' err > err.program
  expect_same err.program "$WORK/expected.err" "stderr (without c3's lines) after random kills"
  ;;

interval)
  # interval <seconds> <min checkpoints>: unforced pragmas checkpoint when due; then killed
  # after the 2nd commit and restarted (with the interval still set).
  seconds=${1:?seconds} min=${2:-2}
  run C3_INTERVAL="$seconds" > out 2> err
  expect_rc $? "$EXPECTED_RC" "run with C3_INTERVAL=$seconds"
  expect_same out "$EXPECTED" "run with C3_INTERVAL=$seconds"
  n=$(grep -cE '^c3: checkpoint [0-9]+ committed' err)
  [ "$n" -ge "$min" ] || fail "C3_INTERVAL=$seconds: $n checkpoints committed, expected at least $min"
  echo "C3_INTERVAL=$seconds: $n checkpoints committed"
  rm -rf ckpt
  RESTART_MODE=latest
  if kill_and_restart after-commit:2 C3_INTERVAL="$seconds"; then
    expect_same out "$EXPECTED" "C3_INTERVAL=$seconds, killed after checkpoint 2, restarted"
    # Another checkpoint falls due in the restart for certain only if the run had at least two
    # intervals of work left after its 2nd checkpoint (a restart may run faster than the run).
    if [ "$n" -ge 4 ]; then
      expect_grep '^c3: checkpoint [0-9]+ committed' err.restart "the restart keeps taking checkpoints"
    else
      echo "C3_INTERVAL=$seconds: $n checkpoints in the run, too few to expect one in its restart"
    fi
  fi
  # Without C3_INTERVAL unforced pragmas take none.
  rm -rf ckpt
  run > out 2> err
  expect_same out "$EXPECTED" "run without C3_INTERVAL"
  expect_no_grep 'committed' err "unforced pragmas without C3_INTERVAL"
  ;;

release-window)
  # release-window <N>: SIGKILL right after checkpoint N has committed, at the first call of
  # c3::output::release() (which hands the held-back stdout over), driven by gdb; restart.
  n=${1:?checkpoint}
  command -v gdb > /dev/null || { echo "gdb not installed: skipped"; exit 77; }
  {
    echo "set pagination off"
    echo "set environment C3_CKPT_DIR=./ckpt"
    echo "python"
    echo "import gdb, os"
    echo "class AfterCommit(gdb.Breakpoint):"
    echo "    def stop(self):"
    echo "        return os.path.exists('ckpt/ckpt.%06d/COMMITTED' % $n)"
    echo "AfterCommit('c3::output::release')"
    echo "end"
    echo "run ${ARGS[*]+${ARGS[*]}} < $IN >> out 2>> err.kill"
    echo "kill"
    echo "quit"
  } > gdb.cmd
  : > out
  gdb -q -batch -x gdb.cmd "$PROG" > gdb.log 2>&1 < /dev/null
  grep -q 'killed\]' gdb.log || { cat gdb.log; die "gdb did not stop after checkpoint $n"; }
  [ "$(newest_committed ckpt)" = "$n" ] || die "newest committed checkpoint is $(newest_committed ckpt), not $n"
  RESTART_MODE=latest
  restart >> out 2> err.restart
  expect_rc $? "$EXPECTED_RC" "restart after a kill right after checkpoint $n committed"
  expect_same out "$EXPECTED" "kill right after checkpoint $n committed (before release), restart"
  ;;

split-output)
  # split-output <fault>: the killed run writes to one file, the restart to a new file and, from
  # a copy of the checkpoints, through a pipe; each restart's output put after the killed run's
  # must equal the reference (stdout is held back until a checkpoint commits).
  fault=${1:?fault}
  run C3_FAULT="$fault" > before 2> err.kill
  expect_rc $? 137 "C3_FAULT=$fault"
  has_committed ckpt || die "no committed checkpoint after $fault"
  cp -r ckpt ckpt.copy
  restart > after 2> err.restart
  expect_rc $? "$EXPECTED_RC" "restart into a new file"
  cat before after > joined
  expect_same joined "$EXPECTED" "killed run's file + restart's new file"
  restart C3_CKPT_DIR=ckpt.copy 2> err.pipe | cat > piped
  expect_rc "${PIPESTATUS[0]}" "$EXPECTED_RC" "restart into a pipe"
  cat before piped > joined.pipe
  expect_same joined.pipe "$EXPECTED" "killed run's file + restart's output through a pipe"
  ;;

shown-twice)
  # shown-twice <N>: killed after checkpoint N's held-back stdout was written to the file and
  # before it was marked as shown; the restart writes to a new file, cannot tell whether those
  # bytes arrived, shows them again and says so (a restart into the same file cuts it back
  # instead: see fault=mid-release:N).
  n=${1:?checkpoint}
  run C3_FAULT="mid-release:$n" > before 2> err.kill
  expect_rc $? 137 "C3_FAULT=mid-release:$n"
  RESTART_MODE=latest
  restart > after 2> err.restart
  expect_rc $? "$EXPECTED_RC" "restart into a new file"
  cat before after > joined
  if verdict=$(python3 "$HERE/../output_commit/shown_twice.py" joined "$EXPECTED" err.restart --exactly); then
    [ -z "$verdict" ] || echo "$verdict"
  else
    fail "killed run's file + restart's new file: $verdict"
    head -5 err.restart
  fi
  ;;

damaged)
  # damaged <flip|truncate> <checkpoint K>: the newest checkpoint's rank file is damaged; the
  # restart warns and falls back to K-1; the output still matches.
  how=${1:?flip or truncate} k=${2:?checkpoint}
  run C3_FAULT=after-commit:"$k" > out 2> err.kill
  expect_rc $? 137 "C3_FAULT=after-commit:$k"
  file=ckpt/ckpt.$(printf %06d "$k")/rank.0.c3
  [ -f "$file" ] || die "no $file"
  size=$(stat -c %s "$file")
  if [ "$how" = flip ]; then
    # flip one byte in the middle of the file
    byte=$(od -An -tu1 -j $((size / 2)) -N1 "$file" | tr -d ' ')
    printf "$(printf '\\%03o' $((byte ^ 0x5a)))" |
      dd of="$file" bs=1 seek=$((size / 2)) conv=notrunc status=none
    [ "$(od -An -tu1 -j $((size / 2)) -N1 "$file" | tr -d ' ')" != "$byte" ] || die "byte not flipped"
  else
    truncate -s $((size / 2)) "$file"
  fi
  RESTART_MODE=latest
  restart >> out 2> err.restart
  expect_rc $? "$EXPECTED_RC" "restart with checkpoint $k damaged ($how)"
  expect_grep "^c3: warning: checkpoint $k is damaged .*falling back to checkpoint $((k - 1))" err.restart "damage warning"
  expect_grep "^c3: restarting from checkpoint $((k - 1)) " err.restart "restart from the previous checkpoint"
  expect_same out "$EXPECTED" "restart after damaging checkpoint $k ($how)"
  ;;

stdin-elsewhere)
  # stdin-elsewhere <checkpoint K>: killed after checkpoint K while reading its input file on
  # stdin; restarted with a copy of that file, then with the file through a pipe: neither is the
  # file the checkpoint read from, so c3 warns once and leaves stdin where it is.
  k=${1:?checkpoint}
  [ -f "$IN" ] && [ "$IN" != /dev/null ] || die "stdin-elsewhere needs a STDIN input file"
  warning='c3: warning: stdin is not the file the checkpoint read from; input is read from its current position'
  run C3_FAULT=after-commit:"$k" > out 2> err.kill
  expect_rc $? 137 "C3_FAULT=after-commit:$k"
  cp "$IN" input.copy
  env C3_RESTART=latest "$PROG" ${RESTART_ARGS[@]+"${RESTART_ARGS[@]}"} < input.copy > out.copy 2> err.copy
  expect_rc $? "$EXPECTED_RC" "restart with a copy of the input"
  [ "$(grep -cxF -- "$warning" err.copy)" = 1 ] || { fail "restart with a copy: expected the warning once"; cat err.copy; }
  cat "$IN" | env C3_RESTART=latest "$PROG" ${RESTART_ARGS[@]+"${RESTART_ARGS[@]}"} > out.pipe 2> err.pipe
  expect_rc $? "$EXPECTED_RC" "restart with the input through a pipe"
  [ "$(grep -cxF -- "$warning" err.pipe)" = 1 ] || { fail "restart through a pipe: expected the warning once"; cat err.pipe; }
  # The same file again: no warning (the fault tests check the output).
  restart > out.same 2> err.same
  expect_no_grep 'stdin is not the file' err.same "restart with the same input file"
  ;;

foreign)
  # A checkpoint of this program, restarted by a rebuilt (changed) executable: refused.
  run > /dev/null 2> err
  mapfile -t sources < "$WORK/sources"
  mapfile -t cflags < "$WORK/cflags"
  mkdir -p variant
  cp "${sources[@]}" variant/
  # the change: one more global in the first file
  printf '\nconst char e2e_rebuilt_variant[] = "rebuilt";\n' >> "variant/$(basename "${sources[0]}")"
  variant_sources=()
  for s in "${sources[@]}"; do variant_sources+=("variant/$(basename "$s")"); done
  "$C3CC" -O2 -I"$(dirname "${sources[0]}")" -o "variant/$NAME" "${variant_sources[@]}" \
    ${cflags[@]+"${cflags[@]}"} > build.log 2>&1 || { cat build.log; die "rebuild failed"; }
  cmp -s "variant/$NAME" "$PROG" && die "the rebuilt executable is identical"
  C3_RESTART=latest "variant/$NAME" ${ARGS[@]+"${ARGS[@]}"} < "$IN" > out 2> err
  expect_rc $? 2 "restart with another executable's checkpoint"
  expect_grep '^c3: error: checkpoint [0-9]+ was written by a different executable' err "foreign checkpoint message"
  [ -s out ] && fail "a foreign checkpoint must not run the program"
  # auto does not silently start fresh either
  C3_RESTART=auto "variant/$NAME" ${ARGS[@]+"${ARGS[@]}"} < "$IN" > out 2> err
  expect_rc $? 2 "C3_RESTART=auto with another executable's checkpoint"
  expect_grep 'different executable' err "foreign checkpoint message (auto)"
  ;;

no-checkpoint)
  # C3_RESTART=latest with an empty or missing directory: exit 2 and a message.
  mkdir empty
  C3_CKPT_DIR=empty C3_RESTART=latest "$PROG" ${ARGS[@]+"${ARGS[@]}"} < "$IN" > out 2> err
  expect_rc $? 2 "C3_RESTART=latest with an empty directory"
  expect_grep '^c3: error: nothing to restart from: empty holds no checkpoint$' err "empty directory message"
  [ -s out ] && fail "nothing may run without a checkpoint"
  C3_CKPT_DIR=missing C3_RESTART=latest "$PROG" ${ARGS[@]+"${ARGS[@]}"} < "$IN" > out 2> err
  expect_rc $? 2 "C3_RESTART=latest with a missing directory"
  expect_grep '^c3: error: nothing to restart from: the checkpoint directory missing does not exist' err "missing directory message"
  [ -s out ] && fail "nothing may run without a checkpoint"
  # an uncommitted checkpoint alone does not count
  run C3_FAULT=before-commit:1 > /dev/null 2>&1
  C3_RESTART=latest "$PROG" ${ARGS[@]+"${ARGS[@]}"} < "$IN" > out 2> err
  expect_rc $? 2 "C3_RESTART=latest with only an uncommitted checkpoint"
  # (with a pragma, the directory holds it, uncommitted; without one, it does not even exist)
  expect_grep '^c3: error: nothing to restart from: .*(none committed \(their writing did not finish\)|does not exist)' err "uncommitted-only message"
  ;;

refused)
  # refused <kind> <call>:<line> <checkpoints>: the run ends as the reference's; the pragma where
  # a <kind> (pipe, socket, ...) opened by <call> at line <line> is open warns once, naming
  # it, and no checkpoint is taken there; the other pragmas checkpoint.
  kind=${1:?kind} call=${2%%:*} line=${2##*:} expected_n=${3:?checkpoints}
  run > out 2> err
  expect_rc $? "$EXPECTED_RC" "run with refused checkpoints"
  expect_same out "$EXPECTED" "run with refused checkpoints"
  expect_grep "^c3: warning: checkpoint at $NAME.c:[0-9]+ not taken: descriptor [0-9]+ \\(opened by $call\\(\\) at $NAME.c:$line\\) is a $kind, and c3 carries only files across a restart: close the descriptor [0-9]+ before the checkpoint, or register a c3_on_restart callback that opens it again$" err "the refusal"
  [ "$(grep -c '^c3: warning' err)" = 1 ] || { fail "expected one warning:"; cat err; }
  n=$(grep -cE '^c3: checkpoint [0-9]+ committed' err)
  [ "$n" = "$expected_n" ] || fail "expected $expected_n committed checkpoints, got $n"
  ;;

file-gone)
  # file-gone <fault> <file>: killed there; a file the program had open is moved away before the
  # restart, which must stop with a message naming the file and the line that opened it and
  # leave the checkpoints as they were; with the file back, the restart finishes the job.
  fault=${1:?fault} file=${2:?file}
  RESTART_MODE=latest
  run C3_FAULT="$fault" > out 2> err.kill
  expect_rc $? 137 "C3_FAULT=$fault"
  mv "$file" "$file.away" || die "the killed run left no $file"
  (cd ckpt && find . -type f -exec md5sum {} + | sort) > ckpt.before
  restart >> out 2> err.gone
  expect_rc $? 2 "restart without $file"
  expect_grep "^c3: error: restart from checkpoint [0-9]+ stopped: cannot reopen '[^']*/$file' \\(opened by [a-z]+\\(\\) at $NAME.c:[0-9]+\\): No such file or directory" err.gone "message naming $file"
  (cd ckpt && find . -type f -exec md5sum {} + | sort) > ckpt.after
  cmp -s ckpt.before ckpt.after || fail "the failed restart changed the checkpoint directory"
  mv "$file.away" "$file"
  restart >> out 2> err.restart
  expect_rc $? "$EXPECTED_RC" "restart with $file back"
  expect_same out "$EXPECTED" "kill at $fault, restart without $file, restart with it"
  expect_same_files "kill at $fault, restart without $file, restart with it"
  ;;

unwritable)
  # C3_CKPT_DIR is a regular file (or below one): the program runs on, reports each failure.
  echo "not a directory" > plainfile
  for dir in plainfile plainfile/ckpt; do
    C3_CKPT_DIR=$dir "$PROG" ${ARGS[@]+"${ARGS[@]}"} < "$IN" > out 2> err
    expect_rc $? "$EXPECTED_RC" "C3_CKPT_DIR=$dir"
    expect_same out "$EXPECTED" "C3_CKPT_DIR=$dir"
    expect_grep "^c3: error: checkpoint 1 not written: .*$dir" err "C3_CKPT_DIR=$dir failure report"
    expect_no_grep '^c3: checkpoint [0-9]+ committed' err "C3_CKPT_DIR=$dir"
    # every attempt is reported, none is silently dropped
    attempts=$(grep -c "^c3: error: checkpoint 1 not written: .*; no committed checkpoint yet$" err)
    [ "$attempts" -ge 2 ] || fail "C3_CKPT_DIR=$dir: $attempts failed attempts reported, expected one per forced pragma"
  done
  [ "$(cat plainfile)" = "not a directory" ] || fail "the regular file was changed"
  ;;

bad-env)
  # Unusable settings: exit 2 before the program runs, the message names the variable.
  check_bad() { # check_bad VAR value
    env "$1=$2" "$PROG" ${ARGS[@]+"${ARGS[@]}"} < "$IN" > out 2> err
    expect_rc $? 2 "$1='$2'"
    expect_grep "^c3: error: $1='$2': " err "$1='$2' message"
    [ "$(wc -l < err)" = 1 ] || { fail "$1='$2': expected one line on stderr"; cat err; }
    [ -s out ] && fail "$1='$2': the program must not run"
    [ -e ckpt ] && fail "$1='$2': nothing may be written"
  }
  check_bad C3_INTERVAL abc
  check_bad C3_INTERVAL -1
  check_bad C3_KEEP 0
  check_bad C3_KEEP two
  check_bad C3_RESTART foo
  check_bad C3_RESTART -3
  check_bad C3_FAULT after-commit
  ;;

*)
  die "unknown action $ACTION"
  ;;
esac
finish
