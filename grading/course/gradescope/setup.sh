#!/usr/bin/env bash
# Gradescope's setup script, at the root of the autograder zip (make gradescope). Gradescope runs
# it once, as root, when it builds the autograder's image (Ubuntu), with the zip unpacked in
# /autograder/source. It installs the Debian packages the grader and the CPU backend need, builds
# the grader, and grades the skeletons once, so that the grader's build folder holds the CPU
# backend's runtime and every lab program's parts: each submission then builds only its own file.
# No CUDA toolkit: the CPU backend compiles the labs with g++ (cpusim/cpucc), Gradescope has no GPU.
#   AUTOGRADER_ROOT          Gradescope's folder (default /autograder)
#   GRADESCOPE_GRADE_BUILD   the grader's build folder (default build/grade-build)
#   GRADESCOPE_SKIP_PACKAGES=1  installs nothing (a machine that has them: the test's)
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
cd "$root/source"
. ./gradescope.env

# g++ (with its sanitizers' runtimes) and make build everything; binutils' nm reads what a
# student's object defines; Boost.Context is the CPU backend's fibers; libarchive and
# nlohmann/json are the autograder's own (build/host/gradescope reads archives and JSON).
packages=(g++ make binutils libboost-context-dev libarchive-dev nlohmann-json3-dev)
if [ -z "${GRADESCOPE_SKIP_PACKAGES:-}" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${packages[@]}"
fi

make -j"$(nproc)" build/host/grade build/host/gradescope
report=$(mktemp -d)
build/host/grade --src labs --backend cpu --rubric grading/rubric.txt --build-dir "${GRADESCOPE_GRADE_BUILD:-build/grade-build}" \
  ${LAB:+--lab "$LAB"} --out "$report"
rm -rf "$report"
