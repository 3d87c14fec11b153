// `make grade`: builds each lab from a source folder, checks it against the reference, scores
// it by grading/rubric.txt and writes the reports. This process runs no student code: each
// student program runs in a process of its own, with a time limit, and the verdict is made
// here from what it wrote back (grading/core/isolation.h, docs/instructor/threat-model.md).
//
//   grade [--src DIR] [--lab NN [--step S]] [--backend gpu|cpu] [--seed N] [--rubric FILE] [--out DIR] [--strict]
//         [--build-dir DIR] [--quick] [--jobs N] [--counts ncu|model] [--targets FILE] [--record-targets]
//
// Exit status: 0 when grading ran to the end, whatever the score; 1 with --strict when the
// score is below full marks; 2 when the grader itself could not run.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "common/cli.h"
#include "common/exit_codes.h"
#include "grading/core/build_folder.h"
#include "grading/core/checks.h"
#include "grading/core/grade_labs.h"
#include "grading/core/interrupt.h"
#include "grading/core/isolation.h"
#include "grading/core/machine.h"
#include "grading/core/progress.h"
#include "grading/core/report.h"
#include "grading/core/rubric.h"
#include "grading/core/skeletons.h"
#include "grading/core/submission.h"
#include "grading/core/targets.h"
#include "tools/descendants.h"
#include "tools/subprocess.h"

namespace {

bool have_command(const std::string& name) {
  return tools::run_command({"sh", "-c", "command -v " + name}).exited(0);
}

bool is_dir(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Where the reports go, once the arguments say so; and, when this run has a folder of its own
// under build/grade, that parent, whose `latest` link points at it once it reports. And the
// scratch folder, once made: removed however the run ends.
std::string out_dir, runs_dir, scratch_dir;
// What the student typed, in every message: "make check" for --quick.
const char* command_name = "make grade";

// Exit 2, "could not grade": said on stderr and, once the report folder is known, in its
// results.json in place of an earlier run's.
[[noreturn]] void cannot_run(const std::string& why) {
  grade::end_the_run_here();
  std::fprintf(stderr, "%s: %s\n", command_name, why.c_str());
  if (!scratch_dir.empty()) tools::run_command({"rm", "-rf", scratch_dir});
  if (!out_dir.empty()) {
    tools::run_command({"mkdir", "-p", out_dir});
    if (!grade::write_could_not_grade(out_dir, why)) std::fprintf(stderr, "%s: could not write into %s either\n", command_name, out_dir.c_str());
    if (!runs_dir.empty()) grade::point_latest(runs_dir, out_dir);
  }
  std::exit(lab::kExitCannotRun);
}

std::string gpu_name() {
  const tools::RunResult r = tools::run_command({"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"});
  if (!r.exited(0) || r.output.empty()) return "";
  return r.output.substr(0, r.output.find('\n'));
}

// The grader's own files, fingerprinted before any student code runs: its program and the fence
// beside it (sandbox.h), the rubric,
// the table of labs and every makefile the builds read. Where namespaces are missing (Sandbox), a
// student program could replace them for the next run: checked at the end.
std::vector<std::pair<std::string, std::string>> trusted_files(const std::string& rubric_path) {
  const std::filesystem::path grader = std::filesystem::read_symlink("/proc/self/exe");
  std::vector<std::string> paths = {grader.string(), std::filesystem::path(grader).replace_filename("fence").string(), rubric_path,
                                    "labs.txt", grade::kSkeletonList, "Makefile", "cpusim/cpusim.mk", "scripts/list-rules"};
  std::error_code ec;
  std::vector<std::string> makefiles;  // sorted: a copy of the checkout may list its folder in another order
  for (const auto& entry : std::filesystem::directory_iterator("mk", ec)) makefiles.push_back(entry.path().string());
  std::sort(makefiles.begin(), makefiles.end());
  paths.insert(paths.end(), makefiles.begin(), makefiles.end());
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string& path : paths) files.push_back({path, grade::fingerprint(path)});
  return files;
}

// What the command line asks for (the usage above).
struct Options {
  std::string src = "labs", lab_filter, step_filter, backend, rubric_path = "grading/rubric.txt", out, build_dir;
  std::string targets_path = "grading/targets.txt", class_run, trace_runs, counts;
  std::vector<std::string> hide;
  int64_t seed = -1, jobs = -1, cores = 0;
  bool strict = false, no_namespaces = false, quick = false, record_targets = false, record_estimates = false, side_by_side = false;
};

Options parse_options(int argc, char** argv) {
  Options o;
  lab::Cli cli(argv[0], "Grades the labs of a source folder (the labs/ layout): build, correctness, safety,\n"
                        "technique, performance. Run from the repository root; `make grade` does.");
  cli.add_string("src", &o.src, "the folder to grade");
  cli.add_string("lab", &o.lab_filter, "only these labs: 01, or 01_matmul_naive (a lab of labs.txt), or a list, 01,04");
  cli.add_string("step", &o.step_filter, "with --lab, a lab in steps: only this step (its number, 1, or its name, 1d)");
  cli.add_string("backend", &o.backend, "gpu or cpu (default: gpu when nvidia-smi sees one)");
  cli.add_int("seed", &o.seed, -1, INT64_MAX, "seed of the inputs (default: a new one each run)");
  cli.add_string("rubric", &o.rubric_path, "the rubric file");
  cli.add_int("jobs", &o.jobs, 1, 64, "labs graded at once (default: on a GPU one per two cores, on the CPU backend\n"
                                     "one); the timed runs of the performance check always run one at a time");
  cli.add_int("cores", &o.cores, 0, 4096, "the cores this grading may use, at most (default: every core it may run on;\n"
                                         "make grade-class gives each grader it runs at once its share)");
  cli.add_string("out", &o.out, "where the reports go (default: a folder of this run's own, build/grade/<time>-<pid>,\n"
                                "with build/grade/latest pointing at the newest; only a run in the default folders is\n"
                                "added to the history make status reads, build/progress)");
  cli.add_string("build-dir", &o.build_dir, "the build folder, kept between runs (default build/grade-build): the lab\n"
                                            "programs' parts and the solutions' programs are built once, an unchanged\n"
                                            "student file is not compiled again, and a new grader or makefile empties it");
  cli.add_strings("hide", &o.hide, "a folder or file student code must not read: another grading's reports or submissions\n"
                                   "(make grade-class hides its output, its submissions and the download they came in; the\n"
                                   "checkout's report folders, build/grade, check, class and progress, are always hidden)");
  cli.add_string("class-run", &o.class_run,
                 "on a GPU, a class's run (make grade-class gives each its token): the gradings with this token\n"
                 "keep the solution's times, measured by the first of them on this GPU, in the build folder\n"
                 "for the others (grading/core/kept_times.h; on the CPU backend they are kept without one)");
  cli.add_flag("side-by-side", &o.side_by_side,
               "on a GPU, beside other such gradings on the same GPU (make grade-class, JOBS above the GPUs):\n"
               "run the programs beside theirs but for the timed passes, and run again alone a run that ended\n"
               "as their programs could have made it end, out of GPU memory or time (grading/core/turns.h)");
  cli.add_string("trace-runs", &o.trace_runs, "append a line for each lab program run to this file: when it asked for its turn at\n"
                                            "the GPU, its wait, its run, its program and tool (grading/core/run_trace.h)");
  cli.add_string("counts", &o.counts, "on a GPU, where the technique check's counts come from: ncu (Nsight Compute, the\n"
                                     "GPU's counters; the default) or model (the CPU backend's counting build, with the same\n"
                                     "verdicts and no profiled run on the GPU; a file it cannot build or run is counted by ncu)");
  cli.add_string("targets", &o.targets_path, "the performance targets where there is no solution to time: per GPU model,\n"
                                            "the solution's share of its ceiling's speed (grading/core/targets.h)");
  cli.add_flag("record-estimates", &o.record_estimates, "on the CPU backend, with the solutions: write each part's estimated time\n"
                                                        "on the reference GPUs into grading/estimates.txt (make record-estimates)");
  cli.add_flag("record-targets", &o.record_targets, "on a GPU, with the solutions: measure each ceiling beside the solution's\n"
                                                    "time and write its share into the targets file (make bench)");
  cli.add_flag("strict", &o.strict, "exit 1 when the score is below full marks");
  cli.add_flag("quick", &o.quick, "build, correctness and safety only (make check): the checks to run after each edit;\n"
                                  "its score counts those checks' points only");
  cli.add_flag("no-namespaces", &o.no_namespaces, "grade as an unprivileged user on a machine without namespaces: student\n"
                                                  "code as the grader's own user, checkout writable, network reachable\n"
                                                  "(to test the fences that remain)");
  cli.parse(argc, argv);
  return o;
}

// Sets out_dir (and runs_dir): OUT, or a new folder of this run's own under build/grade (under
// build/check for a QUICK run). Only a run in those folders goes into make status's history.
void choose_report_folder(const std::string& out, bool quick) {
  if (!out.empty()) {
    out_dir = out;
    return;
  }
  runs_dir = quick ? "build/check" : "build/grade";
  const std::string run = grade::new_run_folder(runs_dir);
  if (run.empty()) cannot_run("cannot make a folder for the reports in " + runs_dir);
  out_dir = run;
}

grade::Rubric load_rubric(const std::string& path) {
  grade::Rubric rubric;
  std::string error;
  std::vector<lab::LabEntry> lab_table;
  if (!lab::read_labs("labs.txt", &lab_table, &error) || !grade::read_rubric(path, lab_table, &rubric, &error)) {
    cannot_run(error);
  }
  return rubric;
}

// The backend asked for, else the GPU when nvidia-smi sees one (DEVICE).
std::string choose_backend(std::string backend, const std::string& device) {
  if (backend.empty()) backend = device.empty() ? "cpu" : "gpu";
  if (backend != "gpu" && backend != "cpu") cannot_run("BACKEND must be gpu or cpu, not '" + backend + "'");
  if (backend == "gpu" && device.empty()) cannot_run("BACKEND=gpu, but nvidia-smi sees no GPU here; BACKEND=cpu grades on the CPU backend");
  return backend;
}

// The tools the builds on BACKEND need.
void require_tools(const std::string& backend) {
  for (const char* tool : {"make", "g++", "nm", "sha256sum"}) {
    if (!have_command(tool)) cannot_run(std::string("'") + tool + "' is not installed; make doctor says what is missing");
  }
  if (backend == "gpu" && !have_command("nvcc") && !have_command("/usr/local/cuda/bin/nvcc")) {
    cannot_run("nvcc is not installed; make doctor says what is missing");
  }
}

std::vector<const grade::LabRubric*> labs_to_grade(const grade::Rubric& rubric, const Options& o) {
  std::vector<const grade::LabRubric*> labs;
  std::string unknown;
  if (o.lab_filter.empty()) {
    for (const grade::LabRubric& l : rubric.labs) labs.push_back(&l);
  } else {
    labs = lab::labs_named(rubric.labs, o.lab_filter, &unknown);
  }
  if (labs.empty()) cannot_run("no lab '" + (o.lab_filter.empty() ? "" : unknown) + "' in " + o.rubric_path);
  if (o.step_filter.empty()) return labs;
  if (o.lab_filter.empty() || o.lab_filter.find(',') != std::string::npos) {
    cannot_run("STEP=" + o.step_filter + " needs one lab: LAB=NN");
  }
  if (labs.size() == 1) cannot_run("lab " + labs[0]->number + " has no steps; STEP=" + o.step_filter + " names none");
  std::string names;
  for (const grade::LabRubric* l : labs) names += (names.empty() ? "" : ", ") + std::to_string(l->step.number) +
                                                   (l->step.suffix.empty() ? "" : " (" + l->step.suffix + ")");
  labs.erase(std::remove_if(labs.begin(), labs.end(), [&](const grade::LabRubric* l) { return !l->step.named(o.step_filter); }),
             labs.end());
  if (labs.empty()) cannot_run("lab " + o.lab_filter + " has no step '" + o.step_filter + "': its steps are " + names);
  return labs;
}

// How many labs to grade at once: JOBS, else on a GPU one per two cores (a lab's runs keep its
// program and a checker or a tool busy, and wait for the GPU's turns much of the time: on the
// H100 box's 16 cores, all seven graded parts of the five labs start at once) and on the CPU
// backend one (each CPU-backend program runs a thread per core already).
int jobs_for(int64_t jobs, const std::string& backend, size_t labs) {
  if (jobs < 1) jobs = backend == "gpu" ? grade::usable_cores() / 2 : 1;
  return int(std::clamp<int64_t>(jobs, 1, int64_t(labs)));
}

// The scratch folder: in TMPDIR, else /tmp.
std::string make_scratch_folder() {
  std::error_code ec;
  const std::string tmp = std::filesystem::temp_directory_path(ec).string();
  const std::string work = grade::make_private_dir((ec ? "/tmp" : tmp) + "/grade-");
  if (work.empty()) cannot_run("cannot make a scratch folder in " + (ec ? "/tmp" : tmp));
  // Student processes reach the folders handed over to them inside it, and list nothing.
  chmod(work.c_str(), 0711);
  scratch_dir = work;
  return work;
}

// The fences around student processes, probed with the scratch and build folders in place.
grade::Sandbox sandbox_for(const grade::Context& ctx, bool namespaces) {
  try {
    return grade::probe_sandbox(std::filesystem::current_path().string(),
                                std::filesystem::weakly_canonical(ctx.build_dir).string(),
                                std::filesystem::weakly_canonical(ctx.work_dir).string(), namespaces);
  } catch (const grade::CannotGrade& e) {
    cannot_run(e.what());
  }
}

grade::Context make_context(const Options& o, const std::string& backend, const std::string& device,
                            const grade::Rubric& rubric) {
  grade::Context ctx;
  ctx.backend = backend;
  ctx.device = device;
  ctx.targets_path = o.targets_path;
  ctx.record_targets = o.record_targets;
  ctx.record_estimates = o.record_estimates;
  ctx.class_run = o.class_run;
  ctx.side_by_side = o.side_by_side;
  ctx.trace_runs = o.trace_runs;
  if (!o.trace_runs.empty() && !std::ofstream(o.trace_runs, std::ios::app)) cannot_run("cannot write " + o.trace_runs + " (--trace-runs)");
  std::string error;
  if (!grade::load_targets(o.targets_path, &ctx.targets, &error)) cannot_run(error);
  if (!grade::load_estimates(ctx.estimates_path, &ctx.estimates, &error)) cannot_run(error);
  ctx.src = o.src;
  ctx.seed = o.seed >= 0 ? uint64_t(o.seed) : std::random_device{}() % 1000000000;
  ctx.rubric = &rubric;
  ctx.have_solutions = is_dir("solutions");
  if (o.record_targets && (backend != "gpu" || !ctx.have_solutions || o.quick)) {
    cannot_run("--record-targets times the solutions on a GPU: it needs solutions/, BACKEND=gpu and a full grading run");
  }
  std::error_code ec;
  if (o.record_estimates && (backend != "cpu" || o.quick || !std::filesystem::equivalent(o.src, "solutions", ec))) {
    cannot_run("--record-estimates counts the solutions on the CPU backend: it needs --src solutions, BACKEND=cpu and a full grading run");
  }
  ctx.have_compute_sanitizer = have_command("compute-sanitizer");
  ctx.have_ncu = have_command("ncu");
  ctx.counts = grade::resolve_counts(o.counts, backend, "ncu", true, &error, &ctx.counts_note);
  if (!error.empty()) cannot_run(error);
  ctx.quick = o.quick;
  ctx.work_dir = make_scratch_folder();
  auto use_build_folder = [&](const std::string& folder) {
    ctx.build_dir = folder;
    std::error_code ec;
    if (!std::filesystem::create_directories(folder, ec) && ec) {
      cannot_run("cannot make the build folder " + folder + ": " + ec.message());
    }
    ctx.sandbox = sandbox_for(ctx, !o.no_namespaces);
    ctx.sandbox.memory_limit_mib = long(rubric.memory_run);
    for (const std::string& dir : o.hide) ctx.sandbox.hide.push_back(std::filesystem::absolute(dir).string());
  };
  use_build_folder(o.build_dir.empty() ? "build/grade-build" : o.build_dir);
  // Without namespaces student code can write the build folder, and a folder kept between runs
  // could hold what an earlier submission planted: this run builds afresh, in its scratch folder.
  if (o.build_dir.empty() && !ctx.sandbox.namespaces) use_build_folder(ctx.work_dir + "/build");
  ctx.include_roots = grade::system_include_roots();
  ctx.cxx_exports = grade::cxx_library_exports();
  if (ctx.cxx_exports.empty()) cannot_run("cannot read the names the C++ library exports (nm -D of g++'s libstdc++.so)");
  return ctx;
}

// Grades the labs, and then checks the grader's own files (trusted_files): a failure of the
// grader's own, or a file of its changed, is "could not grade" (exit 2), never the student's 0.
std::vector<grade::LabResult> grade_trusted(const grade::Context& ctx, const std::vector<const grade::LabRubric*>& labs,
                                            const std::string& rubric_path, int jobs) {
  const auto trusted = trusted_files(rubric_path);
  // The build folder's stamp says what the files hold, not where they are: a copy of the checkout
  // with the same grader and makefiles (a students' copy made by make release, the autograder
  // Gradescope unpacks) keeps the folder, which graders in both may share.
  std::string build_stamp;
  for (const auto& [path, sum] : trusted) {
    if (path != rubric_path) build_stamp += sum + "\n";
  }
  std::vector<grade::LabResult> results;
  try {
    results = grade_labs(ctx, labs, build_stamp, jobs);
  } catch (const std::exception& e) {
    tools::kill_descendants();
    cannot_run(std::string("the grader failed: ") + e.what());
  }
  tools::kill_descendants();
  for (const auto& [path, sum] : trusted) {
    if (grade::fingerprint(path) != sum) {
      cannot_run(path + " changed while student code ran: restore it (git checkout, make) before grading again");
    }
  }
  return results;
}

void print_run_header(const grade::Context& ctx, const std::string& device) {
  const std::string where = ctx.backend == "gpu" ? "the GPU (" + device + ")" : "the CPU backend (no GPU timings)";
  std::printf("%s: %s on %s, seed %llu (SEED=%llu reproduces the inputs)\n", command_name, ctx.src.c_str(), where.c_str(),
              (unsigned long long)ctx.seed, (unsigned long long)ctx.seed);
  std::printf("(sandbox: %s)\n", ctx.sandbox.describe().c_str());
  if (ctx.backend == "gpu" && !ctx.quick) std::printf("(technique counts: %s)\n", grade::counts_source(ctx).c_str());
  std::fflush(stdout);
}

// Adds each lab's result to the history of the folder graded, which make status reads
// (grading/core/progress.h). A run that cannot is still graded: it says so, and make status will
// not count it.
bool record_history(const grade::Context& ctx, const std::vector<grade::LabResult>& results) {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  std::vector<grade::HistoryLine> lines;
  for (const grade::LabResult& r : results) {
    lines.push_back(grade::history_line(r, date, ctx.quick ? "check" : "grade", ctx.backend, out_dir));
  }
  const std::string error = grade::append_history(grade::kProgressRoot, ctx.src, lines);
  if (!error.empty()) std::fprintf(stderr, "%s: this run is not in make status's history: %s\n", command_name, error.c_str());
  return error.empty();
}

// Writes the reports, removes the scratch folder and prints the score; true at full marks.
bool report(const grade::Context& ctx, const std::string& device, const std::vector<grade::LabResult>& results,
            double seconds) {
  grade::end_the_run_here();
  double score = 0, max_score = 0;
  for (const grade::LabResult& r : results) {
    score += r.points();
    max_score += r.max_points();
  }
  const grade::RunInfo run{ctx.src, ctx.backend, ctx.backend == "gpu" ? device : "the CPU backend", ctx.seed, seconds,
                           ctx.sandbox.describe(), ctx.backend == "gpu" && !ctx.quick ? grade::counts_source(ctx) : ""};
  const bool written = grade::write_reports(out_dir, run, results);
  tools::run_command({"rm", "-rf", ctx.work_dir});
  if (!written) cannot_run("could not write the reports into " + out_dir);
  if (!runs_dir.empty()) grade::point_latest(runs_dir, out_dir);
  const bool recorded = !runs_dir.empty() && record_history(ctx, results);
  std::printf("(reports: %s/results.json, %s/summary.txt%s)\n", out_dir.c_str(), out_dir.c_str(),
              ctx.quick ? "; make grade runs every check" : recorded ? "; make status shows your progress" : "");
  std::printf("Score: %s/%s%s\n", grade::points_text(score).c_str(), grade::points_text(max_score).c_str(),
              ctx.quick ? " (build, correctness and safety)" : "");
  return score >= max_score;
}

// Interrupted: what this run graded is not kept (a rerun grades again), and its report folder
// says so, or is gone when it was a run folder of its own.
void on_interrupt(int sig) {
  std::error_code ec;
  // Again while anything is left: a killed process's last file operation may land meanwhile.
  for (int tries = 0; !scratch_dir.empty() && std::filesystem::exists(scratch_dir, ec) && tries < 50; ++tries) {
    if (tries > 0) usleep(100000);
    std::filesystem::remove_all(scratch_dir, ec);
  }
  const std::string why = std::string("interrupted by SIG") + (sigabbrev_np(sig) ? sigabbrev_np(sig) : "?") +
                          ": nothing of this run was kept; run it again";
  if (!runs_dir.empty()) {
    std::filesystem::remove_all(out_dir, ec);
  } else if (!out_dir.empty()) {
    std::filesystem::create_directories(out_dir, ec);
    grade::write_could_not_grade(out_dir, why);
  }
  std::fprintf(stderr, "\n%s: %s\n", command_name, why.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const auto start = std::chrono::steady_clock::now();
  grade::protect_grader();
  grade::end_cleanly_on_signals(on_interrupt);
  // The builds the grader starts are makes of their own, not part of a calling make's jobs; and
  // `make grade SEED=N` exports SEED, which no student process may read.
  for (const char* name : {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "SEED"}) unsetenv(name);
  const Options o = parse_options(argc, argv);
  grade::limit_cores(int(o.cores));
  // A CPU-backend program runs a thread per online CPU unless told otherwise: the cores this
  // grader may use (its affinity, a container's CPU quota, --cores) rather than the host's.
  setenv("CPUSIM_THREADS", std::to_string(grade::usable_cores()).c_str(), /*overwrite=*/0);
  if (o.quick) command_name = "make check";
  choose_report_folder(o.out, o.quick);
  const grade::Rubric rubric = load_rubric(o.rubric_path);
  if (!is_dir(o.src)) cannot_run("no folder '" + o.src + "' to grade");
  const std::string device = gpu_name();
  const std::string backend = choose_backend(o.backend, device);
  require_tools(backend);
  const std::vector<const grade::LabRubric*> labs = labs_to_grade(rubric, o);

  const grade::Context ctx = make_context(o, backend, device, rubric);
  tools::run_command({"mkdir", "-p", out_dir});
  print_run_header(ctx, device);
  const std::vector<grade::LabResult> results =
      grade_trusted(ctx, labs, o.rubric_path, jobs_for(o.jobs, backend, labs.size()));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool full_marks = report(ctx, device, results, seconds);
  return o.strict && !full_marks ? lab::kExitWrong : lab::kExitPass;
}
