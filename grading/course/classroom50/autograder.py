"""Classroom 50's autograder for a lab of the CUDA workbook, written by make classroom50
(docs/instructor/platforms.md, "Classroom 50"). The runner runs it for each submission, in the student's
checkout of the students' workbook, on a GitHub Actions runner without a GPU. It unpacks the
instructor's workbook beside it (workbook.tar.gz: the grader, without solutions), never using
the student's own copy of the grader, builds the grader there, and grades the checkout's labs/
with it on the CPU backend (build/host/classroom50: grading/course/classroom50/autograder.cpp),
which writes ./result.json and ./release-body.md. A non-zero exit is an error of the
autograder's (Classroom 50 then reports an error, not a score).

Settings, from the environment (the tests set them):
  WORKBOOK_DIR    an unpacked, built workbook to grade with instead of workbook.tar.gz
  GRADE_BUILD     the grader's build folder (default build/grade-build in the workbook)
  SKIP_PACKAGES   1: install no Debian packages (the runtime block or the machine has them)
"""

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LAB = "@LAB@"          # the lab this assignment grades ("" for every lab)
TIMEOUT = "@TIMEOUT@"  # seconds the grader may take
# What the grader and the CPU backend build with (grading/course/setup-image.sh installs the same).
PACKAGES = ["g++", "make", "binutils", "libboost-context-dev", "libarchive-dev", "nlohmann-json3-dev"]


def run(argv, **kwargs):
    print("+ " + " ".join(argv), flush=True)
    return subprocess.run(argv, check=False, **kwargs).returncode


def as_root(argv):
    """ARGV as root where this user may become root without a password (GitHub's runners), so that
    the grader runs student code as a user of its own, in namespaces; else as it is."""
    if os.geteuid() == 0 or shutil.which("sudo") is None or run(["sudo", "-n", "true"]) != 0:
        return argv
    return ["sudo", "-n", "-E"] + argv


def install_packages():
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    missing = [p for p in PACKAGES if run(["dpkg", "-s", p], **quiet) != 0]
    if not missing:
        return True
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    return (run(as_root(["apt-get", "update", "-qq"]), env=env) == 0 and
            run(as_root(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + missing), env=env) == 0)


def unpack(archive_path, into):
    """Unpacks the instructor's workbook.tar.gz into INTO. Python's "data" filter where this Python
    has it (3.12, and 3.8.17, 3.9.17, 3.10.12 and 3.11.4 on); before that (Debian 12's 3.11.2) the
    same refusals by hand: only files and folders, no absolute name, no ".."."""
    with tarfile.open(archive_path) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(into, filter="data")
            return
        for member in archive.getmembers():
            if not (member.isfile() or member.isdir()) or member.name.startswith("/") or ".." in Path(member.name).parts:
                raise tarfile.TarError("workbook.tar.gz: refused to unpack " + member.name)
        archive.extractall(into)


def main():
    student = Path.cwd()
    if not (student / "labs").is_dir():
        print("::error::no labs/ folder in the submission: is this a copy of the workbook?", file=sys.stderr)
        return 2
    if os.environ.get("SKIP_PACKAGES") != "1" and not install_packages():
        print("::error::could not install the Debian packages the grader needs", file=sys.stderr)
        return 2
    workbook = os.environ.get("WORKBOOK_DIR")
    if not workbook:
        workbook = tempfile.mkdtemp(prefix="cuda-workbook-")
        os.chmod(workbook, 0o755)  # the grader's student users read the workbook
        try:
            unpack(HERE / "workbook.tar.gz", workbook)
        except (OSError, tarfile.TarError) as e:
            print("::error::could not unpack the autograder's workbook.tar.gz: " + str(e), file=sys.stderr)
            return 2
    # A compile per core this process may use (a runner's container may give fewer than it has).
    jobs = str(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    # Built for this one run: -O1 without debug information takes half the compiler's time.
    if run(["make", "-C", workbook, "-j" + jobs, "-s", "HOST_OPT=-O1", "build/host/grade", "build/host/classroom50"]) != 0:
        print("::error::the grader did not build", file=sys.stderr)
        return 2
    grade = as_root([str(Path(workbook) / "build/host/classroom50"), "--src", str(student / "labs"),
                     "--build-dir", os.environ.get("GRADE_BUILD", "build/grade-build"), "--timeout", TIMEOUT,
                     "--result", str(student / "result.json"), "--release-body", str(student / "release-body.md")])
    if LAB:
        grade += ["--lab", LAB]
    return run(grade, cwd=workbook)


if __name__ == "__main__":
    sys.exit(main())
