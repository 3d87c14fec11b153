#!/usr/bin/env bash
# The CPU backend's side of run-on-gpu.sh: runs the suite programs that `make cpusim-suite`
# built (cpusim/tests/suite/suite.list says which binary, environment and arguments) and compiles the
# compile-time rejections with cpucc. One line per program, "label | exit status | output",
# to compare line by line with the GPU's table. Full outputs go to build/cpu/cpusim-suite/outputs/.
#
#   cpusim/tests/suite/run-on-cpu.sh [LOG]        LOG defaults to build/cpu/cpusim-suite/results.log
#   CPUSIM_SUITE_DIR=build/cpu/cpusim-suite (where the programs are), TIMEOUT=300
set -uo pipefail
cd "$(dirname "$0")/../../.."
suite="${CPUSIM_SUITE_DIR:-build/cpu/cpusim-suite}"
log="${1:-$suite/results.log}"
. cpusim/tests/suite/suite-table.sh || exit 2

start_table "$suite/outputs" "the CPU backend ($(nproc) cores)"
while read -r label source gpu nvcc_flags cpu cpu_env args; do
  [[ -z "$label" || "$label" == \#* || "$cpu" == - ]] && continue
  output="$suite/outputs/$label.txt"
  if [ "$cpu" = cpucc ]; then
    cpusim/cpucc "cpusim/tests/suite/$source" -o "$suite/outputs/$label.bin" > "$output" 2>&1
    status=$?
    rm -f "$suite/outputs/$label.bin"
    row "$label" "cpucc: exit $status" "$(summarize < "$output")"
    continue
  fi
  if [ ! -x "$suite/$cpu" ]; then
    row "$label" "not built" "run make cpusim-suite first"
    continue
  fi
  environment=()
  [ "$cpu_env" != - ] && IFS=, read -ra environment <<< "$cpu_env"
  run_args=()
  [ "$args" != - ] && read -ra run_args <<< "$args"
  # (The subshell keeps bash's "Segmentation fault" notice for the crash programs off the table.)
  (env "${environment[@]}" timeout "$TIMEOUT" "$suite/$cpu" "${run_args[@]}" > "$output" 2>&1 < /dev/null; exit $?) 2> /dev/null
  status=$?
  # ThreadSanitizer cannot always map its shadow memory under high-entropy ASLR: retry without.
  if grep -q 'ThreadSanitizer: unexpected memory mapping' "$output"; then
    (env "${environment[@]}" timeout "$TIMEOUT" setarch -R "$suite/$cpu" "${run_args[@]}" > "$output" 2>&1 < /dev/null; exit $?) 2> /dev/null
    status=$?
  fi
  row "$label" "exit $status" "$(summarize < "$output")"
done < cpusim/tests/suite/suite.list
echo "run-on-cpu.sh: table in $log, full outputs in $suite/outputs/" >&2
