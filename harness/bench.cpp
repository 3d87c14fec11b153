// `make bench`: every lab's solution next to its ceiling, on one GPU in one run. For each
// problem size it runs the solution's lab program (build/gpu/bin/solutions/NN_name) as a
// separate process, which checks its result against the fp64 reference and times it, and
// reads back its result file; then it checks and times the ceilings in this process
// (harness/vendor.h: cuBLAS, CUB, the copy). It prints a table and writes performance.md and
// performance.svg (harness/bench_report.h) into --out.
//
// The solutions run as their own programs rather than linked in here: each lab file is its
// own translation unit with helpers of the same names as the others', and a lab program is
// exactly what `make run` and the grader time.
//
// Exit status: 0 when everything was checked and timed, 1 when something was wrong or did not
// run (the report says which, and is written all the same), 2 when nothing could run (no GPU,
// bad arguments, a solution's program missing, the output folder not writable).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/cli.h"
#include "common/cuda_check.h"
#include "common/device_info.h"
#include "common/exit_codes.h"
#include "common/labs.h"
#include "harness/bench_report.h"
#include "harness/vendor.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace {

namespace fs = std::filesystem;

// A problem, the labs whose solutions solve it, and the stretch kernels beside them (a lab's
// faster version, not graded: a folder solutions/variants/NAME/LAB, built into
// build/gpu/bin/solutions_variants_NAME/LAB, or a row NAME of solutions/variants/variants.txt,
// made into build/variants/NAME/LAB and built into build/gpu/bin/build_variants_NAME/LAB:
// `folder` names that folder of build/gpu/bin). The sizes are larger than the H100's 50 MiB
// L2 except the two smallest matrix products, which fit; of the non-square products, one makes
// C twice as wide as tall with a shorter K, one eight times as tall as wide, and one a tall,
// skinny C (16384 × 256) with a long K; the non-square transpose has a wide input.
struct Stretch {
  std::string lab, variant, folder;
};

struct Plan {
  lab::Case problem;
  std::vector<std::string> labs;  // the programs' names
  std::vector<Stretch> stretch = {};
};

// The labs of the table (labs.txt) that solve OP.
std::vector<std::string> labs_of(lab::Op op) {
  std::vector<std::string> names;
  for (const lab::LabEntry& e : lab::labs()) {
    if (e.op == op) names.push_back(e.folder);
  }
  return names;
}

std::vector<Plan> plans() {
  const std::vector<std::string> matmul = labs_of(lab::Op::kMatmul), transpose = labs_of(lab::Op::kTranspose);
  // solutions/variants/coarsened: lab 02 with four outputs per thread (its README's question);
  // strassen (a row of variants.txt: solutions/variants/strassen.cu): lab 03's kernel under two
  // levels of Strassen's algorithm, beside the large products (its launcher's model of the time
  // chooses two levels for all three; at smaller sizes it runs classically, without split-K,
  // slower than the solution: not timed).
  const Stretch coarsened_02 = {"02_matmul_tiled", "coarsened", "solutions_variants_coarsened"};
  const Stretch strassen_03 = {"03_matmul_register", "strassen", "build_variants_strassen"};
  const std::vector<Stretch> coarsened = {coarsened_02};
  const std::vector<Stretch> with_strassen = {coarsened_02, strassen_03};
  return {
      {lab::Case::matmul(1024, 1024, 1024), matmul, coarsened},
      {lab::Case::matmul(2048, 2048, 2048), matmul, coarsened},
      {lab::Case::matmul(4096, 4096, 4096), matmul, with_strassen},
      {lab::Case::matmul(8192, 8192, 8192), matmul, with_strassen},
      {lab::Case::matmul(4096, 8192, 2048), matmul, with_strassen},
      {lab::Case::matmul(8192, 1024, 4096), matmul, coarsened},
      {lab::Case::matmul(16384, 256, 4096), matmul, coarsened},
      {lab::Case::transpose(8192, 8192), transpose},
      {lab::Case::transpose(4096, 16384), transpose},
      {lab::Case::dot(int64_t(1) << 28), labs_of(lab::Op::kDot)},
  };
}

struct Options {
  std::string programs = "build/gpu/bin/solutions", out = "build/bench", labs;  // labs: all
  std::string command = "make bench";
  int64_t reps = lab::kTimedRuns;
};

lab::BenchRow row_of(const lab::Measured& m) {
  lab::BenchRow row;
  row.name = m.name;
  row.status = m.timed() ? lab::BenchRow::Status::kTimed
               : m.ran   ? lab::BenchRow::Status::kWrong
                         : lab::BenchRow::Status::kFailed;
  row.detail = m.failure;
  row.median_ms = m.timing.median;
  row.min_ms = m.timing.min;
  row.max_ms = m.timing.max;
  row.runs = int(m.timing.ms.size());
  return row;
}

// One group: the solutions first (each in its own process, while this one holds no device
// memory but its context), then the ceilings on the same seeded inputs.
lab::BenchGroup measure(const Plan& plan, const std::vector<std::string>& labs, const Options& o,
                        const lab::DeviceInfo& device, const std::string& scratch) {
  lab::BenchGroup g;
  g.problem = plan.problem;
  if (plan.problem.device_bytes() <= double(device.l2_bytes)) {
    g.note = "its " + lab::format_bytes(plan.problem.device_bytes()) + " fit in the " +
             lab::format_bytes(double(device.l2_bytes)) + " L2";
  }
  for (const std::string& lab_name : labs) {
    std::fprintf(stderr, "bench: %s: %s\n", g.title().c_str(), lab_name.c_str());
    g.rows.push_back(lab::run_solution(o.programs + "/" + lab_name, lab_name, plan.problem, int(o.reps),
                                  scratch + "/" + lab_name + ".result"));
    for (const Stretch& s : plan.stretch) {
      if (s.lab != lab_name) continue;
      const std::string program = fs::path(o.programs).parent_path() / s.folder / s.lab;
      g.rows.push_back(lab::run_solution(program, lab_name, plan.problem, int(o.reps), scratch + "/" + s.variant + ".result"));
      g.rows.back().name += " (stretch: " + s.variant + ")";
    }
  }
  std::fprintf(stderr, "bench: %s: the ceilings\n", g.title().c_str());
  const lab::Inputs inputs = lab::make_inputs(plan.problem, 1);
  g.ceiling = g.rows.size();
  if (plan.problem.compute_bound()) {
    g.rows.push_back(row_of(lab::time_cublas(plan.problem, inputs, int(o.reps))));
  } else {
    g.rows.push_back(row_of(lab::time_copy(plan.problem, int(o.reps))));
    g.rows.push_back(row_of(lab::time_cublas(plan.problem, inputs, int(o.reps))));
    if (plan.problem.op == lab::Op::kDot) g.rows.push_back(row_of(lab::time_cub_dot(plan.problem, inputs, int(o.reps))));
  }
  return g;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  return bool(out);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

// The GPU's SM clock, its maximum, the memory clock and the temperature, as nvidia-smi gives
// them for the device this process uses (found by its PCI bus id).
std::string describe_clocks() {
  char bus[32] = {};
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  const tools::RunResult r = tools::run_command(
      {"nvidia-smi", "-i", bus, "--query-gpu=clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu", "--format=csv,noheader"});
  std::istringstream fields(r.output);
  std::string sm, max_sm, mem, temperature;
  if (!r.exited(0) || !std::getline(fields, sm, ',') || !std::getline(fields, max_sm, ',') ||
      !std::getline(fields, mem, ',') || !std::getline(fields, temperature)) {
    return "unknown (nvidia-smi: " + r.describe() + ")";
  }
  return "SM " + tools::trim(sm) + " of " + tools::trim(max_sm) + " max, memory " + tools::trim(mem) + ", " +
         tools::trim(temperature) + " C";
}

// The driver as the kernel module reports it, and the CUDA version its API implements.
std::string describe_driver() {
  std::string version = lab::driver_version(read_file("/proc/driver/nvidia/version"));
  int api = 0;
  CUDA_CHECK(cudaDriverGetVersion(&api));
  return (version.empty() ? "unknown (no /proc/driver/nvidia/version)" : version) + " (CUDA " +
         lab::cuda_version(api) + " driver API)";
}

Options parse_options(int argc, char** argv) {
  Options o;
  lab::Cli cli(argv[0], "make bench: every lab's solution next to its ceiling (cuBLAS SGEMM in fp32, a copy of\n"
                        "the same bytes, cuBLAS and CUB), checked, then timed. Prints a table and writes\n"
                        "performance.md and performance.svg into --out. Needs a GPU.");
  cli.add_string("programs", &o.programs, "folder of the solutions' lab programs (gpu flavor)");
  cli.add_string("out", &o.out, "folder to write performance.md and performance.svg into");
  cli.add_string("labs", &o.labs, "the labs to run, comma-separated (01,04; default: all of labs.txt)");
  cli.add_int("reps", &o.reps, 1, 1000, "timed repetitions of each implementation");
  cli.add_string("command", &o.command, "the command that reproduces the run, for performance.md");
  cli.parse(argc, argv);
  return o;
}

// The labs asked for ("01,04" or their full names; all of labs.txt when none), each as its
// program's name; false, after saying why, when one is not in labs.txt or has no program.
bool choose_labs(const Options& o, std::vector<std::string>* chosen) {
  std::string asked = o.labs;
  if (asked.empty()) {
    for (const lab::LabEntry& e : lab::labs()) asked += (asked.empty() ? "" : ",") + e.number;
  }
  std::istringstream ids(asked);
  for (std::string id; std::getline(ids, id, ',');) {
    const lab::LabEntry* l = lab::find_lab(lab::labs(), id);
    if (l == nullptr) {
      std::fprintf(stderr, "bench: --labs: no lab '%s' in labs.txt\n", id.c_str());
      return false;
    }
    if (access((o.programs + "/" + l->folder).c_str(), X_OK) != 0) {
      std::fprintf(stderr, "bench: no program %s/%s: `make bench` builds the solutions' lab programs first\n",
                   o.programs.c_str(), l->folder.c_str());
      return false;
    }
    chosen->push_back(l->folder);
  }
  return true;
}

// The output folder, and a scratch folder of this run's own for the solutions' result files;
// false, after saying why, when either cannot be made.
bool make_folders(const Options& o, std::string* scratch) {
  std::error_code error;
  fs::create_directories(o.out, error);
  *scratch = (fs::temp_directory_path(error) / "bench.XXXXXX").string();
  if (error || mkdtemp(scratch->data()) == nullptr) {
    std::fprintf(stderr, "bench: cannot create the folder %s or a scratch folder %s\n", o.out.c_str(), scratch->c_str());
    return false;
  }
  return true;
}

// Every problem that one of the chosen labs solves, measured.
lab::BenchReport measure_all(const Options& o, const lab::DeviceInfo& device, const std::vector<std::string>& chosen,
                             const std::string& scratch) {
  lab::BenchReport report;
  report.gpu = device.describe();
  report.driver = describe_driver();
  int runtime = 0;
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  report.runtime = lab::cuda_version(runtime);
  report.date = utc_now();
  report.command = o.command;
  report.reps = int(o.reps);
  report.warmup = lab::kWarmupRuns;
  report.clocks_before = describe_clocks();
  const auto start = std::chrono::steady_clock::now();
  for (const Plan& p : plans()) {
    std::vector<std::string> labs;
    for (const std::string& l : p.labs) {
      if (std::find(chosen.begin(), chosen.end(), l) != chosen.end()) labs.push_back(l);
    }
    if (!labs.empty()) report.groups.push_back(measure(p, labs, o, device, scratch));
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.clocks_after = describe_clocks();
  return report;
}

// Prints the table and writes performance.md and performance.svg; the exit status.
int publish(const lab::BenchReport& report, const Options& o) {
  std::fputs(lab::format_table(report).c_str(), stdout);
  const std::string markdown = o.out + "/performance.md", chart = o.out + "/performance.svg";
  if (!write_file(markdown, lab::format_markdown(report, "performance.svg")) ||
      !write_file(chart, lab::format_svg(report))) {
    std::fprintf(stderr, "bench: cannot write %s and %s\n", markdown.c_str(), chart.c_str());
    return lab::kExitCannotRun;
  }
  std::printf("\nwrote %s and %s\n", markdown.c_str(), chart.c_str());
  int not_timed = 0;
  for (const lab::BenchGroup& g : report.groups) {
    for (const lab::BenchRow& row : g.rows) not_timed += row.status != lab::BenchRow::Status::kTimed;
  }
  if (not_timed > 0) {
    std::printf("bench: %d implementation%s not timed: see above\n", not_timed, not_timed == 1 ? "" : "s");
    return lab::kExitWrong;
  }
  return lab::kExitPass;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  const lab::DeviceInfo device = lab::open_device(
      "make bench needs a GPU: it times the labs' solutions and the vendor libraries on one, and the "
      "CPU backend's emulation says nothing about a GPU's speed.");
  std::vector<std::string> chosen;
  std::string scratch;
  if (!choose_labs(o, &chosen) || !make_folders(o, &scratch)) return lab::kExitCannotRun;
  const lab::BenchReport report = measure_all(o, device, chosen, scratch);
  std::error_code error;
  fs::remove_all(scratch, error);
  return publish(report, o);
}
