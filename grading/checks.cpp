#include "grading/checks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "common/compare.h"
#include "common/timing.h"
#include "grading/isolation.h"
#include "harness/protocol.h"

namespace grade {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string fmt(const char* format, double a, double b = 0, double c = 0) {
  char text[256];
  snprintf(text, sizeof text, format, a, b, c);
  return text;
}

// A fresh private folder for one run's cases.
std::string make_dir(const Context& ctx, const std::string& name) { return make_private_dir(ctx.work_dir + "/" + name + "-"); }

// Runs a built program, after checking that it is still the file that was built; then kills
// whatever it left behind. `wrapper` runs it under a tool (compute-sanitizer, ncu).
lab::RunResult run_program(const Context& ctx, const Program& program, const std::vector<std::string>& args,
                           const std::vector<std::string>& env = {}, const std::vector<std::string>& wrapper = {}) {
  if (fingerprint(program.path) != program.fingerprint) {
    lab::RunResult tampered;
    tampered.spawn_failed = true;
    tampered.output = program.path + " changed after it was built: something rewrote it during grading\n";
    return tampered;
  }
  std::vector<std::string> argv = wrapper;
  argv.push_back(program.path);
  argv.insert(argv.end(), args.begin(), args.end());
  lab::RunOptions options;
  options.timeout_s = ctx.rubric->timeout_run;
  options.env = env;
  options.max_output = 256 * 1024;
  lab::RunResult r = lab::run_command(argv, options);
  kill_leftovers();
  return r;
}

// The cases written into a folder for `--serve`, and the inputs the grader keeps.
struct Cases {
  std::string dir;
  std::vector<lab::ServeCase> cases;
  std::vector<std::vector<std::vector<float>>> inputs;  // per case, per input
};

// Inputs come from the run's seed and the case's position, so that SEED= reproduces them.
Cases write_cases(const Context& ctx, const std::string& name, const std::vector<lab::Case>& shapes,
                  bool timed = false) {
  Cases out;
  out.dir = make_dir(ctx, name);
  std::ofstream list(out.dir + "/cases.txt");
  for (size_t i = 0; i < shapes.size(); ++i) {
    lab::ServeCase c;
    c.id = int(i);
    c.shape = shapes[i];
    c.timed = timed;
    c.reps = timed ? lab::kTimedRuns : 0;
    c.warmup = timed ? lab::kWarmupRuns : 0;
    out.cases.push_back(c);
    out.inputs.push_back(lab::make_inputs(shapes[i], ctx.seed + i));
    const std::vector<std::vector<float>>& in = out.inputs.back();
    for (size_t j = 0; j < in.size(); ++j) {
      lab::write_floats(out.dir + "/" + std::to_string(i) + ".in" + std::to_string(j), in[j].data(), in[j].size());
    }
    list << lab::format_case_line(c) << "\n";
  }
  return out;
}

// The verdict on one case: what the program wrote back, compared with the reference.
struct CaseVerdict {
  bool pass = false;
  std::string summary;              // one line
  std::vector<std::string> report;  // the comparison report's lines, for the first failures
  std::vector<float> output;
  double median_ms = 0;
};

CaseVerdict evaluate(const Context& ctx, const Cases& cases, size_t i) {
  const lab::ServeCase& c = cases.cases[i];
  const std::string base = cases.dir + "/" + std::to_string(c.id);
  CaseVerdict v;
  const std::string name = c.shape.describe();
  if (!exists(base + ".result")) {
    v.summary = name + ": did not finish (the program stopped before this case, see below)";
    return v;
  }
  const lab::CaseResult r = lab::parse_result(read_text(base + ".result"));
  if (!r.launch_error.empty() || !r.run_error.empty()) {
    const std::string& e = r.launch_error.empty() ? r.run_error : r.launch_error;
    v.summary = name + ": the " + (r.launch_error.empty() ? "kernel failed while running" : "launch failed") + ": " + e +
                ": " + lab::error_hint(e);
    return v;
  }
  if (!r.finished || !lab::read_floats(base + ".out", &v.output, c.shape.output_count())) {
    v.summary = name + ": the program's result is missing or cut short";
    return v;
  }
  if (r.guard_before + r.guard_after > 0) {
    v.summary = name + ": the kernel wrote outside the output (" + std::to_string(r.guard_before) + " elements before it, " +
                std::to_string(r.guard_after) + " after it): a missing bounds guard?";
    return v;
  }
  if (!r.modified_inputs.empty()) {
    v.summary = name + ": the kernel changed its input " + r.modified_inputs + "which it must only read";
    return v;
  }
  const bool full = double(c.shape.output_count()) * double(c.shape.op == lab::Op::kMatmul ? c.shape.K : 1) <= double(1 << 28);
  const lab::CheckReport report = lab::check_output(c.shape, cases.inputs[i], v.output.data(), ctx.seed + i, full);
  const std::string text = lab::format_report(report, "  ");
  std::istringstream lines(text);
  std::string first;
  std::getline(lines, first);
  v.summary = name + ": " + first;
  for (std::string line; std::getline(lines, line);) v.report.push_back(line);
  v.pass = report.pass();
  v.median_ms = r.median_ms;
  return v;
}

// The lines of a tool's report worth showing: those naming the student's file first.
std::vector<std::string> report_lines(const std::string& output, const std::string& file,
                                      const std::vector<std::string>& markers, size_t max_lines = 10) {
  std::vector<std::string> picked;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line) && picked.size() < max_lines;) {
    bool wanted = contains(line, file);
    for (const std::string& m : markers) wanted |= contains(line, m);
    if (wanted) picked.push_back(line);
  }
  return quote_output([&] {
    std::string joined;
    for (const std::string& l : picked) joined += l + "\n";
    return joined;
  }(), max_lines);
}

std::string object_of(const std::string& program, const LabRubric& lab) {
  std::string obj = program;
  const size_t bin = obj.rfind("/bin/");
  obj.replace(bin, 5, "/obj/");
  return obj + "/" + lab.file.substr(0, lab.file.size() - 3) + ".o";
}

// Builds one lab program with the Makefile; the path it prints is its last line.
bool make_program(const Context& ctx, const std::string& src, const LabRubric& lab, const std::string& flavor,
                  Program* program, std::string* log) {
  lab::RunOptions options;
  options.timeout_s = ctx.rubric->timeout_build;
  const lab::RunResult r = lab::run_command(
      {"make", "--no-print-directory", "-s", "-j" + std::to_string(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))), "program", "LAB=" + lab.lab, "SRC=" + src, "FLAVOR=" + flavor,
       "BUILD=" + ctx.build_dir},
      options);
  *log = r.output;
  if (!r.exited(0)) {
    if (r.timed_out) *log += "\n(the build " + r.describe() + ")\n";
    return false;
  }
  std::string path = r.output;
  while (!path.empty() && path.back() == '\n') path.pop_back();
  path = path.substr(path.rfind('\n') + 1);
  program->path = path;
  program->object = object_of(path, lab);
  program->fingerprint = fingerprint(path);
  return !program->fingerprint.empty();
}

// Headers of libraries the labs must not use, as the preprocessor finds them (so that an
// #include hidden behind a macro is found too). The CPU backend's headers stand in for the
// toolkit's: they exist on every machine and name the same files.
// Returns what is used, e.g. "cuBLAS (cublas_v2.h)".
std::vector<std::string> forbidden_headers(const std::string& file) {
  const lab::RunResult r = lab::run_command(
      {"g++", "-M", "-MG", "-x", "c++", "-std=c++17", "-D__CUDACC__", "-I.", "-Icommon/cpu/include", file});
  std::vector<std::string> found;
  std::istringstream words(r.output);
  for (std::string w; words >> w;) {
    const size_t h = w.find(".h");
    if (h == std::string::npos) continue;
    w = w.substr(0, h + 2 + (w.compare(h, 4, ".hpp") == 0 ? 2 : 0) + (w.compare(h, 4, ".cuh") == 0 ? 1 : 0));
    const std::string base = w.substr(w.rfind('/') + 1);
    std::string library;
    if (base.compare(0, 8, "cublasLt") == 0) library = "cuBLASLt";
    else if (base.compare(0, 6, "cublas") == 0) library = "cuBLAS";
    else if (contains(w, "cub/")) library = "CUB";
    else if (contains(w, "thrust/")) library = "Thrust";
    if (library.empty()) continue;
    const std::string use = library + " (" + w.substr(w.find(library == "CUB" ? "cub/" : library == "Thrust" ? "thrust/" : base)) + ")";
    if (std::find(found.begin(), found.end(), use) == found.end()) found.push_back(use);
  }
  return found;
}

// Functions the student's object calls that the labs forbid: libraries, and loading them at
// run time.
std::vector<std::string> forbidden_symbols(const std::string& object) {
  const lab::RunResult r = lab::run_command({"nm", "-u", "-C", object});
  std::vector<std::string> found;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string kind, name;
    words >> kind >> name;
    if (name.compare(0, 6, "cublas") == 0 || name == "dlopen" || name == "dlsym" || name.compare(0, 6, "cudnn") == 0) {
      found.push_back(name);
    }
  }
  return found;
}

// One launch, from the CPU backend's launch log or from Nsight Compute.
struct Launch {
  std::string kernel;
  double threads = 0;
  double shared_bytes = 0;
};

std::vector<Launch> read_cpusim_launches(const std::string& path) {
  std::vector<Launch> launches;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    Launch l;
    std::istringstream fields(line);
    double block = 1, grid = 1;
    for (std::string f; fields >> f;) {
      const size_t eq = f.find('=');
      const std::string key = f.substr(0, eq), value = eq == std::string::npos ? "" : f.substr(eq + 1);
      auto product = [](const std::string& dims) {
        double p = 1;
        std::istringstream in(dims);
        for (std::string d; std::getline(in, d, ',');) p *= std::atof(d.c_str());
        return p;
      };
      if (key == "kernel") l.kernel = value;
      if (key == "grid") grid = product(value);
      if (key == "block") block = product(value);
      if (key == "dynamic_smem" || key == "static_smem") l.shared_bytes += std::atof(value.c_str());
      if (key == "status" && value != "cudaSuccess") l.kernel.clear();  // a launch that failed ran nothing
    }
    l.threads = grid * block;
    if (!l.kernel.empty()) launches.push_back(l);
  }
  return launches;
}

// Nsight Compute's CSV: one row per (launch, metric), quoted fields.
std::vector<Launch> read_ncu_launches(const std::string& path) {
  std::map<std::string, Launch> by_id;
  std::vector<std::string> order;
  std::ifstream in(path);
  std::vector<std::string> header;
  for (std::string line; std::getline(in, line);) {
    if (line.size() < 2 || line.front() != '"') continue;
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += ch;
      }
    }
    cells.push_back(cell);
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < cells.size() && i < header.size(); ++i) row[header[i]] = cells[i];
    const std::string id = row["ID"];
    if (!by_id.count(id)) order.push_back(id);
    Launch& l = by_id[id];
    l.kernel = row["Kernel Name"];
    std::string value = row["Metric Value"];
    value.erase(std::remove(value.begin(), value.end(), ','), value.end());
    const double v = std::atof(value.c_str());
    const std::string& metric = row["Metric Name"];
    if (metric == "launch__grid_size") l.threads = (l.threads > 0 ? l.threads : 1) * v;
    if (metric == "launch__block_size") l.threads = (l.threads > 0 ? l.threads : 1) * v;
    if (metric == "launch__shared_mem_per_block_static" || metric == "launch__shared_mem_per_block_dynamic") l.shared_bytes += v;
  }
  std::vector<Launch> launches;
  for (const std::string& id : order) launches.push_back(by_id[id]);
  return launches;
}

// A check worth its points only when it passes; a waived one is worth nothing either way.
CheckResult all_or_nothing(CheckResult c, Clock::time_point start) {
  c.points = c.status == Status::kPass ? c.max_points : 0;
  if (c.status == Status::kWaived) c.max_points = 0;
  c.seconds = seconds_since(start);
  return c;
}

}  // namespace

std::vector<std::string> quote_output(const std::string& text, size_t max_lines) {
  std::vector<std::string> lines;
  std::string line;
  size_t total = 0;
  auto flush = [&] {
    if (lines.size() < max_lines) lines.push_back("  | " + line.substr(0, 300));
    ++total;
    line.clear();
  };
  for (char ch : text) {
    if (ch == '\n') {
      flush();
    } else if (ch == '\t') {
      line += "  ";
    } else if (static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f) {
      line += ch;  // control characters (escape sequences) dropped
    }
  }
  if (!line.empty()) flush();
  if (total > lines.size()) lines.push_back("  | ... (" + std::to_string(total - lines.size()) + " more lines)");
  return lines;
}

CheckResult check_build(const Context& ctx, const LabRubric& lab, LabPrograms* programs) {
  const auto start = Clock::now();
  CheckResult c("build", Status::kFail, lab.points_build);
  const std::string file = ctx.src + "/" + lab.lab + "/" + lab.file;
  auto done = [&](Status s) {
    c.status = s;
    c.points = s == Status::kPass ? c.max_points : 0;
    c.seconds = seconds_since(start);
    return c;
  };
  if (!exists(file)) {
    c.details.push_back("no file " + file);
    return done(Status::kFail);
  }
  const std::vector<std::string> headers = forbidden_headers(file);
  if (!headers.empty()) {
    c.details.push_back("uses " + headers.front() + ": the labs must not use cuBLAS, cuBLASLt, CUB or Thrust;");
    c.details.push_back("the point of each lab is to write the kernel yourself");
    return done(Status::kFail);
  }
  std::string log;
  if (!make_program(ctx, ctx.src, lab, ctx.backend, &programs->main, &log)) {
    c.details.push_back("the compiler says:");
    const std::vector<std::string> lines = report_lines(log, lab.file, {"error", "Error"}, 20);
    const std::vector<std::string> shown = lines.empty() ? quote_output(log, 20) : lines;
    c.details.insert(c.details.end(), shown.begin(), shown.end());
    return done(Status::kFail);
  }
  const std::vector<std::string> symbols = forbidden_symbols(programs->main.object);
  if (!symbols.empty()) {
    c.details.push_back("calls " + symbols.front() + ": the labs must not use cuBLAS, cuBLASLt, CUB or Thrust,");
    c.details.push_back("nor load libraries at run time");
    return done(Status::kFail);
  }
  if (ctx.backend == "cpu") {
    for (auto [flavor, program] : {std::pair{"cpu-asan", &programs->asan}, std::pair{"cpu-tsan", &programs->tsan}}) {
      if (!make_program(ctx, ctx.src, lab, flavor, program, &log)) {
        c.details.push_back(std::string("the ") + flavor + " build failed:");
        const std::vector<std::string> shown = quote_output(log, 12);
        c.details.insert(c.details.end(), shown.begin(), shown.end());
        return done(Status::kFail);
      }
    }
  }
  if (ctx.backend == "gpu" && ctx.have_solutions && exists("solutions/" + lab.lab + "/" + lab.file)) {
    if (!make_program(ctx, "solutions", lab, "gpu", &programs->solution, &log)) programs->solution = Program();
  }
  return done(Status::kPass);
}

CheckResult check_correctness(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  const auto start = Clock::now();
  CheckResult c("correctness", Status::kFail, lab.points_correctness);
  const std::vector<lab::Case>& shapes = lab.shapes;
  // Two runs on the same inputs, in two thread orders on the CPU backend: a shape must pass
  // both, and a result that changes between them is the mark of a race. A first run that hit
  // the time limit would only hit it again: its results are judged alone.
  const Cases cases = write_cases(ctx, "correctness", shapes);
  const lab::RunResult run =
      run_program(ctx, programs.main, {"--serve", cases.dir}, {"CPUSIM_SCHEDULE=forward"});
  Cases again = cases;
  const lab::RunResult run_again = run.timed_out ? run : [&] {
    again.dir = make_dir(ctx, "correctness-again");
    lab::run_command({"sh", "-c", "cp \"$0\"/*.in* \"$0\"/cases.txt \"$1\"", cases.dir, again.dir});
    return run_program(ctx, programs.main, {"--serve", again.dir}, {"CPUSIM_SCHEDULE=reverse"});
  }();
  int passed = 0, passed_nonempty = 0, shown = 0;
  for (size_t i = 0; i < cases.cases.size(); ++i) {
    CaseVerdict v = evaluate(ctx, cases, i);
    const CaseVerdict w = evaluate(ctx, again, i);
    const bool race = v.pass != w.pass || (!v.pass && !v.output.empty() && !w.output.empty() && v.output != w.output &&
                                           v.output.size() == w.output.size());
    if (v.pass && !w.pass) v = w;  // show the failing run
    v.pass = v.pass && w.pass;
    if (race) {
      v.report.push_back(std::string("  the result differs between two runs on the same inputs") +
                         (ctx.backend == "cpu" ? " (thread orders forward and reverse)" : "") +
                         ": a race, such as a missing __syncthreads or blocks writing the same element");
    }
    passed += v.pass;
    passed_nonempty += v.pass && cases.cases[i].shape.output_count() > 0;
    if (v.pass) continue;
    if (shown++ < 3) {
      c.details.push_back(v.summary);
      c.details.insert(c.details.end(), v.report.begin(), v.report.end());
    }
  }
  const int failed = int(cases.cases.size()) - passed;
  if (shown > 3) c.details.push_back("... and " + std::to_string(shown - 3) + " more shapes fail");
  for (const lab::RunResult* r : {&run, &run_again}) {
    if (r->exited(0)) continue;
    c.details.push_back("the program " + r->describe() + "; its last output:");
    const std::vector<std::string> tail = quote_output(r->output, 12);
    c.details.insert(c.details.end(), tail.begin(), tail.end());
    break;
  }
  c.details.insert(c.details.begin(), std::to_string(passed) + " of " + std::to_string(cases.cases.size()) +
                                          " shapes correct, seed " + std::to_string(ctx.seed));
  c.status = failed == 0 && run.exited(0) && run_again.exited(0) ? Status::kPass : Status::kFail;
  c.points = c.max_points * passed / double(cases.cases.size());
  // A launcher that does nothing passes the size-0 cases: they count once something works.
  if (passed_nonempty == 0) {
    c.points = 0;
    if (passed > 0) c.details.push_back("(the shapes with no output elements pass, but count only once another shape does)");
  }
  if (c.status == Status::kPass) c.details.clear();
  c.seconds = seconds_since(start);
  return c;
}

CheckResult check_safety(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  const auto start = Clock::now();
  CheckResult c("safety", Status::kPass, lab.points_safety);
  auto fail = [&](const std::string& what, const std::vector<std::string>& lines) {
    c.status = Status::kFail;
    c.details.push_back(what);
    c.details.insert(c.details.end(), lines.begin(), lines.end());
  };
  if (ctx.backend == "gpu") {
    if (!ctx.have_compute_sanitizer) {
      c.status = Status::kWaived;
      c.details.push_back("waived: compute-sanitizer is not installed");
    }
    for (const char* tool : {"memcheck", "racecheck", "synccheck"}) {
      if (c.status != Status::kPass) break;
      const Cases cases = write_cases(ctx, tool, {lab.safety_shape});
      const lab::RunResult r = run_program(ctx, programs.main, {"--serve", cases.dir}, {},
                                           {"compute-sanitizer", "--tool", tool, "--error-exitcode", "99", "--print-limit", "5"});
      if (r.spawn_failed) {
        fail("the program could not run: " + first_line(r.output), {});
      } else if (r.exited(99)) {
        fail(std::string("compute-sanitizer --tool ") + tool + " on " + lab.safety_shape.describe() + " found:",
             report_lines(r.output, lab.file, {"=========     at", "========= Error", "========= Invalid", "========= Barrier", "Race reported"}));
      } else if (!r.exited(0)) {
        fail(std::string("under compute-sanitizer --tool ") + tool + " the program " + r.describe() + ":", quote_output(r.output, 10));
      }
    }
  } else {
    // Every thread schedule must give a correct result: a race shows as one that does not.
    int passing = 0;
    std::string failing;
    const std::vector<std::string> schedules = {"forward", "reverse", "random:" + std::to_string(ctx.seed % 1000)};
    for (const std::string& schedule : schedules) {
      const Cases cases = write_cases(ctx, "schedule", {lab.safety_shape});
      const lab::RunResult r = run_program(ctx, programs.main, {"--serve", cases.dir}, {"CPUSIM_SCHEDULE=" + schedule});
      const CaseVerdict v = evaluate(ctx, cases, 0);
      if (v.pass && r.exited(0)) {
        ++passing;
      } else if (failing.empty()) {
        failing = schedule + ": " + v.summary;
      }
    }
    if (passing > 0 && passing < 3) {
      fail("the result depends on the order threads run in (CPUSIM_SCHEDULE), so there is a race: a missing "
           "__syncthreads, or threads writing the same element without atomics",
           {"  " + failing});
    } else if (passing == 0) {
      fail("wrong under every thread schedule: " + failing, {});
    }
    // The sanitizer builds: a finding, a failed run or a wrong result each fail the check.
    auto sanitized = [&](const std::string& tool, const Program& program, const std::vector<std::string>& env,
                         const std::vector<std::string>& markers) {
      const Cases cases = write_cases(ctx, tool, {lab.safety_shape});
      lab::RunResult r = run_program(ctx, program, {"--serve", cases.dir}, env);
      if (contains(r.output, "ThreadSanitizer: unexpected memory mapping")) {
        // High-entropy address randomization breaks ThreadSanitizer's layout: run without it.
        r = run_program(ctx, program, {"--serve", cases.dir}, env, {"setarch", "-R"});
      }
      if (r.spawn_failed) {
        fail("the " + tool + " build could not run: " + first_line(r.output), {});
      } else if (contains(r.output, tool) || !r.exited(0)) {
        fail(tool + " on " + lab.safety_shape.describe() + " found:", report_lines(r.output, lab.file, markers));
      } else if (const CaseVerdict v = evaluate(ctx, cases, 0); !v.pass) {
        fail("the " + tool + " build did not compute a correct result: " + v.summary, {});
      }
    };
    sanitized("AddressSanitizer", programs.asan, {"ASAN_OPTIONS=detect_leaks=0:halt_on_error=1"},
              {"ERROR: AddressSanitizer", "READ of size", "WRITE of size", "cpusim:"});
    sanitized("ThreadSanitizer", programs.tsan, {}, {"WARNING: ThreadSanitizer", "cpusim:"});
  }
  return all_or_nothing(c, start);
}

CheckResult check_technique(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  const auto start = Clock::now();
  CheckResult c("technique", Status::kPass, lab.points_technique);
  const Cases cases = write_cases(ctx, "technique", {lab.technique_shape});
  std::vector<Launch> launches;
  if (ctx.backend == "cpu") {
    const std::string log = cases.dir + "/launches.txt";
    run_program(ctx, programs.main, {"--serve", cases.dir}, {"CPUSIM_LAUNCH_LOG=" + log});
    launches = read_cpusim_launches(log);
  } else if (ctx.have_ncu) {
    const std::string csv = cases.dir + "/ncu.csv";
    run_program(ctx, programs.main, {"--serve", cases.dir}, {},
                    {"ncu", "--csv", "--print-units", "base", "--log-file", csv, "--metrics",
                     "launch__grid_size,launch__block_size,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic"});
    launches = read_ncu_launches(csv);
  } else {
    c.status = Status::kWaived;
    c.details.push_back("waived: Nsight Compute (ncu), which reports the kernels' launches, is not installed");
  }
  if (c.status == Status::kPass) {
    const CaseVerdict v = evaluate(ctx, cases, 0);
    // All launches' threads together: splitting the work over several launches changes nothing.
    double threads = 0, most_shared = 0;
    for (const Launch& l : launches) {
      threads += l.threads;
      most_shared = std::max(most_shared, l.shared_bytes);
    }
    if (!v.pass) {
      c.status = Status::kFail;
      c.details.push_back("the result on " + lab.technique_shape.describe() + " is wrong, so the technique cannot count");
    } else if (launches.empty()) {
      c.status = Status::kFail;
      c.details.push_back("no kernel was launched: the result was computed some other way (on the host?)");
    } else if (lab.technique == "shared_memory" && most_shared <= 0) {
      c.status = Status::kFail;
      c.details.push_back("no kernel used shared memory: this lab is about staging data in __shared__");
    } else if (lab.technique == "outputs_per_thread") {
      const double per_thread = double(lab.technique_shape.output_count()) / threads;
      if (per_thread < lab.outputs_per_thread) {
        c.status = Status::kFail;
        c.details.push_back(fmt("your launches ran %.0f threads in all for %.0f outputs, %.2f per thread;", threads,
                                double(lab.technique_shape.output_count()), per_thread));
        c.details.push_back(fmt("this lab is about computing at least %.0f outputs per thread in registers", lab.outputs_per_thread));
      }
    }
  }
  return all_or_nothing(c, start);
}

CheckResult check_performance(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  const auto start = Clock::now();
  CheckResult c("performance", Status::kWaived, 0);
  auto finish = [&] {
    c.seconds = seconds_since(start);
    return c;
  };
  if (ctx.backend != "gpu") {
    c.details.push_back("waived on the CPU backend: its times say nothing about a GPU");
    return finish();
  }
  if (programs.solution.path.empty()) {
    c.details.push_back("waived: no solution here to compare with");
    return finish();
  }
  c.max_points = lab.points_performance;
  // The solution first: no student code has run against its folder.
  const Cases ref_cases = write_cases(ctx, "performance-solution", {lab.performance_shape}, true);
  run_program(ctx, programs.solution, {"--serve", ref_cases.dir});
  const CaseVerdict ref = evaluate(ctx, ref_cases, 0);
  const Cases cases = write_cases(ctx, "performance", {lab.performance_shape}, true);
  const lab::RunResult r = run_program(ctx, programs.main, {"--serve", cases.dir});
  const CaseVerdict v = evaluate(ctx, cases, 0);
  if (!ref.pass || ref.median_ms <= 0) {
    c.status = Status::kWaived;
    c.max_points = 0;
    c.details.push_back("waived: the solution did not run here (" + ref.summary + ")");
    return finish();
  }
  if (!v.pass || v.median_ms <= 0) {
    c.status = Status::kFail;
    c.details.push_back("the timed run's result is wrong: " + v.summary);
    if (!r.exited(0)) c.details.push_back("the program " + r.describe());
    return finish();
  }
  const double share = ref.median_ms / v.median_ms;
  c.points = c.max_points * std::min(1.0, share / lab.full_at);
  c.status = share >= lab.full_at ? Status::kPass : Status::kFail;
  c.details.push_back(fmt("your kernel %.3f ms, the solution %.3f ms (medians of 20 runs): %.0f%% of its speed", v.median_ms,
                          ref.median_ms, 100 * share) +
                      fmt(", full marks from %.0f%%", 100 * lab.full_at));
  return finish();
}

}  // namespace grade
