#!/usr/bin/env bash
# Gradescope's setup script, at the root of the autograder zip (make gradescope). Gradescope runs
# it once, as root, when it builds the autograder's image (Ubuntu), with the zip unpacked in
# /autograder/source: grading/course/setup-image.sh installs the packages, builds the grader and
# build/host/gradescope, and warms the grader's build folder.
#   AUTOGRADER_ROOT          Gradescope's folder (default /autograder)
#   GRADESCOPE_GRADE_BUILD   the grader's build folder (default build/grade-build)
#   GRADESCOPE_SKIP_PACKAGES=1  installs nothing (a machine that has them: the test's)
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
cd "$root/source"
. ./gradescope.env
SKIP_PACKAGES="${GRADESCOPE_SKIP_PACKAGES:-}" GRADE_BUILD="${GRADESCOPE_GRADE_BUILD:-build/grade-build}" \
  exec grading/course/setup-image.sh build/host/gradescope "$LAB"
