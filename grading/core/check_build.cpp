// The build check: the student's one file, copied privately and built fenced in each flavor the
// later checks need; then what the build read and what the object defines and calls.
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <sstream>
#include <utility>

#include "grading/core/case_runs.h"
#include "grading/core/checks.h"
#include "grading/core/isolation.h"
#include "grading/core/make_program.h"
#include "grading/core/quoting.h"
#include "grading/core/submission.h"
#include "tools/text.h"

namespace grade {

using tools::contains;
using tools::joined;

namespace {

// Runs inside the fences: the preprocessor reads what the file names (/dev/zero, say).
std::vector<std::string> forbidden_headers(const Context& ctx, const std::string& file, const std::string& public_dir) {
  tools::RunOptions options;
  options.timeout_s = ctx.rubric->timeout_build;
  const std::string copies = std::filesystem::path(file).parent_path().parent_path().string();
  const tools::RunResult r = ctx.sandbox.run(
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
  std::istringstream lines(tools::run_command(argv).output);
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

// The launchers of LAB's steps that OBJECT defines.
std::vector<std::string> defined_launchers(const LabRubric& lab, const std::string& object) {
  std::vector<std::string> found;
  for (const auto& [name, type] : nm_words({"-g", "--defined-only", "-P", "-C", object})) {
    for (const lab::LabStep& step : lab.step_list()) {
      if (name.rfind(step.launcher + "(", 0) == 0) found.push_back(step.launcher);
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
// definition of a name the shared library exports, nothing of namespaces lab, tools and cpusim.
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
    const bool ours = scope.rfind("lab::", 0) == 0 || scope.rfind("tools::", 0) == 0 || scope.rfind("cpusim::", 0) == 0;
    const bool from_public_headers = scope == "lab::cuda_fail" || scope == "lab::is_environment_error";
    if ((function && name.rfind("_Z", 0) != 0) || (library && scope.find('<') == std::string::npos) ||
        (type == "T" && cxx_exports.count(name) > 0) || (ours && !from_public_headers)) {
      found.push_back(cxx);
    }
  }
  return found;
}


// The student's file as the builds see it: a private copy of the one file, in a folder named
// after its content (grading/core/submission.h).
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
  s.public_dir = "public";  // the checkout's, read-only to the build (mk/config.mk: PUBLIC)
  s.include_roots = ctx.include_roots;
  s.include_roots.push_back(std::filesystem::weakly_canonical(s.public_dir).string());
  return s;
}

// The solution's programs: this backend's, and on the CPU backend its watched build.
std::vector<std::pair<std::string, Program*>> solution_flavors(const Context& ctx, Program* solution, Program* watched) {
  std::vector<std::pair<std::string, Program*>> flavors = {{ctx.backend, solution}};
  if (ctx.backend == "cpu") flavors.push_back({"cpu-count", watched});
  return flavors;
}

// The solution's program, when this checkout has it: its times set the time limits, on a GPU
// its speed is the performance target, and a build of it that fails (a full disk, a broken
// toolkit) is this machine's failure, which must not pass for the student's.
void build_solution(const Context& ctx, const LabRubric& lab, Program* solution, Program* solution_watched) {
  if (!ctx.have_solutions || !exists("solutions/" + lab.folder + "/" + lab.file())) return;
  if (!solution->path.empty()) return;  // build_shared made it
  std::string log;
  for (auto [flavor, program] : solution_flavors(ctx, solution, solution_watched)) {
    if (!make_program(ctx, "solutions", lab, flavor, program, &log)) {
      throw CannotGrade("the solution of lab " + lab.folder + " does not build here; make said:\n" + joined(quote_output(log, 15)));
    }
    program->solution = true;
  }
}

// Whether any section of FOLDER's lab (each step's) gives the safety check points: a rubric
// that gives it none turns it off, and its builds with it.
bool safety_graded(const Context& ctx, const std::string& folder) {
  for (const LabRubric& section : ctx.rubric->labs) {
    if (section.folder == folder && section.points_safety > 0) return true;
  }
  return false;
}

// Whether this grading builds FOLDER's counting build on a GPU: for the technique check's counts
// (--counts model), where the rubric gives that check points and the grading runs it (make check
// does not).
bool model_on_gpu(const Context& ctx, const std::string& folder) {
  if (ctx.backend != "gpu" || ctx.counts != "model" || ctx.quick) return false;
  for (const LabRubric& section : ctx.rubric->labs) {
    if (section.folder == folder && section.points_technique > 0) return true;
  }
  return false;
}

// The flavors the checks of FOLDER's lab need, the lab program's first: on the CPU backend, the
// sanitizers' builds (safety) and the watched build (technique's counts, correctness's lost
// updates); on a GPU with --counts model, the watched build (technique's counts).
std::vector<std::pair<std::string, Program*>> flavors_needed(const Context& ctx, const std::string& folder, LabPrograms* programs) {
  std::vector<std::pair<std::string, Program*>> flavors = {{ctx.backend, &programs->main}};
  if (ctx.backend == "cpu" && safety_graded(ctx, folder)) {
    flavors.insert(flavors.end(), {{"cpu-asan", &programs->asan}, {"cpu-tsan", &programs->tsan}});
  }
  if (ctx.backend == "cpu" || model_on_gpu(ctx, folder)) flavors.push_back({"cpu-count", &programs->watched});
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
  build_solution(ctx, lab, &programs->solution, &programs->solution_watched);
  const std::vector<std::pair<std::string, Program*>> flavors = flavors_needed(ctx, lab.folder, programs);
  std::vector<std::string> names;
  for (const auto& f : flavors) names.push_back(f.first);
  const std::vector<std::string> paths = make_program_parts(ctx, student.copies, lab, names);
  // The flavors' builds run at once (each compiles the one file and links: on the CPU backend
  // four compiles, most of a lab's build), and are judged in order: the main build's failure
  // is the one reported, as if the others had not run.
  std::vector<std::future<Built>> builds;
  for (size_t i = 0; i < flavors.size(); ++i) {
    flavors[i].second->sanitizer = flavors[i].first == "cpu-asan" || flavors[i].first == "cpu-tsan";
    flavors[i].second->on_cores = ctx.backend == "gpu" && flavors[i].first == "cpu-count";
    builds.push_back(std::async(std::launch::async, [&, i] {
      return fenced_build(ctx, lab, student, flavors[i].first, flavors[i].second, paths[i]);
    }));
  }
  std::vector<Built> built;
  for (std::future<Built>& b : builds) built.push_back(b.get());
  if (const Built& b = built[0]; !b.ok) return b.refusal.empty() ? failed_build_report(lab, student, b.log) : b.refusal;
  if (std::vector<std::string> why = forbidden_in_object(ctx, programs->main.object); !why.empty()) return why;
  // A lab in steps links without the launchers of steps not done yet, but not without them all.
  programs->launchers = defined_launchers(lab, programs->main.object);
  if (programs->launchers.empty()) {
    std::string names;
    for (const lab::LabStep& step : lab.step_list()) names += (names.empty() ? "" : ", ") + step.launcher + "()";
    return {file + " defines none of the lab's launchers (" + names + ", declared in harness/launchers.h)"};
  }
  for (size_t i = 1; i < flavors.size(); ++i) {
    if (const Built& b = built[i]; !b.ok) {
      if (!b.refusal.empty()) return b.refusal;
      // On a GPU the counting build only saves Nsight Compute a run: a file the CPU backend
      // cannot build is counted by Nsight Compute instead (check_technique.cpp).
      if (flavors[i].second->on_cores) {
        *flavors[i].second = Program();
        continue;
      }
      std::vector<std::string> why = {"the " + flavors[i].first + " build failed:"};
      const std::vector<std::string> shown = quote_output(b.log, 12);
      why.insert(why.end(), shown.begin(), shown.end());
      return why;
    }
  }
  return {};
}

}  // namespace

bool build_shared(const Context& ctx, const std::vector<const LabRubric*>& labs, std::vector<LabPrograms>* programs) {
  std::string folders, flavors;
  std::vector<std::string> solved;  // the folders whose solutions are here, once each
  const auto add = [](std::string* list, const std::string& word) {
    if ((" " + *list + " ").find(" " + word + " ") == std::string::npos) *list += (list->empty() ? "" : " ") + word;
  };
  for (const LabRubric* lab : labs) {
    add(&folders, lab->folder);
    const bool have = ctx.have_solutions && exists("solutions/" + lab->folder + "/" + lab->file());
    if (have && std::find(solved.begin(), solved.end(), lab->folder) == solved.end()) solved.push_back(lab->folder);
  }
  LabPrograms none;
  for (const LabRubric* lab : labs) {
    for (const auto& f : flavors_needed(ctx, lab->folder, &none)) add(&flavors, f.first);
  }
  bool built = run_make(ctx, {"program-parts", "LAB=" + folders, "SRC=labs", "PART_FLAVORS=" + flavors}).exited(0);
  if (!built || solved.empty()) return built;
  // The solutions' programs, one make per flavor for every lab; each lab's build takes them
  // from here rather than asking make again, all of them or none (a lab's build then makes
  // them itself, and says what fails).
  std::string list;
  for (const std::string& folder : solved) list += (list.empty() ? "" : " ") + folder;
  std::vector<LabPrograms> made(labs.size());
  const std::vector<std::pair<std::string, Program*>> solution_builds = solution_flavors(ctx, &none.solution, &none.solution_watched);
  for (size_t f = 0; f < solution_builds.size(); ++f) {
    const tools::RunResult r = run_make(ctx, {"program", "LAB=" + list, "SRC=solutions", "FLAVOR=" + solution_builds[f].first});
    const std::vector<std::string> paths = printed_paths(r.output, solved.size());
    if (!r.exited(0) || paths.size() != solved.size()) return false;
    for (size_t i = 0; i < labs.size(); ++i) {
      const size_t k = size_t(std::find(solved.begin(), solved.end(), labs[i]->folder) - solved.begin());
      if (k == solved.size()) continue;
      Program* program = solution_flavors(ctx, &made[i].solution, &made[i].solution_watched)[f].second;
      if (!program_at(paths[k], *labs[i], program)) return false;
      program->solution = true;
    }
  }
  for (size_t i = 0; i < labs.size(); ++i) {
    (*programs)[i].solution = made[i].solution;
    (*programs)[i].solution_watched = made[i].solution_watched;
  }
  return true;
}

CheckResult check_build(const Context& ctx, const LabRubric& lab, LabPrograms* programs) {
  const auto start = Clock::now();
  // A lab in steps gives its build's points in its first step's section, whichever steps are graded.
  double points = 0;
  for (const LabRubric& section : ctx.rubric->labs) points += section.folder == lab.folder ? section.points_build : 0;
  CheckResult c("build", Status::kFail, points);
  c.details = build_failure(ctx, lab, programs);
  c.status = c.details.empty() ? Status::kPass : Status::kFail;
  return all_or_nothing(c, start);
}

}  // namespace grade
