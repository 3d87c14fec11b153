// `make profile`'s report (grading/student/profile_report.h), from one run of a lab program: the CPU
// backend's launch log of a count-flavor build, or Nsight Compute's CSV; and the comparison of
// the two that scripts/validate-profile prints.
//
//   profile --backend cpu|gpu --counts FILE [--result FILE] [--page HTML]   (scripts/profile-lab)
//   profile ... --estimate                                    (scripts/validate-estimate)
//   profile --compare --cpu LOG --gpu CSV [--label TEXT]      (scripts/validate-profile)
//   profile --print-ncu-metrics [--compare]                   (the metrics to ask ncu for)
//
// --page also writes the access page (access_page.h): on a GPU, from Nsight Compute's source
// page (--source-csv) and, for the lanes, a count-flavor run of the same source (--model-counts,
// --model-result).
// --result is the lab program's --result file: the lab and the problem, whose FLOPs the CPU
// backend's report uses. Counts that are not there are a run that launched no kernel (the
// launch log is written at the first launch). The comparison prints, per kernel, the model's and Nsight Compute's
// sectors per request, wavefronts per request and bank-conflict ways, their ratio, and whether
// it is within 10%. --estimate prints the run's estimated time alone, in milliseconds.
// Exit status: 0 printed (for --compare: every ratio within 10%), 1 a ratio outside, 2 bad
// arguments or a file that cannot be read. A C++ program: it reads the counts with the code
// the technique check reads them with.
#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <optional>
#include <string>

#include "common/cli.h"
#include "common/exit_codes.h"
#include "common/problems.h"
#include "common/protocol.h"
#include "grading/core/kernel_counts.h"
#include "grading/student/access_page.h"
#include "grading/student/profile_report.h"

namespace {

bool readable(const std::string& path) { return std::ifstream(path).good(); }

// "lab 04 (transpose), rows=256 cols=300", and the problem's FLOPs, from the result file.
// The problem the lab program ran, and on a GPU the GPU it ran on, from its --result file.
void describe_problem(const std::string& result_file, grade::ProfileContext* ctx) {
  const lab::ResultFields f = lab::read_result_file(result_file);
  if (f.count("device") && f.count("peak_tflops") && f.count("copy_tbps") && f.count("sm_count") && f.count("l2_bytes")) {
    ctx->gpu = grade::measured_gpu(f.at("device"), std::stod(f.at("peak_tflops")) * 1e12, std::stod(f.at("copy_tbps")) * 1e12,
                                   std::stoi(f.at("sm_count")), std::stod(f.at("l2_bytes")));
  }
  ctx->title = f.count("lab") ? "lab " + f.at("lab") + (f.count("name") ? " (" + f.at("name") + ")" : "") : "a program";
  int64_t dims[3] = {0, 0, 0};
  lab::Case c;
  std::istringstream numbers(f.count("dims") ? f.at("dims") : "");
  if (f.count("op") && numbers >> dims[0] >> dims[1] >> dims[2] && lab::Case::from_dims(f.at("op"), dims, &c)) {
    ctx->title += ", " + c.describe();
    ctx->problem_flops = c.flops();
  }
}

std::string cwd() {
  char path[PATH_MAX];
  return getcwd(path, sizeof path) ? path : "";
}

// "step1::matmul_tiled_kernel<32>" -> "matmul_tiled_kernel": the launch names the kernel as the
// source writes it, with its namespace and template arguments; ncu by its function's name and
// its template arguments as compiled (lab 03's steps were left unpaired on the H100).
std::string function_name(const std::string& kernel) {
  const std::string name = kernel.substr(0, kernel.find('<'));
  const size_t scope = name.rfind("::");
  return scope == std::string::npos ? name : name.substr(scope + 2);
}

// One line of the comparison: a metric of a kernel by the model (M) and by ncu (N), their ratio
// and whether it is within 10%; false when it is not, or one of them is missing.
bool compare_line(const std::string& label, const std::string& kernel, const std::string& metric, std::optional<double> m,
                  std::optional<double> n) {
  std::string verdict = "NO";
  char ratio[32] = "-";
  if (m && n) {
    const double r = *n > 0 ? *m / *n : (*m == 0 ? 1 : INFINITY);
    snprintf(ratio, sizeof ratio, "%.3f", r);
    if (std::fabs(r - 1) <= 0.10) verdict = "yes";
  }
  auto cell = [](std::optional<double> v) {
    char text[32] = "-";
    if (v) snprintf(text, sizeof text, "%.3f", *v);
    return std::string(text);
  };
  printf("%-28s %-34s %-36s %10s %10s %8s  %s\n", label.c_str(), kernel.c_str(), metric.c_str(), cell(m).c_str(), cell(n).c_str(),
         ratio, verdict.c_str());
  return verdict == "yes";
}

// The kernels of the two runs paired: the n-th kernel of a function in one run is the n-th of
// that function in the other (both list kernels in the order of their first launch); a kernel
// only one of them ran is paired with nothing.
std::vector<std::pair<const grade::KernelCounts*, const grade::KernelCounts*>> paired_kernels(const grade::RunCounts& model,
                                                                                              const grade::RunCounts& ncu) {
  auto nth = [](const grade::RunCounts& run, const std::string& function, int n) -> const grade::KernelCounts* {
    for (const grade::KernelCounts& k : run.kernels)
      if (function_name(k.name) == function && n-- == 0) return &k;
    return nullptr;
  };
  auto index = [](const grade::RunCounts& run, const grade::KernelCounts& of) {
    int n = 0;
    for (const grade::KernelCounts& k : run.kernels) {
      if (&k == &of) break;
      n += function_name(k.name) == function_name(of.name);
    }
    return n;
  };
  std::vector<std::pair<const grade::KernelCounts*, const grade::KernelCounts*>> pairs;  // model, ncu
  for (const grade::KernelCounts& k : model.kernels) pairs.push_back({&k, nth(ncu, function_name(k.name), index(model, k))});
  for (const grade::KernelCounts& k : ncu.kernels)
    if (!nth(model, function_name(k.name), index(ncu, k))) pairs.push_back({nullptr, &k});
  return pairs;
}

// Per kernel of either run, matched by name: the model's and ncu's figures; a kernel only one
// of them ran shows "-" for the other, and counts as outside.
int compare(const std::string& cpu_log, const std::string& gpu_csv, const std::string& label) {
  const grade::RunCounts model = grade::read_launch_log(cpu_log), ncu = grade::read_ncu_csv(gpu_csv);
  int outside = 0;
  const auto pairs = paired_kernels(model, ncu);
  for (const auto& [c, g] : pairs) {
    const std::string name = (g ? g : c)->name;
    // A ratio of the model's (or ncu's) accesses, when that run has any of them.
    using Part = const grade::Accesses grade::KernelCounts::*;
    auto per = [](const grade::KernelCounts* k, Part part, double grade::Accesses::*num,
                  double grade::Accesses::*den) -> std::optional<double> {
      if (k == nullptr || (k->*part).*den == 0) return std::nullopt;
      return (k->*part).*num / (k->*part).*den;
    };
    auto has = [&, c = c, g = g](Part part) { return (c && (c->*part).requests > 0) || (g && (g->*part).requests > 0); };
    auto line = [&](const std::string& metric, std::optional<double> m, std::optional<double> n) {
      outside += !compare_line(label, name, metric, m, n);
    };
    using A = grade::Accesses;
    for (const auto& [op, part] : {std::pair<const char*, Part>{"load", &grade::KernelCounts::global_load},
                                   {"store", &grade::KernelCounts::global_store}})
      if (has(part))
        line(std::string("global ") + op + " sectors per request", per(c, part, &A::sectors, &A::requests),
             per(g, part, &A::sectors, &A::requests));
    for (const auto& [op, part] : {std::pair<const char*, Part>{"load", &grade::KernelCounts::shared_load},
                                   {"store", &grade::KernelCounts::shared_store}}) {
      if (!has(part)) continue;
      line(std::string("shared ") + op + " wavefronts per request", per(c, part, &A::wavefronts, &A::requests),
           per(g, part, &A::wavefronts, &A::requests));
      line(std::string("shared ") + op + " bank-conflict ways", per(c, part, &A::wavefronts, &A::ideal_wavefronts),
           per(g, part, &A::wavefronts, &A::ideal_wavefronts));
    }
  }
  if (pairs.empty()) {
    printf("%-28s neither run launched a kernel\n", label.c_str());
    ++outside;
  }
  return outside == 0 ? lab::kExitPass : lab::kExitWrong;
}

// A GPU run's kernels get Nsight Compute's per-line counts as their instructions, so that the
// findings name their lines as the CPU backend's do.
void add_measured_sites(grade::RunCounts* run, const std::vector<grade::MeasuredLine>& measured) {
  for (const grade::MeasuredLine& m : measured)
    for (grade::KernelCounts& k : run->kernels)
      if (function_name(k.name) == function_name(m.kernel)) {
        grade::SiteCounts s;
        s.space = m.space, s.kind = m.kind, s.traffic = m.traffic, s.location = m.file + ":" + std::to_string(m.line);
        k.sites.push_back(s);
        break;
      }
}

struct PageInputs {
  std::string model_counts, model_result, solution_counts;
};

// A count-flavor launch log with its instructions' source lines; empty when there is none.
grade::RunCounts located_log(const std::string& path, const std::string& root) {
  if (path.empty() || !readable(path)) return {};
  grade::RunCounts run = grade::read_launch_log(path);
  grade::locate_sites(&run, root);
  return run;
}

int write_page(const std::string& path, const std::string& backend, const grade::RunCounts& run, const grade::ProfileContext& ctx,
               const std::vector<grade::MeasuredLine>& measured, const PageInputs& in) {
  grade::AccessPage page;
  page.title = ctx.title;
  page.root = cwd();
  const grade::RunCounts model = located_log(in.model_counts, page.root), solution = located_log(in.solution_counts, page.root);
  if (backend == "cpu") {
    page.model = &run;
  } else {
    page.measured_by = "Nsight Compute on " + ctx.gpu.name;
    page.measured = measured;
    if (!model.kernels.empty()) {
      page.model = &model;
      grade::ProfileContext model_ctx;
      describe_problem(in.model_result, &model_ctx);
      page.model_problem = model_ctx.title;
    }
  }
  if (!solution.kernels.empty()) page.solution = &solution;
  std::ofstream out(path);
  out << grade::access_page_html(page);
  if (!out.flush()) {
    fprintf(stderr, "profile: cannot write the page %s\n", path.c_str());
    return lab::kExitCannotRun;
  }
  if (run.kernels.empty()) {
    printf("\nthe access page: %s says no kernel ran, so there is nothing to draw yet\n", path.c_str());
  } else {
    printf("\nthe access page, a warp's lanes drawn per memory line: %s (open it in a browser)\n", path.c_str());
  }
  return lab::kExitPass;
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend, counts, result, cpu_log, gpu_csv, label, gpu_model = "H100", page, source_csv, model_counts, model_result,
      solution_counts;
  bool compare_mode = false, print_metrics = false, estimate_only = false;
  lab::Cli cli(argv[0], "make profile's report from a run's counts, or (--compare) the CPU backend's model against Nsight Compute.");
  cli.add_string("backend", &backend, "cpu (a count-flavor program's launch log) or gpu (ncu --csv --print-units base)");
  cli.add_string("counts", &counts, "the launch log or the CSV");
  cli.add_string("result", &result, "the lab program's --result file: the lab and the problem");
  cli.add_flag("compare", &compare_mode, "compare a CPU backend's launch log (--cpu) with ncu's CSV (--gpu)");
  cli.add_string("cpu", &cpu_log, "with --compare: the count-flavor program's launch log");
  cli.add_string("gpu", &gpu_csv, "with --compare: Nsight Compute's CSV of the same program and shape");
  cli.add_string("label", &label, "with --compare: the first column of each line");
  cli.add_string("gpu-model", &gpu_model, "the GPU the CPU backend's estimates are for: H100 (default) or H200; a GPU run's are for its own");
  cli.add_string("page", &page, "also write the access page, one HTML file: each memory line marked, a warp's lanes drawn");
  cli.add_string("source-csv", &source_csv, "with --page on a GPU: Nsight Compute's source page as CSV (the per-line counts)");
  cli.add_string("model-counts", &model_counts, "with --page on a GPU: a count-flavor run's launch log of the same source (the lanes)");
  cli.add_string("model-result", &model_result, "with --model-counts: that run's --result file");
  cli.add_string("solution-counts", &solution_counts, "with --page: the solution's count-flavor launch log, drawn after yours");
  cli.add_flag("estimate", &estimate_only, "print the run's estimated time alone, in milliseconds (its kernels' estimates added)");
  cli.add_flag("print-ncu-metrics", &print_metrics,
               "print the metrics to ask Nsight Compute for, besides its sections (with --compare: those it compares)");
  cli.parse(argc, argv);

  if (print_metrics) {
    printf("%s\n", compare_mode ? grade::kCompareNcuMetrics : grade::kProfileNcuMetrics);
    return lab::kExitPass;
  }
  if (compare_mode) {
    for (const std::string& f : {cpu_log, gpu_csv}) {
      if (f.empty() || !readable(f)) {
        fprintf(stderr, "profile --compare: cannot read '%s' (give --cpu LOG and --gpu CSV)\n", f.c_str());
        return lab::kExitCannotRun;
      }
    }
    return compare(cpu_log, gpu_csv, label.empty() ? "-" : label);
  }
  if ((backend != "cpu" && backend != "gpu") || counts.empty()) {
    fprintf(stderr, "profile: give --backend cpu|gpu and --counts FILE\n%s", cli.usage().c_str());
    return lab::kExitCannotRun;
  }
  grade::ProfileContext ctx;
  const std::optional<grade::ReferenceGpu> model = grade::reference_gpu_named(gpu_model);
  if (!model) {
    fprintf(stderr, "profile: no GPU model '%s' to estimate for: H100 or H200\n", gpu_model.c_str());
    return lab::kExitCannotRun;
  }
  ctx.gpu = *model;
  describe_problem(result, &ctx);
  grade::RunCounts run = backend == "cpu" ? grade::read_launch_log(counts) : grade::read_ncu_csv(counts);
  if (estimate_only) {
    printf("%.6g\n", 1e3 * grade::estimated_seconds(run, ctx.problem_flops, ctx.gpu));
    return lab::kExitPass;
  }
  if (backend == "cpu") ctx.lines_note = grade::locate_sites(&run, cwd());
  const std::vector<grade::MeasuredLine> measured = source_csv.empty() ? std::vector<grade::MeasuredLine>{} : grade::read_ncu_source_csv(source_csv, cwd());
  if (backend == "gpu") add_measured_sites(&run, measured);
  fputs(grade::profile_report(run, ctx).c_str(), stdout);
  if (!page.empty()) return write_page(page, backend, run, ctx, measured, {model_counts, model_result, solution_counts});
  return lab::kExitPass;
}
