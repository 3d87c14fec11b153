# Sourced by run-on-cpu.sh and run-on-gpu.sh: the table both print, one line per program,
# "label | exit status | output", so that the CPU backend's and the GPU's compare line by line.
# The caller sets $log, the file the table goes to.

# How long one program may run, in seconds.
TIMEOUT="${TIMEOUT:-300}"

# start_table OUTPUTS MACHINE: the folder for the full outputs, and the table, emptied, with its
# first line.
start_table() {
  mkdir -p "$1" "$(dirname "$log")" || exit 2
  : > "$log"
  echo "# cpusim suite on $2, $(date -u +%F)" | tee -a "$log"
}

# One line from a program's output: sanitizer stack frames and shadow dumps left out.
summarize() {
  grep -v -E '^\s*$|^\s+#[1-9][0-9]* |^=+ +(Host Frame|Device Frame|in |Saved host backtrace)|^=+\s*$|Shadow|^  0x|^  [A-Z][a-z ]+:' |
    head -n 14 | tr '\n' '\a' | sed 's/\a$//; s/\a/ \/ /g' | cut -c1-600
}
row() { printf '%-28s | %-22s | %s\n' "$1" "$2" "$3" | tee -a "$log"; }
