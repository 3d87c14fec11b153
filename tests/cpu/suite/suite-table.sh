# Sourced by run-on-cpu.sh and run-on-gpu.sh: the table both print, one line per program,
# "label | exit status | output", so that the CPU backend's and the GPU's compare line by line.
# The caller sets $log, the file the table goes to.

# One line from a program's output: sanitizer stack frames and shadow dumps left out.
summarize() {
  grep -v -E '^\s*$|^\s+#[1-9][0-9]* |^=+ +(Host Frame|Device Frame|in |Saved host backtrace)|^=+\s*$|Shadow|^  0x|^  [A-Z][a-z ]+:' |
    head -n 14 | tr '\n' '\a' | sed 's/\a$//; s/\a/ \/ /g' | cut -c1-600
}
row() { printf '%-28s | %-22s | %s\n' "$1" "$2" "$3" | tee -a "$log"; }
