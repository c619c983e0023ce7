#!/usr/bin/env bash
# One seed of the randomized MPI tests of c3 (see README.md).
#
#   run_seed.sh <seed> <ranks> <work dir> [toolchain bin dir]
#
# Generates the program (gen_p2p.py, or gen_coll.py with MPI_RANDOM_GENERATOR=coll), builds it with `mpicc -O2` (the reference) and with
# `c3cc -O2`, and requires byte-identical stdout from
#   1. the c3 build run uninterrupted, and
#   2. a c3 run killed once -- by C3_FAULT at a stage, rank and checkpoint chosen from the seed,
#      or by `kill -9` of one rank's process after a random delay -- followed by
#      `C3_RESTART=latest mpiexec -n <ranks>` appending to the same output file.
# When the kill came before any checkpoint was committed the restart has nothing to continue
# from: the harness reruns the program fresh and the seed counts as skipped (exit 77).
# When the chosen fault is never reached (the run ends normally), after-commit:1@R is used
# instead.
#
# Environment:
#   MPI_RANDOM_GENERATOR=p2p|coll   the program generator: gen_p2p.py (default) or gen_coll.py
#   MPI_RANDOM_FAULT=<C3_FAULT value> | kill:<rank>:<ms> | none   use this kill instead
#   MPI_RANDOM_KINDS=seq,nb,...     passed to the generator's --kinds
#   MPI_RANDOM_AVOID=bsend,...      passed to the generator's --avoid (features to leave out)
#   MPI_RANDOM_MODE=forced|interval gen_coll.py only: passed to --mode (default: from the seed)
#   MPI_RANDOM_INTERVAL=<s>         C3_INTERVAL of every c3 run of an interval-mode program
#                                   (default 0.02)
#   MPI_RANDOM_TIMEOUT=<s>          limit for each mpiexec (default: 30 s or 20x the reference)
#   MPI_RANDOM_KEEP=1               keep the work dir on success too (always kept on failure)
#   MPI_RANDOM_REFERENCE_ONLY=<n>   no c3 at all: run the mpicc build n more times with
#                                   MPI_RANDOM_JITTER (other matching orders), every second
#                                   run with UCX_RNDV_THRESH=0 (every send synchronous); each
#                                   output must equal the first (checks the generator)
#   MPIEXEC, MPICC                  default: mpiexec, mpicc
# Exit status: 0 pass, 1 fail, 77 skip, 2 usage or setup error. The last line of stdout is the
# verdict, "mpi-random seed S ranks N: PASS|FAIL|SKIP (...)" ("mpi-random-coll seed ..." for
# gen_coll.py); it is also in <work dir>/result.
set -u

SEED=${1:?usage: run_seed.sh <seed> <ranks> <work dir> [toolchain bin dir]}
RANKS=${2:?ranks}
WORK=${3:?work dir}
BIN=${4:-/work/main/build/bin}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MPIEXEC=${MPIEXEC:-mpiexec}
MPICC=${MPICC:-mpicc}
C3CC=$BIN/c3cc
[[ $SEED =~ ^[0-9]+$ ]] || { echo "run_seed.sh: seed '$SEED' is not a number" >&2; exit 2; }
[[ $RANKS =~ ^[234]$ ]] || { echo "run_seed.sh: ranks must be 2, 3 or 4" >&2; exit 2; }
GENERATOR=${MPI_RANDOM_GENERATOR:-p2p}
[[ $GENERATOR == p2p || $GENERATOR == coll ]] || { echo "run_seed.sh: MPI_RANDOM_GENERATOR must be p2p or coll" >&2; exit 2; }
MODE_OPTION=${MPI_RANDOM_MODE:-}
[[ -z $MODE_OPTION || ($GENERATOR == coll && ($MODE_OPTION == forced || $MODE_OPTION == interval)) ]] ||
  { echo "run_seed.sh: MPI_RANDOM_MODE must be forced or interval (and needs MPI_RANDOM_GENERATOR=coll)" >&2; exit 2; }
REFERENCE_ONLY=${MPI_RANDOM_REFERENCE_ONLY:-0}
[[ $REFERENCE_ONLY =~ ^[0-9]+$ ]] || { echo "run_seed.sh: MPI_RANDOM_REFERENCE_ONLY must be a number" >&2; exit 2; }
((REFERENCE_ONLY)) || [[ -x $C3CC ]] || { echo "run_seed.sh: no c3cc in $BIN (is the toolchain being rebuilt?)" >&2; exit 2; }
for tool in "$MPIEXEC" "$MPICC" python3 timeout; do
  command -v "$tool" > /dev/null || { echo "run_seed.sh: '$tool' not found" >&2; exit 2; }
done

unset C3_RESTART C3_FAULT C3_INTERVAL C3_KEEP C3_VERBOSE C3_CKPT_DIR C3_OUTPUT
unset MPI_RANDOM_JITTER MPI_RANDOM_TRACE
rm -rf "$WORK" && mkdir -p "$WORK" && WORK=$(cd "$WORK" && pwd) && cd "$WORK" || exit 2

TAG="mpi-random seed $SEED ranks $RANKS"
[[ $GENERATOR == coll ]] && TAG="mpi-random-coll seed $SEED ranks $RANKS"
C3_ENV=()  # settings of every run of the c3 build (C3_INTERVAL of an interval-mode program)
NOTES=()
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
verdict() { # verdict PASS|FAIL|SKIP <exit status>
  local text="$TAG: $1 (${NOTES[*]-})"
  echo "$text" > result
  if [[ $1 != PASS ]]; then
    echo "work dir kept: $WORK"
    echo "reproduce: $([[ $GENERATOR != p2p ]] && echo "MPI_RANDOM_GENERATOR=$GENERATOR ")${MODE_OPTION:+MPI_RANDOM_MODE=$MODE_OPTION }${MPI_RANDOM_INTERVAL:+MPI_RANDOM_INTERVAL=$MPI_RANDOM_INTERVAL }${FAULT:+MPI_RANDOM_FAULT='$FAULT' }${MPI_RANDOM_KINDS:+MPI_RANDOM_KINDS=$MPI_RANDOM_KINDS }${MPI_RANDOM_AVOID:+MPI_RANDOM_AVOID=$MPI_RANDOM_AVOID }$( ((REFERENCE_ONLY)) && echo "MPI_RANDOM_REFERENCE_ONLY=$REFERENCE_ONLY ")" \
      "$HERE/run_seed.sh $SEED $RANKS $WORK $BIN"
  elif [[ ${MPI_RANDOM_KEEP:-0} != 1 ]]; then
    # success: keep the program and the logs, drop executables and checkpoints
    rm -rf ref c3 ./*/ckpt ./*/ckpt.fresh ./*/ckpt.after-kill
  fi
  echo "$text"
  exit "$2"
}
finish() {
  if ((failures)); then verdict FAIL 1; fi
  verdict PASS 0
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# The rank processes of this test's c3 executable: the binary's path is unique to the work dir.
rank_pids() { # rank_pids [rank]: pids of running processes of ./c3 (of that rank)
  local exe=$WORK/c3 p
  for p in /proc/[0-9]*; do
    [[ $p/exe -ef $exe ]] 2> /dev/null || continue  # same file, no subprocess
    if [[ -n ${1-} ]]; then
      grep -qzx "PMI_RANK=$1" "$p/environ" 2> /dev/null || continue
    fi
    echo "${p#/proc/}"
  done
}
reap_strays() { # a torn-down job must not leave ranks behind (5 s to finish dying)
  local pids deadline=$(($(now_ms) + 5000))
  pids=$(rank_pids)
  while [[ -n $pids ]] && (($(now_ms) < deadline)); do
    sleep 0.1
    pids=$(rank_pids)
  done
  if [[ -n $pids ]]; then
    fail "processes of the c3 build still running after mpiexec ended: $(echo $pids)"
    for p in $pids; do kill -9 "$p" 2> /dev/null; done
  fi
}

# start_job <out> <err> [VAR=value...]: mpiexec of the c3 build in the background (pid in JOB),
# stdout appended to <out>.
start_job() {
  local out=$1 err=$2
  shift 2
  JOB_START=$(now_ms)
  env ${C3_ENV[@]+"${C3_ENV[@]}"} "$@" "$MPIEXEC" -n "$RANKS" "$WORK/c3" >> "$out" 2> "$err" &
  JOB=$!
}
# wait_job <what> <stacks>: waits up to LIMIT s for JOB; sets RC. A job still running then hangs:
# each rank's stack goes to <stacks>.R.txt (gdb), the job is killed and RC is 124.
wait_job() {
  local what=$1 stacks=$2 deadline=$((JOB_START + LIMIT * 1000)) r p
  while kill -0 "$JOB" 2> /dev/null && (($(now_ms) < deadline)); do sleep 0.05; done
  if kill -0 "$JOB" 2> /dev/null; then
    if command -v gdb > /dev/null; then
      for ((r = 0; r < RANKS; ++r)); do
        for p in $(rank_pids "$r"); do
          gdb -q -batch -p "$p" -ex bt < /dev/null 2>&1 | grep -E '^#' > "$stacks.$r.txt"
        done
      done
    fi
    kill -TERM "$JOB" 2> /dev/null
    sleep 2
    kill -KILL "$JOB" 2> /dev/null
    wait "$JOB"
    RC=124
    fail "$what: no end after ${LIMIT} s (hang?); stderr in $PWD/${3:-?}, stacks in $PWD/$stacks.R.txt"
    for ((r = 0; r < RANKS; ++r)); do
      [[ -s $stacks.$r.txt ]] && echo "    rank $r: $(grep -oE ' in [A-Za-z_0-9:]+' "$stacks.$r.txt" | head -8 | sed 's/ in //' | tr '\n' ' ')"
    done
  else
    wait "$JOB"
    RC=$?
  fi
  reap_strays
}
# mpirun <what> <out> <err> [VAR=value...]: runs the c3 build under mpiexec and waits (see wait_job).
mpirun() {
  local what=$1 out=$2 err=$3
  shift 3
  start_job "$out" "$err" "$@"
  wait_job "$what" "${err}.stacks" "$err"
}

show_errors() { # show_errors <stderr file>: what went wrong, without c3's progress lines
  grep -vE '^c3: (checkpoint [0-9]+ committed|rank [0-9]+: checkpoint [0-9]+ committed here|restarting from)|^trace: ' "$1" | head -6 | sed 's/^/    /'
}

# hydra's report of a dead process goes to stdout; the programs print no empty lines, no lines
# of '=' and none of hydra's sentences, so dropping those lines leaves the program's output.
strip_hydra_report() { # strip_hydra_report <file>: in place
  grep -vE '^$|^={40,}$|^=   |^YOUR APPLICATION TERMINATED WITH THE EXIT STRING: |^This typically refers to a problem with your application\.$|^Please see the FAQ page for debugging suggestions$' \
    "$1" > "$1.program"
  mv "$1.program" "$1"
}
expect_same() { # expect_same <actual> <what>
  if ! cmp -s "$1" "$WORK/expected"; then
    fail "$2: stdout differs from the reference (< reference, > c3; $1)"
    diff "$WORK/expected" "$1" | head -10
  fi
}
# A restart's warning that a rank was killed between writing output and recording it is checked
# against the output instead (expect_restarted_output).
SHOWN_TWICE='^c3: warning: rank [0-9]+ was killed while showing [0-9]+ bytes of its output'
expect_clean_stderr() { # expect_clean_stderr <file> <what>
  if grep -E '^c3: (error|warning)|^mpi-random:' "$1" | grep -qvE "$SHOWN_TWICE"; then
    fail "$2: error messages in $1:"
    grep -E '^c3: (error|warning)|^mpi-random:' "$1" | head -5
  fi
}
# expect_restarted_output <actual> <what> <restart stderr>: the reference, except that bytes a
# restart warns may appear twice may appear twice (test/output_commit/shown_twice.py).
expect_restarted_output() {
  local verdict
  if verdict=$(python3 "$HERE/../output_commit/shown_twice.py" "$1" "$WORK/expected" "$3"); then
    [ -z "$verdict" ] || echo "$verdict"
  else
    fail "$2: $verdict (< reference, > c3; $1)"
    diff "$WORK/expected" "$1" | head -10
  fi
}

# --- program and builds ------------------------------------------------------------------------
python3 "$HERE/gen_$GENERATOR.py" --seed "$SEED" --ranks "$RANKS" ${MPI_RANDOM_KINDS:+--kinds "$MPI_RANDOM_KINDS"} \
  ${MPI_RANDOM_AVOID:+--avoid "$MPI_RANDOM_AVOID"} ${MODE_OPTION:+--mode "$MODE_OPTION"} -o prog.c ||
  { echo "run_seed.sh: gen_$GENERATOR.py failed" >&2; exit 2; }
STEPS=$(sed -n 's/^ *@meta .*"steps": \([0-9]*\).*/\1/p' prog.c)
# pragma visits every run makes (gen_coll.py says; gen_p2p.py has at least one per step)
SITES=$(sed -n 's/^ *@meta .*"sites": \([0-9]*\).*/\1/p' prog.c)
SITES=${SITES:-$STEPS}
if grep -q '^ *@meta .*"mode": "interval"' prog.c; then
  INTERVAL=${MPI_RANDOM_INTERVAL:-0.02}
  C3_ENV=(C3_INTERVAL="$INTERVAL")
fi
"$MPICC" -O2 -o ref prog.c > build-ref.log 2>&1 || { cat build-ref.log; fail "mpicc -O2 prog.c failed"; finish; }
if ((REFERENCE_ONLY == 0)) && ! "$C3CC" -O2 -o c3 prog.c > build-c3.log 2>&1; then
  head -20 build-c3.log
  fail "c3cc -O2 prog.c failed (build-c3.log)"
  finish
fi

start=$(now_ms)
timeout -k 10 120 "$MPIEXEC" -n "$RANKS" ./ref > expected 2> expected.err
rc=$?
REF_MS=$(($(now_ms) - start))
if [[ $rc != 0 || ! -s expected ]]; then
  fail "the reference (mpicc build) exited with $rc$([[ $rc == 124 ]] && echo ' (timed out)')"
  head -5 expected.err
  finish
fi
LIMIT=${MPI_RANDOM_TIMEOUT:-$((REF_MS / 50 > 30 ? REF_MS / 50 : 30))}

if ((REFERENCE_ONLY)); then
  NOTES+=("reference only: $((REFERENCE_ONLY + 1)) runs, first ${REF_MS} ms")
  for ((j = 1; j <= REFERENCE_ONLY; ++j)); do
    # even runs: UCX rendezvous for every message, so a standard send waits for its receive
    settings=(MPI_RANDOM_JITTER=$((SEED * 100 + j)))
    ((j % 2 == 0)) && settings+=(UCX_RNDV_THRESH=0)
    env "${settings[@]}" timeout -k 10 "$LIMIT" "$MPIEXEC" -n "$RANKS" ./ref > "jitter.$j" 2> "jitter.$j.err"
    rc=$?
    if [[ $rc != 0 ]]; then
      fail "reference run $j (${settings[*]}) exited with $rc$([[ $rc == 124 ]] && echo ' (timed out: deadlock?)')"
      head -5 "jitter.$j.err"
    elif ! cmp -s expected "jitter.$j"; then
      fail "reference run $j (${settings[*]}): stdout differs from the first run"
      diff expected "jitter.$j" | head -5
    fi
  done
  finish
fi

# --- 1. uninterrupted ---------------------------------------------------------------------------
mkdir -p uninterrupted && cd uninterrupted || exit 2
: > out
start=$(now_ms)
mpirun "uninterrupted run" out err C3_CKPT_DIR=ckpt C3_KEEP=1000 C3_VERBOSE=1
C3_MS=$(($(now_ms) - start))
[[ $RC == 0 || $RC == 124 ]] || { fail "uninterrupted run exited with $RC:"; show_errors err; }
expect_same out "uninterrupted run"
expect_clean_stderr err "uninterrupted run"
# the newest checkpoint every rank committed (one may be abandoned at MPI_Finalize): rank 0's
# line for the job; the ranks' own lines (C3_VERBOSE=1) must agree
CHECKPOINTS=$(sed -n "s/^c3: checkpoint \([0-9]*\) committed (.* in $RANKS ranks, .*/\1/p" err | sort -n | tail -1)
BY_RANKS=$(sed -n 's/^c3: rank [0-9]*: checkpoint \([0-9]*\) committed here.*/\1/p' err | sort -n | uniq -c |
  awk -v ranks="$RANKS" '$1 == ranks {n = $2} END {print n + 0}')
[[ ${CHECKPOINTS:-0} == "$BY_RANKS" ]] ||
  fail "rank 0 reported checkpoint ${CHECKPOINTS:-none} committed by all, the ranks' own lines say $BY_RANKS"
CHECKPOINTS=${CHECKPOINTS:-0}
NOTES+=("reference ${REF_MS} ms, c3 ${C3_MS} ms${INTERVAL:+, C3_INTERVAL=$INTERVAL}, $CHECKPOINTS checkpoints")
if ((CHECKPOINTS == 0)); then
  fail "the uninterrupted run committed no checkpoint ($([[ -n ${INTERVAL-} ]] && echo "C3_INTERVAL=$INTERVAL" || echo "every rank has a forced one"))"
fi
# Protocol figures of every rank's own commit line: "c3: rank R: checkpoint N committed here
# (SIZE state, SIZE log, late messages L (B bytes), early messages E, logged events K)".
read -r late early logged < <(sed -n 's/^c3: rank [0-9]*: checkpoint [0-9]* committed here.*late messages \([0-9]*\) .*early messages \([0-9]*\), logged events \([0-9]*\).*/\1 \2 \3/p' err |
  awk '{l += $1; e += $2; k += $3} END {print l + 0, e + 0, k + 0}')
NOTES+=("late $late, early $early, logged $logged")
cd "$WORK" || exit 2
((failures)) && finish

# --- 2. kill and restart ------------------------------------------------------------------------
# The kill follows from the seed: a generator of our own (bash reseeds $RANDOM in subshells).
rng=$((SEED * 1000003 + RANKS))
pick() { # pick N: PICK = 0 .. N-1 (64-bit LCG, wrapping, then a scramble of its high bits)
  rng=$((rng * 6364136223846793005 + 1442695040888963407))
  local x=$(((rng >> 33) & 0x7fffffff))
  x=$(((x ^ (x >> 13)) * 1103515245 & 0x7fffffff))
  PICK=$((x % $1))
}
stages=(site mid-write before-commit nondet-log recvonly-log after-local-commit after-commit
        before-release kill kill)
if [[ -n ${MPI_RANDOM_FAULT-} ]]; then
  FAULT=$MPI_RANDOM_FAULT
else
  pick ${#stages[@]}
  stage=${stages[$PICK]}
  pick "$RANKS"
  rank=$PICK
  # Kills that leave nothing committed only make the seed skip: aim at the last quarter of the
  # pragma visits every run makes (SITES; the K-th visit comes there or earlier), at the second half of an outside
  # kill's window, and at checkpoint 2 or later for stages before the commit of checkpoint N.
  case $stage in
  site) pick $((SITES / 4 + 1)) && FAULT=site:$((SITES - PICK))@$rank ;;
  kill) pick $((C3_MS * 6 / 10 + 1)) && FAULT=kill:$rank:$((C3_MS * 3 / 10 + PICK)) ;;
  after-commit | before-release) pick "$CHECKPOINTS" && FAULT=$stage:$((1 + PICK))@$rank ;;
  *)
    if ((CHECKPOINTS >= 2)); then
      pick $((CHECKPOINTS - 1))
      FAULT=$stage:$((2 + PICK))@$rank
    else # before checkpoint 1 commits nothing is left to restart from
      FAULT=after-commit:1@$rank
    fi
    ;;
  esac
fi
[[ $FAULT == none ]] && { NOTES+=("no kill"); finish; }

# kill_run <fault> <dir>: the killed run; sets KILLED (1 when the fault or kill happened).
kill_run() {
  local fault=$1 dir=$2 victim delay rank deadline
  mkdir -p "$dir" && cd "$dir" || exit 2
  : > out.kill
  KILLED=0
  if [[ $fault == kill:* ]]; then
    IFS=: read -r _ rank delay <<< "$fault"
    start_job out.kill err.kill C3_CKPT_DIR=ckpt
    sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
    # the rank may still be starting: look for it for up to 2 s
    deadline=$(($(now_ms) + 2000))
    victim=""
    while [[ -z $victim ]] && kill -0 "$JOB" 2> /dev/null && (($(now_ms) < deadline)); do
      victim=$(rank_pids "$rank" | head -1)
      [[ -n $victim ]] || sleep 0.01
    done
    if [[ -n $victim ]] && kill -9 "$victim" 2> /dev/null; then
      KILLED=1
      echo "killed rank $rank (pid $victim) after $delay ms"
    fi
    wait_job "killed run ($fault)" err.kill.stacks err.kill
  else
    mpirun "killed run ($fault)" out.kill err.kill C3_CKPT_DIR=ckpt C3_FAULT="$fault"
    [[ $RC != 0 && $RC != 124 ]] && KILLED=1
  fi
  cp out.kill out
  strip_hydra_report out
  if ((KILLED == 0)) && [[ $RC == 0 ]]; then
    # the fault was not reached: the run must simply be right
    expect_same out "run with a fault never reached ($fault)"
  fi
}

kill_run "$FAULT" "fault"
if ((KILLED == 0)) && ((failures == 0)) && [[ -z ${MPI_RANDOM_FAULT-} ]]; then
  # A stage this run did not go through, or a timed kill after the rank was done: kill a rank
  # right after the first commit instead (a late pragma visit may still come before it).
  NOTES+=("$FAULT not reached")
  pick "$RANKS"
  FAULT=after-commit:1@$PICK
  cd "$WORK" && kill_run "$FAULT" "fault2"
fi
NOTES+=("fault $FAULT")
((failures)) && finish
if ((KILLED == 0)); then
  NOTES+=("the fault was never reached: no kill")
  verdict SKIP 77
fi
expect_clean_stderr err.kill "killed run ($FAULT)"

# the checkpoints as the kill left them, to replay a failing restart
cp -a ckpt ckpt.after-kill
mpirun "restart after $FAULT" out err.restart C3_CKPT_DIR=ckpt C3_RESTART=latest
if [[ $RC != 0 ]] && grep -qiE 'no (globally )?committed checkpoint|no checkpoint .*committed by every rank|nothing to restart from' err.restart; then
  # nothing to continue from: what a user does is start over
  NOTES+=("no checkpoint committed before the kill")
  : > out
  mpirun "fresh run after $FAULT" out err.fresh C3_CKPT_DIR=ckpt.fresh
  [[ $RC == 0 || $RC == 124 ]] || { fail "fresh run after $FAULT exited with $RC:"; show_errors err.fresh; }
  expect_same out "fresh run after $FAULT"
  ((failures)) && finish
  verdict SKIP 77
fi
if [[ $RC != 0 && $RC != 124 ]]; then
  fail "restart after $FAULT exited with $RC:"
  show_errors err.restart
fi
restarted=$(sed -n 's/^c3: restarting from checkpoint \([0-9]*\).*/\1/p' err.restart | sort -u | tr '\n' ' ')
[[ -n $restarted ]] || fail "restart after $FAULT: no 'c3: restarting from checkpoint' line"
NOTES+=("restarted from checkpoint ${restarted% }")
expect_restarted_output out "kill at $FAULT, restart" err.restart
expect_clean_stderr err.restart "restart after $FAULT"
if ((failures)); then
  echo "replay the restart: cd $PWD && rm -rf ckpt.replay && cp -a ckpt.after-kill ckpt.replay &&" \
    "${INTERVAL:+C3_INTERVAL=$INTERVAL }C3_CKPT_DIR=ckpt.replay C3_RESTART=latest $MPIEXEC -n $RANKS ../c3"
fi
finish
