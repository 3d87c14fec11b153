#include "grading/core/make_program.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "grading/core/isolation.h"
#include "grading/core/machine.h"
#include "grading/core/quoting.h"
#include "tools/text.h"

namespace grade {

using tools::joined;

std::string object_of(const std::string& program, const LabRubric& lab) {
  std::string obj = program;
  const size_t bin = obj.rfind("/bin/");
  obj.replace(bin, 5, "/obj/");
  return obj + "/" + lab.stem + ".o";
}

// A compile for each core this process may use, no more, so that a small grading machine's
// memory holds them.
tools::RunResult run_make(const Context& ctx, const std::vector<std::string>& args, const std::vector<std::string>* own) {
  std::vector<std::string> argv = {"make", "--no-print-directory", "-s", "-j" + std::to_string(usable_cores()),
                                   "BUILD=" + ctx.build_dir};
  argv.insert(argv.end(), args.begin(), args.end());
  tools::RunOptions options;
  options.timeout_s = ctx.rubric->timeout_build;
  tools::RunResult r = own ? ctx.sandbox.run(ctx.sandbox.wrap_build(argv, options.timeout_s, *own), options) : tools::run_command(argv, options);
  if (r.timed_out || r.signal != 0 || r.spawn_failed) r.output += "\n(make " + r.describe() + ")\n";
  return r;
}

std::vector<std::string> printed_paths(const std::string& output, size_t n) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  lines.erase(lines.begin(), lines.end() - std::min(n, lines.size()));
  return lines;
}

bool program_at(const std::string& path, const LabRubric& lab, Program* program) {
  program->path = std::filesystem::absolute(path).string();
  program->object = object_of(path, lab);
  program->fingerprint = fingerprint(path);
  return !program->fingerprint.empty();
}

bool make_program(const Context& ctx, const std::string& src, const LabRubric& lab, const std::string& flavor,
                  Program* program, std::string* log, const std::vector<std::string>* own) {
  const tools::RunResult r = run_make(ctx, {"program", "LAB=" + lab.folder, "SRC=" + src, "FLAVOR=" + flavor}, own);
  *log = r.output;
  const std::vector<std::string> paths = printed_paths(r.output, 1);
  return r.exited(0) && !paths.empty() && program_at(paths.front(), lab, program);
}

std::vector<std::string> make_program_parts(const Context& ctx, const std::string& src, const LabRubric& lab,
                                            const std::vector<std::string>& flavors) {
  std::string list;
  for (const std::string& f : flavors) list += (list.empty() ? "" : " ") + f;
  const tools::RunResult r = run_make(ctx, {"program-parts", "LAB=" + lab.folder, "SRC=" + src, "PART_FLAVORS=" + list});
  if (!r.exited(0)) {
    throw CannotGrade("the harness of lab " + lab.folder + " does not build here; make said:\n" + joined(quote_output(r.output, 15)));
  }
  std::vector<std::string> paths = printed_paths(r.output, flavors.size());
  for (std::string& path : paths) path = std::filesystem::absolute(path).string();
  return paths;
}

}  // namespace grade
