#!/usr/bin/env bash
# Transparency of the PMPI layer: an MPI program built with c3cc behaves exactly like the plain
# mpicc build when no checkpoint is taken. Builds <program.c> two ways:
#   ref   mpicc -O2                       (MPICH only)
#   c3cc  c3cc -O2                        (the whole c3 toolchain: protocol layer and runtime)
# runs each under `mpiexec -n <nprocs>` and requires byte-identical stdout and the same exit
# status. For the c3cc build it also checks with nm that every MPI function the plain
# build imports from MPICH is defined in the executable by libc3mpi, that hooked functions of the
# table go through their hook c3::mpi::on_X and that the others (pass-throughs, collective
# skeletons, unsupported calls) call their PMPI_ twin.
#
# usage: run_transparency.sh <work dir> <program.c> <nprocs> <mpiexec> <mpicc> <libc3mpi.a>
#                            <mpi_functions.txt> [<c3cc>]
set -euo pipefail

work=$1 source=$2 nprocs=$3 mpiexec=$4 mpicc=$5 archive=$6 table=$7 c3cc=${8:-}
name=$(basename "$source" .c)
rm -rf "$work" && mkdir -p "$work" && cd "$work"

fail() {
  echo "FAIL [$name]: $*" >&2
  exit 1
}

build() {  # <what> <command...>; compiler warnings are kept out of the log unless it fails
  local what=$1
  shift
  "$@" 2>"build.err" || { cat build.err >&2; fail "$what build"; }
}
build mpicc "$mpicc" -O2 "$source" -o ref
[[ -n $c3cc ]] || fail "no c3cc given"
: "$archive"  # the archive c3cc links (kept in the interface for the test's dependencies)
build c3cc "$c3cc" -O2 "$source" -o c3
variants=(c3)

run() {  # <executable> -> <executable>.out, .err, .status
  local status=0
  C3_CKPT_DIR=$work/ckpt timeout 60 "$mpiexec" -n "$nprocs" "./$1" >"$1.out" 2>"$1.err" ||
    status=$?
  echo "$status" >"$1.status"
}

run ref
for variant in "${variants[@]}"; do
  run "$variant"
  if ! cmp -s ref.out "$variant.out"; then
    diff ref.out "$variant.out" | head -20 >&2 || true
    cat "$variant.err" >&2
    fail "$variant: stdout differs from the mpicc build"
  fi
  [[ $(cat "$variant.status") == $(cat ref.status) ]] ||
    fail "$variant: exit status $(cat "$variant.status"), the mpicc build's $(cat ref.status)"
done
[[ -s ref.out || $(cat ref.status) != 0 ]] || fail "the program printed nothing"

# Binding: the functions the plain build imports from MPICH.
mapfile -t imported < <(nm -u ref | awk '{sub(/@.*/, "", $2)} $2 ~ /^MPIX?_/ {print $2}' | sort -u)
((${#imported[@]} > 0)) || fail "the plain build imports no MPI function"
# Table entries without `pass`, `shape=` or `outcome=` have a hook; `outcome=` ones go through
# run_completion; the others call PMPI_ themselves.
mapfile -t hooked < <(awk '$1 == "function" && !/ pass/ && !/ shape=/ && !/ outcome=/ {print $2}' "$table")
mapfile -t outcomes < <(awk '$1 == "function" && / outcome=/ {print $2}' "$table")
for variant in "${variants[@]}"; do
  defined=$(nm --defined-only "$variant" | awk '$2 == "T" {print $3}')
  undefined=$(nm -u "$variant" | awk '{sub(/@.*/, "", $2); print $2}')
  demangled=$(nm -C --defined-only "$variant")
  for function in "${imported[@]}"; do
    grep -qx "$function" <<<"$defined" || fail "$variant: $function is not defined by libc3mpi"
    ! grep -qx "$function" <<<"$undefined" || fail "$variant: $function still comes from MPICH"
    # A here-string, not a pipe: grep -q closing early would fail the pipeline (pipefail).
    if grep -qx "$function" <<<"$(printf '%s\n' "${hooked[@]}")"; then
      grep -q " c3::mpi::on_${function#MPI_}(" <<<"$demangled" ||
        fail "$variant: $function does not go through c3::mpi::on_${function#MPI_}"
    elif grep -qx "$function" <<<"$(printf '%s\n' "${outcomes[@]}")"; then
      grep -q " c3::mpi::run_completion(" <<<"$demangled" ||
        fail "$variant: $function does not go through c3::mpi::run_completion"
    else
      grep -qx "P$function" <<<"$undefined" || fail "$variant: does not call P$function"
    fi
  done
done
echo "[$name] ${variants[*]} identical to mpicc (-n $nprocs, exit $(cat ref.status));" \
     "${#imported[@]} MPI functions bound to libc3mpi"
