#include "grading/checks.h"

#include <cxxabi.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <optional>
#include <random>
#include <sstream>
#include <thread>
#include <utility>

#include "common/compare.h"
#include "common/timing.h"
#include "grading/case_runs.h"
#include "grading/isolation.h"
#include "grading/report.h"
#include "grading/submission.h"
#include "grading/targets.h"
#include "grading/utf8.h"
#include "common/protocol.h"
#include "common/text.h"

namespace grade {

using text::contains;
using text::joined;

namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

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
  return quote_output(joined(picked), max_lines);
}

std::string object_of(const std::string& program, const LabRubric& lab) {
  std::string obj = program;
  const size_t bin = obj.rfind("/bin/");
  obj.replace(bin, 5, "/obj/");
  return obj + "/" + lab.stem + ".o";
}

}  // namespace

lab::RunResult run_make(const Context& ctx, const std::vector<std::string>& args, const std::vector<std::string>* own) {
  std::vector<std::string> argv = {"make", "--no-print-directory", "-s", "-j" + std::to_string(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))),
                                   "BUILD=" + ctx.build_dir};
  argv.insert(argv.end(), args.begin(), args.end());
  lab::RunOptions options;
  options.timeout_s = ctx.rubric->timeout_build;
  lab::RunResult r = own ? ctx.sandbox.run(ctx.sandbox.wrap_build(argv, options.timeout_s, *own), options) : lab::run_command(argv, options);
  if (r.timed_out || r.signal != 0 || r.spawn_failed) r.output += "\n(make " + r.describe() + ")\n";
  return r;
}

namespace {

std::vector<std::string> last_lines(const std::string& output, size_t n) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  lines.erase(lines.begin(), lines.end() - std::min(n, lines.size()));
  return lines;
}

// Builds one lab program, from folder SRC in FLAVOR, into *PROGRAM (with *LOG what make said).
bool make_program(const Context& ctx, const std::string& src, const LabRubric& lab, const std::string& flavor,
                  Program* program, std::string* log, const std::vector<std::string>* own = nullptr) {
  const lab::RunResult r = run_make(ctx, {"program", "LAB=" + lab.folder, "SRC=" + src, "FLAVOR=" + flavor}, own);
  *log = r.output;
  if (!r.exited(0)) return false;
  const std::string path = last_lines(r.output, 1).front();
  // Absolute: student programs run in working folders of their own.
  program->path = std::filesystem::absolute(path).string();
  program->object = object_of(path, lab);
  program->fingerprint = fingerprint(path);
  return !program->fingerprint.empty();
}

// Builds what the programs of lab LAB from folder SRC link besides the student's object, in
// each of FLAVORS, as the grader: the student's build, fenced, cannot write them. Returns the
// programs' paths, absolute.
std::vector<std::string> make_program_parts(const Context& ctx, const std::string& src, const LabRubric& lab,
                                            const std::vector<std::string>& flavors) {
  std::string list;
  for (const std::string& f : flavors) list += (list.empty() ? "" : " ") + f;
  const lab::RunResult r = run_make(ctx, {"program-parts", "LAB=" + lab.folder, "SRC=" + src, "PART_FLAVORS=" + list});
  if (!r.exited(0)) {
    throw CannotGrade("the harness of lab " + lab.folder + " does not build here; make said:\n" + joined(quote_output(r.output, 15)));
  }
  std::vector<std::string> paths = last_lines(r.output, flavors.size());
  for (std::string& path : paths) path = std::filesystem::absolute(path).string();
  return paths;
}

// Headers of libraries the labs must not use, as the preprocessor finds them (so that an
// #include hidden behind a macro is found too). The CPU backend's headers stand in for the
// toolkit's: they exist on every machine and name the same files.
// Returns what is used, e.g. "cuBLAS (cublas_v2.h)".
// Runs inside the fences: the preprocessor reads what the file names (/dev/zero, say).
std::vector<std::string> forbidden_headers(const Context& ctx, const std::string& file, const std::string& public_dir) {
  lab::RunOptions options;
  options.timeout_s = ctx.rubric->timeout_build;
  const std::string copies = std::filesystem::path(file).parent_path().parent_path().string();
  const lab::RunResult r = ctx.sandbox.run(
      ctx.sandbox.wrap_build({"g++", "-M", "-MG", "-x", "c++", "-std=c++17", "-D__CUDACC__", "-I" + public_dir, "-Icpusim/include", file},
                             options.timeout_s, {copies}),
      options);
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

// The first two words of each line that nm prints when run with ARGS: a symbol's type and name
// with -u, its name and type with -P.
std::vector<std::pair<std::string, std::string>> nm_words(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"nm"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::istringstream lines(lab::run_command(argv).output);
  std::vector<std::pair<std::string, std::string>> rows;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first, second;
    words >> first >> second;
    rows.emplace_back(first, second);
  }
  return rows;
}

// Functions the student's object calls that the labs forbid: libraries, and loading them at
// run time.
std::vector<std::string> forbidden_symbols(const std::string& object) {
  std::vector<std::string> found;
  for (const auto& [type, name] : nm_words({"-u", "-C", object})) {
    if (name.compare(0, 6, "cublas") == 0 || name == "dlopen" || name == "dlsym" || name.compare(0, 6, "cudnn") == 0) {
      found.push_back(name);
    }
  }
  return found;
}

// What a name means to a reader: its demangled C++ name, or itself.
std::string demangled(const std::string& name) {
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  const std::string out = status == 0 && text != nullptr ? text : name;
  std::free(text);
  return out;
}

// Names the student's object defines that could stand in for another part of the program: the
// lab program is one link, and a definition of getrandom, clock_gettime or cudaEventElapsedTime
// (which the harness's timing and sampling call), or of a function of the harness, the CPU
// backend or the shared C++ library (CXX_EXPORTS), would replace it. A lab file defines its
// launcher and its kernels, mangled C++ names; the public headers add two inline functions of
// namespace lab, and the C++ library's headers weak copies of what they inline (templates and
// their members, some of which the shared library exports too, such as std::ctype<char>'s). So:
// no function with a C name, no member of the C++ library outside a template, no strong
// definition of a name the shared library exports, nothing of namespaces lab and cpusim.
std::vector<std::string> interposed_symbols(const std::string& object, const std::set<std::string>& cxx_exports) {
  std::vector<std::string> found;
  for (const auto& [name, type] : nm_words({"-g", "--defined-only", "-P", object})) {
    if (name.empty() || name == "DW.ref.__gxx_personality_v0") continue;
    // Functions (T, W, i): an unmangled one is a C function's name. A variable at file scope is
    // unmangled in C++ too (a __device__ array of partial sums), and stands in for nothing the
    // harness reads.
    const bool function = type == "T" || type == "W" || type == "i";
    const std::string cxx = demangled(name);
    const std::string scope = cxx.substr(0, cxx.find('('));
    const bool library = scope.rfind("std::", 0) == 0 || scope.rfind("__gnu_cxx::", 0) == 0 ||
                         scope.rfind("__cxxabiv1::", 0) == 0;
    const bool ours = scope.rfind("lab::", 0) == 0 || scope.rfind("cpusim::", 0) == 0;
    const bool from_public_headers = scope == "lab::cuda_fail" || scope == "lab::is_environment_error";
    if ((function && name.rfind("_Z", 0) != 0) || (library && scope.find('<') == std::string::npos) ||
        (type == "T" && cxx_exports.count(name) > 0) || (ours && !from_public_headers)) {
      found.push_back(cxx);
    }
  }
  return found;
}

}  // namespace

// A check worth its points only when it passes; a waived one is worth nothing either way.
CheckResult all_or_nothing(CheckResult c, Clock::time_point start) {
  c.points = c.status == Status::kPass ? c.max_points : 0;
  if (c.status == Status::kWaived) c.max_points = 0;
  c.seconds = seconds_since(start);
  return c;
}

std::vector<std::string> quote_output(const std::string& text, size_t max_lines) {
  std::vector<std::string> lines;
  std::string line;
  size_t total = 0;
  auto flush = [&] {
    if (lines.size() < max_lines) lines.push_back("  | " + utf8_prefix(line, 300));
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

namespace {

// The student's file as the builds see it: a private copy of the one file, in a folder named
// after its content (grading/submission.h).
struct StudentCopy {
  std::string file;        // as handed in
  std::string copies;      // the folder of copies, the SRC of the student's builds
  std::string copy;        // the lab file's copy
  std::string public_dir;  // the lab's headers, the only ones of the checkout a build may read
  std::vector<std::string> include_roots;  // where a build may read headers: the compilers' and the lab's
};

StudentCopy copy_student_file(const Context& ctx, const LabRubric& lab, const std::string& file) {
  StudentCopy s;
  s.file = file;
  std::string error;
  s.copies = copy_by_content(file, ctx.build_dir + "/submission", lab.folder + "/" + lab.file(), &error);
  if (s.copies.empty()) throw CannotGrade(error);
  s.copy = s.copies + "/" + lab.folder + "/" + lab.file();
  s.public_dir = ctx.build_dir + "/public";
  s.include_roots = ctx.include_roots;
  s.include_roots.push_back(std::filesystem::weakly_canonical(s.public_dir).string());
  return s;
}

// The solution's program, when this checkout has it: its times set the time limits, on a GPU
// its speed is the performance target, and a build of it that fails (a full disk, a broken
// toolkit) is this machine's failure, which must not pass for the student's.
void build_solution(const Context& ctx, const LabRubric& lab, Program* solution) {
  if (!ctx.have_solutions || !exists("solutions/" + lab.folder + "/" + lab.file())) return;
  std::string log;
  if (!make_program(ctx, "solutions", lab, ctx.backend, solution, &log)) {
    throw CannotGrade("the solution of lab " + lab.folder + " does not build here; make said:\n" + joined(quote_output(log, 15)));
  }
  solution->solution = true;
}

// The flavors the checks need, the lab program's first: on the CPU backend, the sanitizers'
// builds (safety) and the build that counts memory accesses (technique of any of the lab's
// steps; its counts).
std::vector<std::pair<std::string, Program*>> flavors_needed(const Context& ctx, const LabRubric& lab, LabPrograms* programs) {
  std::vector<std::pair<std::string, Program*>> flavors = {{ctx.backend, &programs->main}};
  if (ctx.backend == "cpu") {
    flavors.insert(flavors.end(), {{"cpu-asan", &programs->asan}, {"cpu-tsan", &programs->tsan}});
    const auto counted = [&](const LabRubric& l) { return l.folder == lab.folder && l.technique != "none"; };
    const std::vector<LabRubric>& all = ctx.rubric->labs;
    if (std::any_of(all.begin(), all.end(), counted) && !ctx.quick) flavors.push_back({"cpu-count", &programs->count});
  }
  return flavors;
}

// How one fenced build of the student's file went.
struct Built {
  bool ok = true;
  std::string log;                  // make's, when the build failed
  std::vector<std::string> refusal;  // why a build that succeeded counts for nothing
};

// Builds the student's file in FLAVOR into *PROGRAM (its parts at PATH, built already), fenced,
// then checks what it read: a file outside the lab's headers and the compilers' own (the
// solution, by any path or macro) fails the build.
Built fenced_build(const Context& ctx, const LabRubric& lab, const StudentCopy& student, const std::string& flavor,
                   Program* program, const std::string& path) {
  Built b;
  const std::string program_dir = std::filesystem::path(path).parent_path().string();
  const std::string object_dir = std::filesystem::path(object_of(path, lab)).parent_path().string();
  for (const std::string& dir : {program_dir, object_dir}) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw CannotGrade("cannot make " + dir + ": " + ec.message());
    ctx.sandbox.hand_over(dir);
  }
  const std::vector<std::string> own = {student.copies, program_dir, object_dir};
  if (!make_program(ctx, student.copies, lab, flavor, program, &b.log, &own)) {
    if (contains(b.log, "No space left on device")) throw CannotGrade("the disk is full; make said:\n" + joined(quote_output(b.log, 15)));
    for (size_t at; (at = b.log.find(student.copies)) != std::string::npos;) b.log.replace(at, student.copies.size(), ctx.src);
    b.ok = false;
    return b;
  }
  // make compiles a copy of the private copy, beside the object (stem.cu, mk/labs.mk), whose
  // #line names the private copy: nvcc lists both in stem.d, what that compile read.
  const std::string stem = program->object.substr(0, program->object.size() - 2);
  const std::string foreign = foreign_include(stem + ".d", {stem + ".cu", student.copy}, student.include_roots);
  if (foreign.empty()) return b;
  b.refusal.push_back("the build read a file that is none of the lab's headers (" + public_headers_text(student.public_dir) +
                      ") nor a system header:");
  for (const std::string& text : {foreign, include_line(student.copy, foreign)}) {
    const std::vector<std::string> line = quote_output(text, 1);
    b.refusal.insert(b.refusal.end(), line.begin(), line.end());
  }
  b.refusal.push_back("a lab is graded from its own file alone, and this one scores 0");
  b.ok = false;
  return b;
}

// What a failed build of the lab program tells its author: the usual causes, when the log shows
// one, then the compiler's lines about the file.
std::vector<std::string> failed_build_report(const LabRubric& lab, const StudentCopy& student, const std::string& log) {
  std::vector<std::string> report;
  // An empty or cut-off file compiles, and then the link cannot find a launcher.
  for (const lab::LabStep& step : lab.step_list()) {
    if (contains(log, "undefined reference to `" + step.launcher + "(")) {
      report.push_back(student.file + " does not define " + step.launcher +
                       "(...), a launcher the lab program calls (its declaration: harness/launchers.h)");
    }
  }
  // A file the build may not read is not there for it (Sandbox::wrap_build).
  if (contains(log, "No such file or directory") || contains(log, "file not found")) {
    report.push_back("a lab file may read the lab's headers (" + public_headers_text(student.public_dir) +
                     ") and the compilers' own, nothing else");
  }
  report.push_back("the compiler says:");
  const std::vector<std::string> lines = report_lines(log, lab.file(), {"error", "Error", "out of memory"}, 20);
  const std::vector<std::string> shown = lines.empty() ? quote_output(log, 20) : lines;
  report.insert(report.end(), shown.begin(), shown.end());
  return report;
}

// What the lab program's object may not contain: definitions that would replace another part of
// the program, calls the labs forbid.
std::vector<std::string> forbidden_in_object(const Context& ctx, const std::string& object) {
  if (const std::vector<std::string> names = interposed_symbols(object, ctx.cxx_exports); !names.empty()) {
    return {"defines " + names.front() + ", which another part of the lab program (the C or C++ library,",
            "the CUDA runtime, the harness) defines too, and would replace it: a lab file defines its launcher and",
            "kernels; put helpers in an anonymous namespace or make them static"};
  }
  if (const std::vector<std::string> symbols = forbidden_symbols(object); !symbols.empty()) {
    return {"calls " + symbols.front() + ": the labs must not use cuBLAS, cuBLASLt, CUB or Thrust,",
            "nor load libraries at run time"};
  }
  return {};
}

// Builds the lab's programs from the student's file; why the build fails, or nothing when it
// passes.
std::vector<std::string> build_failure(const Context& ctx, const LabRubric& lab, LabPrograms* programs) {
  const std::string file = ctx.src + "/" + lab.folder + "/" + lab.file();
  if (const std::string why = not_a_plain_file(ctx.src + "/" + lab.folder, file); !why.empty()) return {why};
  const StudentCopy student = copy_student_file(ctx, lab, file);
  if (const std::vector<std::string> headers = forbidden_headers(ctx, student.copy, student.public_dir); !headers.empty()) {
    return {"uses " + headers.front() + ": the labs must not use cuBLAS, cuBLASLt, CUB or Thrust;",
            "the point of each lab is to write the kernel yourself"};
  }
  build_solution(ctx, lab, &programs->solution);
  const std::vector<std::pair<std::string, Program*>> flavors = flavors_needed(ctx, lab, programs);
  std::vector<std::string> names;
  for (const auto& f : flavors) names.push_back(f.first);
  const std::vector<std::string> paths = make_program_parts(ctx, student.copies, lab, names);
  // The flavors' builds run at once (each compiles the one file and links: on the CPU backend
  // four compiles, most of a lab's build), and are judged in order: the main build's failure
  // is the one reported, as if the others had not run.
  std::vector<std::future<Built>> builds;
  for (size_t i = 0; i < flavors.size(); ++i) {
    flavors[i].second->sanitizer = i > 0 && flavors[i].first != "cpu-count";
    builds.push_back(std::async(std::launch::async, [&, i] {
      return fenced_build(ctx, lab, student, flavors[i].first, flavors[i].second, paths[i]);
    }));
  }
  std::vector<Built> built;
  for (std::future<Built>& b : builds) built.push_back(b.get());
  if (const Built& b = built[0]; !b.ok) return b.refusal.empty() ? failed_build_report(lab, student, b.log) : b.refusal;
  if (std::vector<std::string> why = forbidden_in_object(ctx, programs->main.object); !why.empty()) return why;
  for (size_t i = 1; i < flavors.size(); ++i) {
    if (const Built& b = built[i]; !b.ok) {
      if (!b.refusal.empty()) return b.refusal;
      std::vector<std::string> why = {"the " + flavors[i].first + " build failed:"};
      const std::vector<std::string> shown = quote_output(b.log, 12);
      why.insert(why.end(), shown.begin(), shown.end());
      return why;
    }
  }
  return {};
}

}  // namespace

bool build_shared(const Context& ctx, const std::vector<const LabRubric*>& labs) {
  std::string folders, solved, flavors;
  const auto add = [](std::string* list, const std::string& word) {
    if ((" " + *list + " ").find(" " + word + " ") == std::string::npos) *list += (list->empty() ? "" : " ") + word;
  };
  for (const LabRubric* lab : labs) {
    add(&folders, lab->folder);
    if (ctx.have_solutions && exists("solutions/" + lab->folder + "/" + lab->file())) add(&solved, lab->folder);
    LabPrograms programs;
    for (const auto& f : flavors_needed(ctx, *lab, &programs)) add(&flavors, f.first);
  }
  bool built = run_make(ctx, {"program-parts", "LAB=" + folders, "SRC=labs", "PART_FLAVORS=" + flavors}).exited(0);
  if (built && !solved.empty()) built = run_make(ctx, {"program", "LAB=" + solved, "SRC=solutions", "FLAVOR=" + ctx.backend}).exited(0);
  return built;
}

CheckResult check_build(const Context& ctx, const LabRubric& lab, LabPrograms* programs) {
  const auto start = Clock::now();
  CheckResult c("build", Status::kFail, lab.points_build);
  c.details = build_failure(ctx, lab, programs);
  c.status = c.details.empty() ? Status::kPass : Status::kFail;
  return all_or_nothing(c, start);
}

namespace {

// What a failing case's verdict becomes when a run with the output zeroed first passes: the
// kernel read its output before writing it (C += ..., or beta * C, which is NaN for NaN C
// even when beta is 0). A dot product's blocks are meant to add into *result: there the
// mistake is that nobody set it to 0 first.
std::string reads_output_hint(lab::Op op) {
  if (op == lab::Op::kDot) {
    return "correct when *result starts as 0, wrong when it starts as NaN: the blocks add into *result, "
           "which nobody set to 0 first. Set it in the launcher (cudaMemsetAsync) before the kernel runs.";
  }
  return "correct when the output starts as zeros, wrong when it starts as NaN: the kernel reads the output "
         "before writing it (C += ..., or beta * C). Write each element once, from a sum kept in a register.";
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The shapes that count and their time limits. The solution runs first, on the same inputs: its
// times set the limits, and a shape it cannot run here (too large for this device) is left out
// rather than held against anyone.
struct Counted {
  std::vector<size_t> shapes;      // indices into the cases
  std::vector<std::string> notes;  // the shapes left out, and why
  Limits limits;
};

// On the CPU backend the solution's run of the correctness shapes costs seconds a lab (lab 02's
// shapes, 2,100,000 rows among them, about 16 s: docs/results/grade-rerun-kept-cpu.log) and tells
// the same for any seed: how long each shape takes it on this machine. A run in which it
// computed every shape is kept in the build folder, named
// after its program, the step, the shapes, the machine and the cores it may use, for the
// gradings after it (a rerun, a class's other students); a run that left a shape out is not
// kept, so a passing failure of the machine is measured again next time. Only where namespaces
// keep the build folder read-only to student code: elsewhere a student's program could write the
// times the next grading reads.
std::string solution_times_path(const Context& ctx, const LabRubric& lab, const Program& solution) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  cpu_set_t cpus;
  const int usable = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 0;
  const char* threads = std::getenv("CPUSIM_THREADS");
  std::string key = solution.fingerprint + "\n" + solution.step + "\n" + host + "\n" + std::to_string(usable) + " " +
                    std::to_string(std::thread::hardware_concurrency()) + " " + (threads != nullptr ? threads : "-") + "\n";
  for (const lab::Case& shape : lab.shapes) key += shape.describe() + "\n";
  char name[32];
  std::snprintf(name, sizeof name, "%016zx", std::hash<std::string>{}(key));
  return ctx.build_dir + "/solution-times/" + name;
}

// The per-shape seconds kept at PATH, when there are N of them and each is a time the rubric's
// run could take.
std::optional<std::vector<double>> kept_solution_times(const Context& ctx, const std::string& path, size_t n) {
  std::ifstream in(path);
  std::vector<double> seconds;
  for (double s; in >> s;) {
    if (!std::isfinite(s) || s < 0 || s > ctx.rubric->timeout_run) return std::nullopt;
    seconds.push_back(s);
  }
  if (seconds.size() != n) return std::nullopt;
  return seconds;
}

Counted count_against_solution(const Context& ctx, const LabRubric& lab, const Program& solution, const Cases& cases) {
  const size_t n = cases.cases.size();
  Counted counted{std::vector<size_t>(n), {}, fixed_limits(ctx, n)};
  for (size_t i = 0; i < n; ++i) counted.shapes[i] = i;
  if (solution.path.empty()) return counted;
  const std::string kept = ctx.backend == "cpu" && ctx.sandbox.namespaces ? solution_times_path(ctx, lab, solution) : "";
  if (!kept.empty()) {
    if (const auto seconds = kept_solution_times(ctx, kept, n)) {
      counted.limits = limits_from(ctx, *seconds);
      counted.limits.basis += " (its times kept from an earlier run on this machine)";
      return counted;
    }
  }
  const Cases solved = copy_cases(ctx, cases, "correctness-solution");
  const Pass ref = serve_pass(ctx, solution, solved, counted.shapes, {"CPUSIM_SCHEDULE=forward"}, counted.limits);
  counted.shapes.clear();
  for (size_t i = 0; i < n; ++i) {
    const CaseVerdict s = evaluate(ctx, solved, i, &ref);
    if (s.failure.empty()) {
      counted.shapes.push_back(i);
    } else {
      counted.notes.push_back("(left out: " + s.describe(lab.shapes[i]) + ", in the solution's own run)");
    }
  }
  counted.limits = limits_from(ctx, ref.seconds);
  if (!kept.empty() && counted.shapes.size() == n) {
    std::ostringstream times;
    for (double s : ref.seconds) times << s << "\n";
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(kept).parent_path(), ec);
    write_atomically(kept, times.str());  // a grading that cannot keep it measures again next time
  }
  return counted;
}

// Whether two runs' outputs differ by more than the order of their sums explains. Sums added in
// another order (a dot's atomics) differ in their last bits, by well under one error bound
// (common/compare.h), so largest errors two bounds apart or more are not rounding; nor is a NaN
// that another run computed otherwise.
bool beyond_rounding(const CaseVerdict& v, const CaseVerdict& w) {
  if (same_bits(v.output, w.output)) return false;
  auto has_nan = [](const std::vector<float>& out) { return std::any_of(out.begin(), out.end(), [](float x) { return std::isnan(x); }); };
  return has_nan(v.output) || has_nan(w.output) || !(std::abs(v.report.max_error_ratio - w.report.max_error_ratio) < 2.0);
}

// Two passes on the same inputs, in two thread orders on the CPU backend: a shape must pass
// both, and a result that changes between them is the mark of a race. The second pass runs
// only the shapes the first one finished.
struct TwoPasses {
  Cases again;  // the second pass's copy of the cases
  Pass first, second;
};

TwoPasses run_twice(const Context& ctx, const Program& program, const Cases& cases, const Counted& counted) {
  TwoPasses t;
  t.first = serve_pass(ctx, program, cases, counted.shapes, {"CPUSIM_SCHEDULE=forward"}, counted.limits);
  std::vector<size_t> finished;
  for (size_t i : counted.shapes) {
    if (t.first.seconds[i] >= 0) finished.push_back(i);
  }
  t.again = copy_cases(ctx, cases, "correctness-again");
  t.second = serve_pass(ctx, program, t.again, finished, {"CPUSIM_SCHEDULE=reverse"}, counted.limits);
  return t;
}

// The verdict on each counted shape from the two passes, the failing run's where one fails; a
// race, when the runs disagree, is its hint. *DIAGNOSE gets the other failing shapes whose output
// came back clean.
std::vector<CaseVerdict> judge_two_passes(const Context& ctx, const LabRubric& lab, const Cases& cases, const TwoPasses& t,
                                          const std::vector<size_t>& counted, std::vector<size_t>* diagnose) {
  std::vector<CaseVerdict> verdicts(cases.cases.size());
  for (size_t i : counted) {
    CaseVerdict& v = verdicts[i];
    v = evaluate(ctx, cases, i, &t.first);
    if (t.first.seconds[i] < 0) continue;
    const CaseVerdict w = evaluate(ctx, t.again, i, &t.second);
    // A race only when both runs wrote every element and disagree by more than rounding: then
    // the pattern of one run's mismatches means little, and the race is what to fix.
    const bool race = (!v.pass || !w.pass) && v.complete && w.complete && beyond_rounding(v, w);
    if (v.pass && !w.pass) v = w;  // show the failing run
    if (race) {
      v.report.hint = std::string("the result differs between two runs on the same inputs") +
                      (ctx.backend == "cpu" ? " (thread orders forward and reverse)" : "") +
                      ": a race, such as a missing __syncthreads or blocks writing the same element without atomics.";
    } else if (!v.pass && v.failure.empty() && !lab.shapes[i].empty()) {
      diagnose->push_back(i);
    }
  }
  return verdicts;
}

// Runs the shapes of DIAGNOSE once more with their output zeroed first: where that passes, the
// kernel reads its output before writing it, and the hint says so.
void diagnose_reads_output(const Context& ctx, const Program& program, const Cases& cases, const std::vector<size_t>& diagnose,
                           const Limits& limits, std::vector<CaseVerdict>* verdicts) {
  const Cases zeroed = copy_cases(ctx, cases, "correctness-zeroed", /*zero_fill=*/true);
  const Pass z = serve_pass(ctx, program, zeroed, diagnose, {"CPUSIM_SCHEDULE=forward"}, limits);
  for (size_t i : diagnose) {
    if (evaluate(ctx, zeroed, i, &z).pass) (*verdicts)[i].report.hint = reads_output_hint(cases.cases[i].shape.op);
  }
}

// The first three failing shapes, each with its comparison, then how many more fail; and what
// the first program of the two passes that died printed last.
std::vector<std::string> failures_text(const LabRubric& lab, const std::vector<size_t>& counted,
                                       const std::vector<CaseVerdict>& verdicts, const TwoPasses& t) {
  std::vector<std::string> text;
  int shown = 0;
  for (size_t i : counted) {
    const CaseVerdict& v = verdicts[i];
    if (v.pass || shown++ >= 3) continue;
    text.push_back(v.describe(lab.shapes[i]));
    for (const std::string& line : v.report_lines()) text.push_back(line);
  }
  if (shown > 3) text.push_back("... and " + std::to_string(shown - 3) + " more shapes fail");
  for (const Pass* p : {&t.first, &t.second}) {
    if (p->failed_output.empty()) continue;
    text.push_back("the program's last output when it stopped:");
    const std::vector<std::string> tail = quote_output(p->failed_output, 12);
    text.insert(text.end(), tail.begin(), tail.end());
    break;
  }
  return text;
}

// The check's score, status and report from the verdicts; *MAIN_CORRECT when every main shape
// passed.
void score_correctness(const Context& ctx, const LabRubric& lab, const Counted& counted, const std::vector<CaseVerdict>& verdicts,
                       const TwoPasses& t, CheckResult* c, bool* main_correct) {
  int passed = 0, passed_nonempty = 0;
  bool main_ok = true;
  for (size_t i : counted.shapes) {
    const bool pass = verdicts[i].pass;
    passed += pass;
    passed_nonempty += pass && !lab.shapes[i].empty();
    if (std::find(lab.main_shapes.begin(), lab.main_shapes.end(), i) != lab.main_shapes.end()) main_ok &= pass;
  }
  const int total = int(counted.shapes.size());
  c->details = {std::to_string(passed) + " of " + std::to_string(total) + " shapes correct, seed " + std::to_string(ctx.seed)};
  const std::vector<std::string> failures = failures_text(lab, counted.shapes, verdicts, t);
  c->details.insert(c->details.end(), failures.begin(), failures.end());
  c->details.insert(c->details.end(), counted.notes.begin(), counted.notes.end());
  c->status = passed == total && total > 0 ? Status::kPass : Status::kFail;
  c->points = total > 0 ? c->max_points * passed / double(total) : 0;
  // A launcher that does nothing passes the shapes with nothing to compute: they count once
  // something works.
  if (passed_nonempty == 0) {
    c->points = 0;
    c->status = Status::kFail;
    if (passed > 0) c->details.push_back("(the shapes with nothing to compute pass, but count only once another shape does)");
  }
  *main_correct = main_ok && passed_nonempty > 0;
  if (c->status == Status::kPass && counted.notes.empty()) c->details.clear();
}

}  // namespace

CheckResult check_correctness(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, bool* main_correct) {
  const auto start = Clock::now();
  CheckResult c("correctness", Status::kFail, lab.points_correctness);
  const Cases cases = write_cases(ctx, "correctness", lab.shapes);
  const Counted counted = count_against_solution(ctx, lab, programs.solution, cases);
  const TwoPasses passes = run_twice(ctx, programs.main, cases, counted);
  std::vector<size_t> diagnose;
  std::vector<CaseVerdict> verdicts = judge_two_passes(ctx, lab, cases, passes, counted.shapes, &diagnose);
  if (!diagnose.empty()) diagnose_reads_output(ctx, programs.main, cases, diagnose, counted.limits, &verdicts);
  score_correctness(ctx, lab, counted, verdicts, passes, &c, main_correct);
  c.seconds = seconds_since(start);
  return c;
}

namespace {

// Fails check C for WHAT, with LINES under it.
void fail(CheckResult* c, const std::string& what, const std::vector<std::string>& lines) {
  c->status = Status::kFail;
  c->details.push_back(what);
  c->details.insert(c->details.end(), lines.begin(), lines.end());
}

// On a GPU: the safety shape under each of compute-sanitizer's tools, until one fails; then the
// race shape, where the rubric has one, under racecheck.
void run_compute_sanitizer(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, CheckResult* c) {
  if (!ctx.have_compute_sanitizer) {
    c->status = Status::kWaived;
    c->details.push_back("waived: compute-sanitizer is not installed");
  }
  std::vector<std::pair<const char*, lab::Case>> runs = {{"memcheck", lab.safety_shape}, {"racecheck", lab.safety_shape},
                                                         {"synccheck", lab.safety_shape}};
  if (!lab.race_shape.empty()) runs.push_back({"racecheck", lab.race_shape});
  for (const auto& [tool, shape] : runs) {
    if (c->status != Status::kPass) break;
    const Cases cases = write_cases(ctx, tool, {shape});
    const lab::RunResult r = run_limited(ctx, programs.main, cases, {},
                                         {"compute-sanitizer", "--tool", tool, "--error-exitcode", "99", "--print-limit", "5"},
                                         &programs.solution);
    if (r.spawn_failed) {
      fail(c, "the program could not run: " + first_line(r.output), {});
    } else if (r.exited(99)) {
      fail(c, std::string("compute-sanitizer --tool ") + tool + " on " + shape.describe() + " found:",
           report_lines(r.output, lab.file(), {"=========     at", "========= Error", "========= Invalid", "========= Barrier", "Race reported"}));
    } else if (!r.exited(0)) {
      fail(c, std::string("under compute-sanitizer --tool ") + tool + " the program " + r.describe() + ":", quote_output(r.output, 10));
    }
  }
}

// On the CPU backend, every thread schedule must give a correct result: a race shows as one that
// does not. False when a run hung: the sanitizers' builds would hang too.
bool run_schedules(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, CheckResult* c) {
  int passing = 0;
  std::string failing;
  // The random order's seed is its own, not the inputs' (which no student process may learn);
  // a failure names it, so CPUSIM_SCHEDULE=random:N repeats that order.
  const std::vector<std::string> schedules = {"forward", "reverse", "random:" + std::to_string(std::random_device{}() % 1000)};
  for (const std::string& schedule : schedules) {
    const Cases cases = write_cases(ctx, "schedule", {lab.safety_shape});
    const lab::RunResult r = run_limited(ctx, programs.main, cases, {"CPUSIM_SCHEDULE=" + schedule}, {}, &programs.solution);
    if (r.timed_out) {
      fail(c, "with CPUSIM_SCHEDULE=" + schedule + " on " + lab.safety_shape.describe() + " the program " + r.describe() + ":",
           quote_output(r.output, 4));
      return false;
    }
    const CaseVerdict v = evaluate(ctx, cases, 0);
    if (v.pass && r.exited(0)) {
      ++passing;
    } else if (failing.empty()) {
      failing = schedule + ": " + v.describe(lab.safety_shape);
    }
  }
  if (passing > 0 && passing < 3) {
    fail(c, "the result depends on the order threads run in (CPUSIM_SCHEDULE), so there is a race: a missing "
            "__syncthreads, or threads writing the same element without atomics",
         {"  " + failing});
  } else if (passing == 0) {
    fail(c, "wrong under every thread schedule: " + failing, {});
  }
  return true;
}

// The safety shape in a sanitizer's build: a finding, a failed run or a wrong result each fail
// the check. False when the run hung.
bool run_sanitized(const Context& ctx, const LabRubric& lab, const std::string& tool, const Program& program,
                   const std::vector<std::string>& env, const std::vector<std::string>& markers, CheckResult* c) {
  const Cases cases = write_cases(ctx, tool, {lab.safety_shape});
  lab::RunResult r = run_limited(ctx, program, cases, env);
  if (contains(r.output, "ThreadSanitizer: unexpected memory mapping")) {
    // High-entropy address randomization breaks ThreadSanitizer's layout: run without it.
    r = run_limited(ctx, program, cases, env, {"setarch", "-R"});
  }
  if (r.spawn_failed) {
    fail(c, "the " + tool + " build could not run: " + first_line(r.output), {});
  } else if (r.timed_out) {
    fail(c, "the " + tool + " build on " + lab.safety_shape.describe() + " " + r.describe() + ":", quote_output(r.output, 4));
    return false;
  } else if (contains(r.output, tool) || !r.exited(0)) {
    fail(c, tool + " on " + lab.safety_shape.describe() + " found:", report_lines(r.output, lab.file(), markers));
  } else if (const CaseVerdict v = evaluate(ctx, cases, 0); !v.pass) {
    fail(c, "the " + tool + " build did not compute a correct result: " + v.describe(lab.safety_shape), {});
  }
  return true;
}

// The sanitizers' builds, AddressSanitizer's first. A run that hung stops the check: the next
// build would hang too.
void run_sanitizer_builds(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, CheckResult* c) {
  const bool hung = !run_sanitized(ctx, lab, "AddressSanitizer", programs.asan,
                                   {"ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:" + sanitizer_memory_option()},
                                   {"ERROR: AddressSanitizer", "READ of size", "WRITE of size", "cpusim:"}, c);
  if (hung) return;
  run_sanitized(ctx, lab, "ThreadSanitizer", programs.tsan, {"TSAN_OPTIONS=" + sanitizer_memory_option()},
                {"WARNING: ThreadSanitizer", "cpusim:"}, c);
}

}  // namespace

CheckResult check_safety(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  const auto start = Clock::now();
  CheckResult c("safety", Status::kPass, lab.points_safety);
  if (ctx.backend == "gpu") {
    run_compute_sanitizer(ctx, lab, programs, &c);
  } else if (run_schedules(ctx, lab, programs, &c)) {
    run_sanitizer_builds(ctx, lab, programs, &c);
  }
  return all_or_nothing(c, start);
}

namespace {

// What the student's median time is held to: TARGET full marks at the rubric's share of its
// speed. The solution's median in this run; or, where there is no solution, the ceiling's in
// this run over the share of it the solution reached on this GPU model (grading/targets.h).
struct Reference {
  Cases cases;                 // the performance shape and its inputs: the student's run copies them
  Limits limits;               // of the student's timed pass
  lab::DotReference base_dot;  // the dot product's reference, which checks each timed call
  lab::CaseResult bounds;      // what bounds any time on this GPU: the FP32 peak, a copy's rate
  double ms = 0;               // the target; 0 when there is none here, with why
  std::string why;
  std::string whose;           // "the solution's", "the target's", in the report
  std::vector<std::string> basis;  // how the target was set, said first
};

// A timed pass of PROGRAM, alone: labs graded at once prepare their inputs and check their
// outputs side by side, but no other lab program runs while one is timed (run_program).
Pass timed_pass(const Context& ctx, const Program& program, const Cases& cases, const Limits& limits) {
  return serve_pass(ctx, program, cases, {0}, {}, limits, true);
}

// The performance shape's cases, and the dot product's reference of their inputs.
Reference performance_cases(const Context& ctx, const LabRubric& lab, const std::string& name) {
  Reference ref;
  ref.cases = write_cases(ctx, name, {lab.performance_shape}, true);
  if (lab.performance_shape.op == lab::Op::kDot) {
    const std::vector<std::vector<float>>& in = ref.cases.inputs[0];
    ref.base_dot = lab::dot_reference(in[0].data(), in[1].data(), lab.performance_shape.n);
  }
  return ref;
}

// The solution's timed run of the performance shape. It runs before the student's: no student
// code has run against its folder. It also measures what bounds any time on this GPU (the FP32
// peak, a copy's rate).
Reference time_solution(const Context& ctx, const LabRubric& lab, const Program& solution) {
  Reference ref = performance_cases(ctx, lab, "performance-solution");
  const Pass pass = timed_pass(ctx, solution, ref.cases, fixed_limits(ctx, 1));
  const CaseVerdict verdict = evaluate(ctx, ref.cases, 0, &pass);
  ref.limits = limits_from(ctx, pass.seconds);
  ref.bounds = verdict.result;
  ref.whose = "the solution's";
  ref.basis.push_back("target: the solution's time, measured in this run");
  ref.ms = verdict.pass ? checked_median(ref.cases, verdict, &ref.base_dot, &ref.why) : 0;
  if (!verdict.pass) ref.why = verdict.describe(lab.performance_shape);
  if (ref.ms <= 0) ref.why = "the solution did not run here (" + ref.why + ")";
  return ref;
}

// Without a solution: the ceiling measured now, over the solution's recorded share of it.
Reference target_from_ceiling(const Context& ctx, const LabRubric& lab, const Program& ceilings) {
  Reference ref;
  const lab::Target* target = recorded_target(ctx, lab, &ref.why);
  if (target == nullptr) return ref;
  const Ceiling ceiling = measure_ceiling(ctx, ceilings, lab.performance_shape);
  if (!ceiling.why.empty()) {
    ref.why = "the ceiling did not run here (" + ceiling.why + ")";
    return ref;
  }
  if (ceiling.name != target->ceiling) {
    ref.why = ctx.targets_path + " has the solution's share of " + target->ceiling + ", but the ceiling measured here is " +
              ceiling.name + ": make bench again";
    return ref;
  }
  ref = performance_cases(ctx, lab, "performance-target");
  ref.limits = fixed_limits(ctx, 1);
  ref.bounds.peak_tflops = ceiling.peak_tflops;
  ref.bounds.copy_tbps = ceiling.copy_tbps;
  ref.ms = ceiling.ms / target->share;
  ref.whose = "the target's";
  ref.basis.push_back("target: no solution here; " + ceiling.name + fmt(" took %.3f ms in this run, and on this GPU model the ", ceiling.ms) +
                      fmt("solution reached %.1f%% of its speed", 100 * target->share) + " (" + ctx.targets_path + ", " +
                      target->date + ", commit " + target->commit + fmt("): %.3f ms", ref.ms));
  return ref;
}

// The least time this GPU needs for SHAPE: its FLOPs at the FP32 peak, or its least traffic at a
// little above the measured copy rate (a copy is not quite the DRAM's peak).
double fastest_ms(const lab::Case& shape, const lab::CaseResult& measured) {
  return 1e3 * std::max(shape.flops() / (measured.peak_tflops * 1.05e12), shape.min_bytes() / (measured.copy_tbps * 1.25e12));
}

// The student's median time against the target; C's points by the share of its speed.
void time_against(const Context& ctx, const LabRubric& lab, const Program& program, const Reference& ref, CheckResult* c) {
  const Cases cases = copy_cases(ctx, ref.cases, "performance");
  const Pass pass = timed_pass(ctx, program, cases, ref.limits);
  const CaseVerdict v = evaluate(ctx, cases, 0, &pass);
  c->status = Status::kFail;
  c->details = ref.basis;
  if (!v.pass) {
    c->details.push_back("the timed run's result is wrong: " + v.describe(lab.performance_shape));
    return;
  }
  std::string why;
  const double ms = checked_median(cases, v, &ref.base_dot, &why);
  if (ms <= 0) {
    c->details.push_back(why);
    return;
  }
  // No kernel beats the hardware.
  if (const double fastest = fastest_ms(lab.performance_shape, ref.bounds); ms < fastest) {
    c->details.push_back(fmt("%.3f ms is faster than this GPU can do the work (at least %.3f ms at its FP32 peak of %.1f TFLOP/s",
                             ms, fastest, ref.bounds.peak_tflops) +
                         fmt(" and a copy rate of %.2f TB/s): the timed calls did not do it, so no points", ref.bounds.copy_tbps));
    return;
  }
  const double share = ref.ms / ms;
  c->points = c->max_points * std::min(1.0, share / lab.full_at);
  c->status = share >= lab.full_at ? Status::kPass : Status::kFail;
  c->details.push_back(fmt("your launcher %.3f ms, ", ms) + ref.whose + fmt(" %.3f ms (medians of %.0f calls, each checked): ", ref.ms,
                           lab::kTimedRuns) +
                       fmt("%.0f%% of its speed, full marks from %.0f%%", 100 * share, 100 * lab.full_at));
}

// make bench's record (--record-targets): the ceiling beside the solution just timed.
void record_share(const Context& ctx, const LabRubric& lab, const LabPrograms& programs, const Reference& solution,
                  CheckResult* c) {
  const Ceiling ceiling = measure_ceiling(ctx, programs.ceilings, lab.performance_shape);
  c->details.push_back(ceiling.why.empty() ? record_target(ctx, lab, ceiling, solution.ms)
                                           : "not recorded: the ceiling did not run here (" + ceiling.why + ")");
}

}  // namespace

CheckResult check_performance(const Context& ctx, const LabRubric& lab, const LabPrograms& programs) {
  const auto start = Clock::now();
  CheckResult c("performance", Status::kWaived, 0);
  if (ctx.backend != "gpu") {
    c.details.push_back("waived on the CPU backend: its times say nothing about a GPU");
  } else {
    // Without a solution, grade_labs (grading/grade.cpp) has built the ceilings' program.
    const Reference ref = programs.solution.path.empty() ? target_from_ceiling(ctx, lab, programs.ceilings)
                                                         : time_solution(ctx, lab, programs.solution);
    if (ref.ms <= 0) {
      c.details.push_back("waived: " + ref.why);
    } else {
      c.max_points = lab.points_performance;
      time_against(ctx, lab, programs.main, ref, &c);
      if (ctx.record_targets && !programs.solution.path.empty()) record_share(ctx, lab, programs, ref, &c);
    }
  }
  c.seconds = seconds_since(start);
  return c;
}

}  // namespace grade
