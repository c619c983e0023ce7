#!/bin/bash
# End-to-end tests of MPI checkpoint/restart: an MPI program built with c3cc runs under
# `mpiexec -n <ranks>`, is killed at chosen points (C3_FAULT) or from outside, and is restarted
# with `C3_RESTART=latest mpiexec -n <ranks>`; the output of the killed run followed by the
# restart's must equal, byte for byte, that of the same program built with plain `mpicc -O2`.
#
#   run_mpi_case.sh build <work> <c3cc> <mpicc> <mpiexec> <c3> <program.c> <ranks>
#       builds <work>/ref/<name> and <work>/c3/<name>, runs the reference twice (both runs must
#       print the same: the program's own determinism) and times one c3 run.
#   run_mpi_case.sh <action> <work> [params] [--env VAR=value]... [--killed-env VAR=value]...
#                   [--restart-env VAR=value]...
#       actions (each described where it is handled below):
#       uninterrupted <min checkpoints> [messages] | fault <C3_FAULT> | twice <fault> <fault> |
#       kill [seed] | crash | wrong-ranks <fault> | damaged <checkpoint> <rank> [c3|log] |
#       finalize-mid-checkpoint
#
# Every mpiexec runs under `timeout`: a run that does not finish is reported as a hang. Every
# action runs in its own scratch directory <work>/<action>[-<params>], kept for inspection.
# Exit status 0 = pass; failures are listed on stdout.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ACTION=${1:?action}
WORK=${2:?work dir}
shift 2
[ "$ACTION" = build ] && mkdir -p "$(dirname "$WORK")"
WORK_PARENT=$(cd "$(dirname "$WORK")" && pwd) || exit 1
WORK=$WORK_PARENT/$(basename "$WORK")
# Only what a test sets itself applies.
unset C3_RESTART C3_FAULT C3_INTERVAL C3_KEEP C3_VERBOSE C3_CKPT_DIR C3_OUTPUT
# Seconds one mpiexec may take before it counts as hung.
RUN_LIMIT=${MPI_E2E_RUN_LIMIT:-40}

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
# The test programs print nothing on stderr; c3 prints its own lines there. A restart's warning
# that output may appear twice is checked against the output (expect_restarted_output).
SHOWN_TWICE='^c3: warning: rank [0-9]+ was killed while showing [0-9]+ bytes of its output'
expect_clean_stderr() { # expect_clean_stderr <file> <what>
  if grep -E '^c3: (error|warning)' "$1" | grep -qvE "$SHOWN_TWICE"; then
    fail "$2: /^c3: (error|warning)/ found in $1:"
    grep -E '^c3: (error|warning)' "$1" | head -5
  fi
}
# expect_restarted_output <actual> <what> <restart stderr>... [--exactly]: the output of killed
# runs and their restarts equals the reference, except that bytes a rank was killed while
# writing (between the write and its record; the restarts warn how many) may appear twice. With
# --exactly they must: the fault came after the whole write. (test/output_commit/shown_twice.py)
expect_restarted_output() {
  local actual=$1 what=$2 verdict
  shift 2
  if verdict=$(python3 "$HERE/../output_commit/shown_twice.py" "$actual" "$EXPECTED" "$@"); then
    [ -z "$verdict" ] || echo "$verdict"
  else
    fail "$what: $verdict (< reference, > c3)"
    diff "$EXPECTED" "$actual" | head -20
  fi
}
# The part of the expected output a killed run may have shown: a prefix of the reference.
expect_prefix() { # expect_prefix <actual> <what>
  local size
  size=$(stat -c %s "$1")
  if ! cmp -s -n "$size" "$1" "$EXPECTED" || [ "$size" -gt "$(stat -c %s "$EXPECTED")" ]; then
    fail "$2: what it printed is not a prefix of the reference (< reference, > c3)"
    diff "$EXPECTED" "$1" | head -10
  fi
}

# hydra prints a banner on stdout when a process dies; it is not the program's output.
strip_hydra_banner() { # strip_hydra_banner <file>: in place
  awk '
    /^=+$/ && length($0) > 40 { held = ""; banner = 1; next }
    banner && (/^=   / || /^YOUR APPLICATION TERMINATED WITH THE EXIT STRING: / ||
               /^This typically refers to a problem with your application\.$/ ||
               /^Please see the FAQ page for debugging suggestions$/) { next }
    { banner = 0 }
    /^$/ { if (held != "") print ""; held = "blank"; next }
    { if (held != "") print ""; held = ""; print }
    END { if (held != "") print "" }
  ' "$1" > "$1.stripped" && mv "$1.stripped" "$1"
}

# ---------------------------------------------------------------------------------------------
if [ "$ACTION" = build ]; then
  C3CC=${1:?c3cc} MPICC=${2:?mpicc} MPIEXEC=${3:?mpiexec} C3=${4:?c3} SOURCE=${5:?program.c}
  RANKS=${6:?ranks}
  SCRATCH=$WORK
  rm -rf "$WORK" && mkdir -p "$WORK"/ref "$WORK"/c3 && cd "$WORK" || exit 1
  name=$(basename "$SOURCE" .c)
  printf '%s\n' "$name" > name
  printf '%s\n' "$RANKS" > ranks
  printf '%s\n' "$MPIEXEC" > mpiexec.path
  printf '%s\n' "$C3" > c3.path
  "$MPICC" -O2 -o "ref/$name" "$SOURCE" > build-ref.log 2>&1 ||
    { cat build-ref.log; die "reference build failed"; }
  if ! "$C3CC" -O2 -o "c3/$name" "$SOURCE" > build-c3.log 2>&1; then
    cat build-c3.log
    fail "c3cc -O2 $(basename "$SOURCE") -o $name failed"
    finish
  fi
  for run in 1 2; do
    timeout -k 10 "$RUN_LIMIT" "$MPIEXEC" -n "$RANKS" "ref/$name" > "expected.$run" 2> "expected.$run.err"
    rc=$?
    [ "$rc" = 124 ] && die "the reference hung (run $run, over $RUN_LIMIT s)"
    [ "$rc" = 0 ] || { cat "expected.$run" "expected.$run.err" | head -20; die "the reference exited $rc"; }
  done
  cmp -s expected.1 expected.2 || { diff expected.1 expected.2 | head; die "the reference is not deterministic"; }
  mv expected.1 expected && rm -f expected.2
  [ -s expected ] || die "the reference printed nothing"
  grep -q '^$' expected && die "the reference prints empty lines (they cannot be told from hydra's)"
  # How long the c3 build runs (bounds the random kill delays).
  mkdir -p timing && cd timing || exit 1
  start=$(date +%s%N)
  C3_CKPT_DIR=ckpt timeout -k 10 "$RUN_LIMIT" "$MPIEXEC" -n "$RANKS" "../c3/$name" > out 2> err
  rc=$?
  end=$(date +%s%N)
  [ "$rc" = 124 ] && fail "the c3 build hung (over $RUN_LIMIT s)"
  echo $(((end - start) / 1000000)) > ../duration_ms
  cd .. && rm -rf timing
  echo "$RANKS ranks: reference $(wc -l < expected) lines; c3 build ran $(cat duration_ms) ms"
  finish
fi

# ---------------------------------------------------------------------------------------------
[ -f "$WORK/name" ] || die "$WORK was not built (run the build action first)"
NAME=$(cat "$WORK/name")
RANKS=$(cat "$WORK/ranks")
MPIEXEC=$(cat "$WORK/mpiexec.path")
C3=$(cat "$WORK/c3.path")
EXPECTED=$WORK/expected
PROG=$WORK/c3/$NAME
[ -x "$PROG" ] || die "no executable $PROG"
SCRATCH_TAG=""
positional=()
# Settings for the run that is killed (the first run of fault, twice, wrong-ranks, damaged and
# kill) and for every restart. LD_PRELOAD among them goes to the ranks only; a killed run that
# preloads a library must show a line of it starting with "preload: " on stderr (what it did).
KILLED_ENV=()
RESTART_ENV=()
while [ $# -gt 0 ]; do
  case $1 in
  --env) export "${2?}"; SCRATCH_TAG+="-${2%%=*}"; shift 2 ;; # for every run of this test
  --killed-env) KILLED_ENV+=("${2?}"); shift 2 ;;
  --restart-env) RESTART_ENV+=("${2?}"); shift 2 ;;
  *) positional+=("$1"); shift ;;
  esac
done
set -- ${positional[@]+"${positional[@]}"}
detail=${*:+-$*}
SCRATCH=$WORK/$ACTION${detail//[ :\/@]/_}$SCRATCH_TAG
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH" && cd "$SCRATCH" || exit 1
export C3_CKPT_DIR=./ckpt

# c3_command <ranks> [VAR=value...]: sets COMMAND to the c3 build under mpiexec and timeout
# with those settings. LD_PRELOAD is given to the ranks only (mpiexec -genv), not to timeout
# and mpiexec.
c3_command() {
  local n=$1 setting
  shift
  local settings=() rank_settings=()
  for setting in "$@"; do
    case $setting in
    LD_PRELOAD=*) rank_settings+=(-genv LD_PRELOAD "${setting#LD_PRELOAD=}") ;;
    *) settings+=("$setting") ;;
    esac
  done
  COMMAND=(env ${settings[@]+"${settings[@]}"} timeout -k 10 "$RUN_LIMIT" "$MPIEXEC"
           ${rank_settings[@]+"${rank_settings[@]}"} -n "$n" "$PROG")
}

# mpirun <ranks> <stdout file (appended)> <stderr file> [VAR=value...]: the c3 build under
# mpiexec and timeout; returns mpiexec's status, 124 for a hang (already reported).
mpirun() {
  local n=$1 out=$2 err=$3 rc
  shift 3
  c3_command "$n" "$@"
  "${COMMAND[@]}" >> "$out" 2> "$err"
  rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    fail "HANG: 'env $* mpiexec -n $n $NAME' did not finish within $RUN_LIMIT s"
    tail -5 "$err"
    return 124
  fi
  return "$rc"
}

# The kill action finds a rank by walking up from each process to the mpiexec (hydra's proxy
# puts every rank in a session of its own, so process groups do not find them). Its polls fork
# nothing (results are in variables, not printed): under load a forked `ps` takes long enough
# that a short rank is found only as it ends.
# rank_pid <mpiexec pid> <rank>: RANK_PID is the process of that rank, a descendant of the
# mpiexec running $PROG with PMI_RANK=<rank> (empty before it starts and once it has ended).
rank_pid() {
  local dir p v
  RANK_PID=""
  for dir in /proc/[0-9]*; do
    [ "$dir/exe" -ef "$PROG" ] || continue
    p=${dir#/proc/}
    while [ "$p" -gt 1 ] && [ "$p" != "$1" ]; do # up to the mpiexec, or to init
      proc_fields "$p"
      p=${PROC_FIELDS[1]-0}
    done
    [ "$p" = "$1" ] || continue
    while IFS= read -r -d '' v; do
      [ "$v" = "PMI_RANK=$2" ] && RANK_PID=${dir#/proc/} && return
    done 2> /dev/null < "$dir/environ"
  done
}

# proc_fields <pid>: PROC_FIELDS is its /proc stat after the command name (state, parent, ...),
# empty once it has gone.
proc_fields() {
  local stat=""
  PROC_FIELDS=()
  read -r stat 2> /dev/null < "/proc/$1/stat" || return 0
  read -ra PROC_FIELDS <<< "${stat##*) }"
}

# live_for <pid> <ms>: waits until the process has run <ms> more milliseconds (LIVED is empty) or
# has ended (LIVED is how many milliseconds it lived; a zombie has ended).
live_for() {
  local start=${EPOCHREALTIME/./} now
  LIVED=""
  while :; do
    now=${EPOCHREALTIME/./}
    proc_fields "$1"
    if [ "${PROC_FIELDS[0]-Z}" = Z ]; then
      LIVED=$(((now - start) / 1000))
      return
    fi
    [ $(((now - start) / 1000)) -ge "$2" ] && return
    nap
  done
}

# nap: 5 ms without forking a `sleep` (reads a pipe nobody writes, opened on first use).
nap() {
  [ -n "${NAP_FD-}" ] || exec {NAP_FD}<> <(:)
  read -rt 0.005 -u "$NAP_FD"
}

# The checkpoint a restart says it continues from (empty for a fresh start).
restarted_from() { # restarted_from <stderr file>
  sed -nE 's/^c3: restarting from checkpoint ([0-9]+) .*/\1/p' "$1" | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# Which checkpoints a restart may use after a fault, from the fault's stage: the newest
# committed by every rank. Prints "<lowest> <highest>".
restart_range() { # restart_range <C3_FAULT value>
  local stage=${1%%:*} n=${1#*:}
  n=${n%%@*}
  case $stage in
  after-commit | before-release | mid-release) echo "$n $n" ;; # known committed everywhere
  after-local-commit) echo "$((n - 1)) $n" ;;              # every rank may have committed n
  mid-write | before-commit | nondet-log | recvonly-log) echo "1 $((n - 1))" ;; # n never commits
  site) echo "1 999999" ;;
  *) die "unknown fault stage in $1" ;;
  esac
}

# kill_run <fault> <out> <err>: a run with C3_FAULT that must die (non-zero status, no hang).
kill_run() {
  local fault=$1 out=$2 err=$3 rc
  : > "$out.part"
  mpirun "$RANKS" "$out.part" "$err" ${KILLED_ENV[@]+"${KILLED_ENV[@]}"} C3_FAULT="$fault"
  rc=$?
  [ "$rc" = 124 ] && return 1
  expect_preload_note "$err" "C3_FAULT=$fault"
  strip_hydra_banner "$out.part"
  cat "$out.part" >> "$out"
  if [ "$rc" = 0 ]; then
    fail "C3_FAULT=$fault: the run finished (exit 0); did that rank reach that point?"
    return 1
  fi
  expect_prefix "$out" "run killed at $fault"
  return 0
}

# expect_preload_note <stderr file> <what>: a killed run with a preloaded library shows what the
# library did.
expect_preload_note() {
  case " ${KILLED_ENV[*]-} " in
  *" LD_PRELOAD="*) expect_grep '^preload: ' "$1" "$2: the preloaded library's note" ;;
  esac
}

# restart_run <out> <err> [low high]: C3_RESTART=latest with the same number of ranks must
# finish with exit 0; with a range, the checkpoint it restarts from must lie in it.
restart_run() {
  local out=$1 err=$2 low=${3:-} high=${4:-} rc from
  mpirun "$RANKS" "$out" "$err" ${RESTART_ENV[@]+"${RESTART_ENV[@]}"} C3_RESTART=latest
  rc=$?
  [ "$rc" = 124 ] && return 1
  if [ "$rc" != 0 ]; then
    fail "restart (C3_RESTART=latest mpiexec -n $RANKS) exited $rc"
    tail -5 "$err"
    return 1
  fi
  expect_clean_stderr "$err" "restart"
  from=$(restarted_from "$err")
  if [ -z "$from" ]; then
    fail "the restart did not say 'c3: restarting from checkpoint N'"
  elif [ "$from" != "${from%% *}" ]; then
    fail "ranks restarted from different checkpoints: $from"
  elif [ -n "$low" ] && { [ "$from" -lt "$low" ] || [ "$from" -gt "$high" ]; }; then
    fail "restarted from checkpoint $from, expected $low..$high"
  fi
  [ -n "$from" ] && echo "restarted from checkpoint $from"
  return 0
}

case $ACTION in
uninterrupted)
  # uninterrupted <min checkpoints> [messages]: same output and exit 0; each of checkpoints
  # 1..min committed on every rank; with "messages", `c3 info` of the newest checkpoint reports
  # late messages on some rank and early messages on some rank (the staggered checkpoints make
  # them certain). With C3_KEEP=1 at most the two newest checkpoints remain.
  min=${1:?min checkpoints}
  : > out
  mpirun "$RANKS" out err
  rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 124 ] || { fail "uninterrupted run exited $rc"; tail -5 err; }
  expect_same out "$EXPECTED" "uninterrupted run"
  expect_clean_stderr err "uninterrupted run"
  # One line per checkpoint for the job, from rank 0 once every rank committed its part.
  for ((n = 1; n <= min; n++)); do
    got=$(grep -cE "^c3: checkpoint $n committed \([0-9.]+ [KMG]?i?B in $RANKS ranks, [0-9]+\.[0-9]{3} s\)$" err)
    [ "$got" = 1 ] || fail "checkpoint $n: $got 'committed ... in $RANKS ranks' lines, expected one"
  done
  expect_no_grep '^c3: rank ' err "per-rank lines without C3_VERBOSE"
  if [ "${2:-}" = messages ]; then
    "$C3" info ckpt > info 2>&1 || fail "c3 info ckpt exited $?"
    before=$failures
    for ((r = 0; r < RANKS; r++)); do
      grep -qE "^ *rank $r protocol: late messages [0-9]+ \([0-9]+ bytes\), early messages [0-9]+, logged events [0-9]+$" info ||
        fail "c3 info: no 'rank $r protocol: late messages K (B bytes), early messages K, logged events K' line"
      grep -qE "^ *rank $r modes: NonDet-Log [0-9]+\.[0-9]{3} s, RecvOnly-Log [0-9]+\.[0-9]{3} s$" info ||
        fail "c3 info: no 'rank $r modes: NonDet-Log X.XXX s, RecvOnly-Log X.XXX s' line"
    done
    grep -qE 'late messages [1-9]' info || fail "c3 info: no rank reports late messages"
    grep -qE 'early messages [1-9]' info || fail "c3 info: no rank reports early messages"
    if [ "$failures" = "$before" ]; then
      grep -E 'protocol:' info
    else
      echo "--- c3 info ckpt:"
      grep -vE '^    [A-Z]+ ' info | head -40
    fi
  fi
  if [ "${C3_KEEP:-}" = 1 ]; then
    kept=$(find ckpt -maxdepth 1 -name 'ckpt.*' 2> /dev/null | wc -l)
    [ "$kept" -le 2 ] || { fail "C3_KEEP=1: $kept checkpoint directories remain"; ls ckpt; }
  fi
  echo "$(grep -cE '^c3: checkpoint [0-9]+ committed' err) checkpoints committed by all $RANKS ranks"
  ;;

fault)
  # fault <C3_FAULT value>: killed there, restarted with C3_RESTART=latest; the restart uses a
  # checkpoint the stage allows, and the two outputs together equal the reference.
  fault=${1:?fault}
  read -r low high < <(restart_range "$fault")
  : > out
  if kill_run "$fault" out err.kill && restart_run out err.restart "$low" "$high"; then
    case $fault in
    mid-release:*) expect_restarted_output out "killed at $fault, restarted" err.restart --exactly ;;
    *) expect_restarted_output out "killed at $fault, restarted" err.restart ;;
    esac
  fi
  ;;

twice)
  # twice <fault 1> <fault 2>: killed, the restart killed again, restarted again.
  f1=${1:?fault 1} f2=${2:?fault 2}
  : > out
  if kill_run "$f1" out err.kill1; then
    : > out.part
    mpirun "$RANKS" out.part err.kill2 ${RESTART_ENV[@]+"${RESTART_ENV[@]}"} C3_RESTART=latest \
      C3_FAULT="$f2"
    rc=$?
    strip_hydra_banner out.part
    cat out.part >> out
    if [ "$rc" = 0 ]; then
      fail "the restart with C3_FAULT=$f2 finished (exit 0)"
    elif [ "$rc" != 124 ]; then
      expect_prefix out "first restart, killed at $f2"
      restart_run out err.restart &&
        expect_restarted_output out "killed at $f1, restart killed at $f2, restarted" err.kill2 err.restart
    fi
  fi
  ;;

kill)
  # kill [seed]: SIGKILL from outside to one rank, chosen at random, after a random delay
  # within the c3 build's running time; restarted with C3_RESTART=auto (a kill before the
  # first commit starts afresh, and then the killed run must have shown nothing).
  seed=${1:-$(date +%s%N | tail -c 6)}
  seed=$((10#$seed)) # date digits may start with 0, which is no octal number
  RANDOM=$seed
  duration=$(cat "$WORK/duration_ms")
  [ "$duration" -gt 100 ] || duration=100
  victim=$((RANDOM % RANKS))
  echo "seed $seed, uninterrupted c3 run $duration ms, victim rank $victim"
  : > out
  killed=0
  # The delay is drawn from how long the victim may live: at first the c3 build's whole run,
  # after an attempt whose victim ended before the kill, how long that victim lived.
  span=$duration
  for attempt in 1 2 3 4 5 6; do
    delay=$((span / 4 + (RANDOM * 32768 + RANDOM) % (span / 2 + 1)))
    : > out.part
    rm -rf ckpt
    c3_command "$RANKS" ${KILLED_ENV[@]+"${KILLED_ENV[@]}"}
    "${COMMAND[@]}" > out.part 2> err.kill &
    job=$!
    # The delay counts from the victim's start, not mpiexec's: under load, start-up alone may
    # outlast a delay drawn from the whole run.
    pid="" lived=""
    while [ -z "$pid" ] && kill -0 "$job" 2> /dev/null; do
      rank_pid "$job" "$victim"
      pid=$RANK_PID
      [ -n "$pid" ] || nap
    done
    if [ -n "$pid" ]; then
      live_for "$pid" "$delay"
      lived=$LIVED
      if [ -z "$lived" ]; then
        kill -9 "$pid" 2> /dev/null && killed=1
      else
        span=$lived
      fi
    fi
    wait "$job"
    rc=$?
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
      fail "HANG: the run with rank $victim killed after $delay ms did not end within $RUN_LIMIT s"
      break
    fi
    [ "$killed" = 1 ] && [ "$rc" != 0 ] && break
    killed=0
    if [ -n "$lived" ]; then
      echo "attempt $attempt: rank $victim ended after $lived ms, before the kill after $delay ms (run exit $rc); again"
    else
      echo "attempt $attempt: the run ended (exit $rc) before the kill after $delay ms; again"
    fi
  done
  if [ "$killed" = 1 ] && [ "$failures" = 0 ]; then
    echo "rank $victim (pid $pid) killed after $delay ms"
    strip_hydra_banner out.part
    cat out.part >> out
    expect_prefix out "run killed from outside"
    mpirun "$RANKS" out err.restart ${RESTART_ENV[@]+"${RESTART_ENV[@]}"} C3_RESTART=auto
    rc=$?
    if [ "$rc" != 124 ]; then
      [ "$rc" = 0 ] || { fail "restart (C3_RESTART=auto) exited $rc"; tail -5 err.restart; }
      from=$(restarted_from err.restart)
      echo "restarted from checkpoint ${from:-none (fresh start)}"
      expect_clean_stderr err.restart "restart"
      expect_restarted_output out "rank $victim killed after $delay ms, restarted" err.restart
    fi
  elif [ "$failures" = 0 ]; then
    fail "could not kill rank $victim while the program ran"
  fi
  ;;

crash)
  # crash: a rank of the run crashes inside an MPI call (the preloaded library of --killed-env
  # makes it, as UCX aborts a rank whose peer died mid-transfer). The output it held back must
  # stay held (c3 says so on stderr): the restart from the newest checkpoint prints it.
  : > out.part
  mpirun "$RANKS" out.part err.kill ${KILLED_ENV[@]+"${KILLED_ENV[@]}"}
  rc=$?
  if [ "$rc" != 124 ]; then
    expect_preload_note err.kill "the crashing run"
    expect_grep '^c3: crashed inside the MPI library' err.kill "the crashing run"
    [ "$rc" != 0 ] || fail "the crashing run finished (exit 0)"
    strip_hydra_banner out.part
    cat out.part > out
    expect_prefix out "run crashed inside MPI"
    restart_run out err.restart && expect_restarted_output out "crashed inside MPI, restarted" err.restart
  fi
  ;;

wrong-ranks)
  # wrong-ranks <fault>: killed at <fault> (which must leave a committed checkpoint); restarts
  # with one rank more and one fewer are refused (non-zero exit, a message about the number of
  # processes, no output); then the restart with the right number continues from the newest
  # checkpoint: nothing was lost.
  fault=${1:?fault}
  read -r low high < <(restart_range "$fault")
  : > out
  if kill_run "$fault" out err.kill; then
    for n in $((RANKS + 1)) $((RANKS - 1)); do
      [ "$n" -ge 1 ] || continue
      : > out.wrong
      mpirun "$n" out.wrong err.wrong-$n ${RESTART_ENV[@]+"${RESTART_ENV[@]}"} C3_RESTART=latest
      rc=$?
      [ "$rc" = 124 ] && continue
      [ "$rc" != 0 ] || fail "restart with $n ranks instead of $RANKS exited 0"
      cat out.wrong >> err.wrong-$n # the message may come on either stream (hydra's banner)
      grep -q 'processes' err.wrong-$n || { fail "restart with $n ranks: no message containing 'processes'"; head -10 err.wrong-$n; }
      strip_hydra_banner out.wrong
      [ -s out.wrong ] && { fail "restart with $n ranks printed program output"; head -5 out.wrong; }
    done
    restart_run out err.restart "$low" "$high" &&
      expect_restarted_output out "killed at $fault, refused restarts, restarted with $RANKS ranks" err.restart
  fi
  ;;

damaged)
  # damaged <checkpoint K> <rank R> [c3|log]: killed after checkpoint K committed everywhere,
  # then one byte flipped in the middle of rank R's state file (c3, the default) or protocol log
  # (log) of checkpoint K. The restart must either fall back to checkpoint K-1 and print the
  # right output, or refuse clearly (non-zero exit and a c3 error message, nothing printed) -
  # never print wrong output.
  k=${1:?checkpoint} r=${2:?rank} kind=${3:-c3}
  : > out
  if kill_run "after-commit:$k@0" out err.kill; then
    dir=ckpt/ckpt.$(printf %06d "$k")
    file=$dir/rank.$r.$kind
    [ -f "$file" ] || { ls -l "$dir"; die "no $file"; }
    size=$(stat -c %s "$file")
    byte=$(od -An -tu1 -j $((size / 2)) -N1 "$file" | tr -d ' ')
    printf "$(printf '\\%03o' $((byte ^ 0x5a)))" |
      dd of="$file" bs=1 seek=$((size / 2)) conv=notrunc status=none
    [ "$(od -An -tu1 -j $((size / 2)) -N1 "$file" | tr -d ' ')" != "$byte" ] || die "byte not flipped"
    cp out out.before
    : > out.restart
    mpirun "$RANKS" out.restart err.restart ${RESTART_ENV[@]+"${RESTART_ENV[@]}"} \
      C3_RESTART=latest
    rc=$?
    if [ "$rc" = 0 ]; then
      cat out.restart >> out
      expect_restarted_output out "restart with checkpoint $k damaged on rank $r ($file)" err.restart
      from=$(restarted_from err.restart)
      [ "$from" = $((k - 1)) ] || fail "restarted from checkpoint '$from', expected $((k - 1)) (the one before the damaged one)"
      expect_grep "^c3: warning: .*checkpoint $k" err.restart "a warning about checkpoint $k"
      echo "fell back to checkpoint $from"
    elif [ "$rc" != 124 ]; then
      strip_hydra_banner out.restart
      [ -s out.restart ] && { fail "refused restart (exit $rc) printed program output"; head -5 out.restart; }
      expect_grep '^c3: error: ' err.restart "refused restart: a c3 error message"
      echo "restart refused (exit $rc): $(grep -m1 '^c3: error' err.restart)"
    fi
  fi
  ;;

finalize-mid-checkpoint)
  # A checkpoint some ranks take and others never reach before MPI_Finalize (the program is
  # written that way): no hang, exit 0, the full output, the earlier checkpoints committed.
  : > out
  mpirun "$RANKS" out err
  rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 124 ] || { fail "run exited $rc"; tail -5 err; }
  expect_same out "$EXPECTED" "run ending during a checkpoint"
  expect_no_grep '^c3: error' err "run ending during a checkpoint"
  got=$(grep -cE "^c3: checkpoint 1 committed .* in $RANKS ranks" err)
  [ "$got" = 1 ] || fail "checkpoint 1: $got 'committed' lines, expected one"
  ;;

*)
  die "unknown action $ACTION"
  ;;
esac
finish
