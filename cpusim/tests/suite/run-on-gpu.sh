#!/usr/bin/env bash
# Builds every program of the cpusim suite (cpusim/tests/suite/suite.list) with nvcc and runs it on the
# GPU, each planted bug under the compute-sanitizer tool that finds it on a GPU (memcheck for
# out-of-bounds accesses, racecheck for the shared-memory race, synccheck for barriers). Prints
# one line per program, "label | exit status | output", the table that run-on-cpu.sh prints for
# the CPU backend, and keeps each program's full output in build/gpu/cpusim-suite/outputs/.
#
#   cpusim/tests/suite/run-on-gpu.sh [LOG]        LOG defaults to build/gpu/cpusim-suite/results.log
#   Overridable: ARCH (default: the GPU's, e.g. sm_90) NVCC=nvcc COMPUTE_SANITIZER=compute-sanitizer TIMEOUT=300
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=build/gpu/cpusim-suite
log="${1:-$out/results.log}"
# The GPU's own architecture, as the Makefile picks it; sm_90 when nvidia-smi cannot say.
ARCH="${ARCH:-sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')}"
[ "$ARCH" = sm_ ] && ARCH=sm_90
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
SANITIZER="${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}"
. cpusim/tests/suite/suite-table.sh || exit 2

command -v "$NVCC" >/dev/null || { echo "run-on-gpu.sh: no nvcc (set NVCC=...)" >&2; exit 2; }
start_table "$out/outputs" "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1), $ARCH"
# build NAME SOURCE NVCC_FLAGS: one program; its status goes to outputs/NAME.build.status.
build() {
  local sources=() flags=() parts p
  IFS=+ read -ra parts <<< "$2"
  for p in "${parts[@]}"; do sources+=("cpusim/tests/suite/$p"); done
  [ "$3" != - ] && IFS=, read -ra flags <<< "$3"
  rm -f "$out/$1"
  "$NVCC" -std=c++17 -arch="$ARCH" -lineinfo -I cpusim/tests/suite "${sources[@]}" "${flags[@]}" -o "$out/$1" \
    > "$out/outputs/$1.build.txt" 2>&1
  echo $? > "$out/outputs/$1.build.status"
}

# All builds first, as many at a time as there are cores; then the runs, one at a time.
declare -A queued
jobs_max="$(nproc)"
while read -r label source gpu nvcc_flags cpu cpu_env args; do
  [[ -z "$label" || "$label" == \#* || "$gpu" == - ]] && continue
  name="${label%%@*}"
  [ -n "${queued[$name]:-}" ] && continue
  queued[$name]=1
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  build "$name" "$source" "$nvcc_flags" &
done < cpusim/tests/suite/suite.list
wait

while read -r label source gpu nvcc_flags cpu cpu_env args; do
  [[ -z "$label" || "$label" == \#* || "$gpu" == - ]] && continue
  name="${label%%@*}"
  bin="$out/$name"
  built="$(cat "$out/outputs/$name.build.status")"
  if [ "$built" != 0 ]; then
    row "$label" "build failed: nvcc $built" "$(summarize < "$out/outputs/$name.build.txt")"
    continue
  fi
  run_args=()
  [ "$args" != - ] && read -ra run_args <<< "$args"
  command=("$bin")
  [ "$gpu" != run ] && command=("$SANITIZER" --tool "$gpu" --error-exitcode 99 "$bin")
  (timeout "$TIMEOUT" "${command[@]}" "${run_args[@]}" > "$out/outputs/$label.txt" 2>&1 < /dev/null; exit $?) 2> /dev/null
  status=$?
  mode="exit $status"
  [ "$gpu" != run ] && mode="$gpu: exit $status"
  row "$label" "$mode" "$(summarize < "$out/outputs/$label.txt")"
done < cpusim/tests/suite/suite.list
echo "run-on-gpu.sh: table in $log, full outputs in $out/outputs/" >&2
