#!/usr/bin/env bash
# Builds a course platform's grading image, in the workbook's root: Gradescope's setup.sh runs it
# (grading/course/gradescope/), and so does the Dockerfile make prairielearn writes. It installs
# the Debian packages the grader and the CPU backend need, builds the grader and the platform's
# own program, and grades the skeletons once, so that the grader's build folder holds the CPU
# backend's runtime and every lab program's parts: each submission then builds only its own file.
# No CUDA toolkit: the CPU backend compiles the labs with g++ (cpusim/cpucc); no platform has a GPU.
#   usage: grading/course/setup-image.sh PROGRAM [LAB]   (PROGRAM: build/host/gradescope, ...;
#          LAB: the one lab graded, else every lab)
#   SKIP_PACKAGES=1   installs nothing (a machine that has them: the tests')
#   GRADE_BUILD       the grader's build folder (default build/grade-build)
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 PROGRAM [LAB]" >&2; exit 2; }
program=$1 lab=${2:-}

# g++ (with its sanitizers' runtimes) and make build everything; binutils' nm reads what a
# student's object defines; Boost.Context is the CPU backend's fibers; libarchive and
# nlohmann/json are the platform programs' own (they read archives and JSON).
packages=(g++ make binutils libboost-context-dev libarchive-dev nlohmann-json3-dev)
if [ -z "${SKIP_PACKAGES:-}" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${packages[@]}"
fi

make -j"$(nproc)" build/host/grade "$program"
report=$(mktemp -d)
build/host/grade --src labs --backend cpu --rubric grading/rubric.txt --build-dir "${GRADE_BUILD:-build/grade-build}" \
  ${lab:+--lab "$lab"} --out "$report"
rm -rf "$report"
