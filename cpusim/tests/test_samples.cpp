// Tests that programs written as cuda-samples and CUDA textbooks write them build with cpucc and
// run: the sample-style programs of cpusim/tests/samples/ (helper-header error checks, device
// query, a templated cooperative-groups reduction, votes, atomics, clock64 timing, the profiler
// API, the occupancy API, cooperative launches with grid barriers, tiles of several warps), built by `make cpusim-samples` into build/cpu/cpusim-samples/ twice: on their own, and
// with the CUDA Toolkit's include folder on the path where this machine has one. Each program
// checks its own results and exits 0 when they are right. Runs from the repository root.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cpusim/tests/source_line.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace {

namespace fs = std::filesystem;

const char* const kDir = "build/cpu/cpusim-samples/";
const std::vector<std::string> kSamples = {"error_checks", "device_query", "reduction_cg", "vote",
                                           "histogram_atomics", "clock_timing", "profiler", "occupancy",
                                           "grid_sync", "multi_warp_tiles"};

// The toolkit's include folder where the Makefile looks for it: beside the nvcc in PATH, else
// beside $CUDA_HOME/bin/nvcc (/usr/local/cuda); "" when it has no cuda_runtime_api.h.
std::string toolkit_include() {
  const tools::RunResult r = tools::run_command({"sh", "-c", "command -v nvcc"});
  const char* home = std::getenv("CUDA_HOME");
  const std::string nvcc = r.exited(0) ? tools::trim(r.output) : std::string(home && *home ? home : "/usr/local/cuda") + "/bin/nvcc";
  const fs::path include = fs::path(nvcc).parent_path().parent_path() / "include";
  std::error_code ec;
  return fs::exists(include / "cuda_runtime_api.h", ec) ? fs::canonical(include, ec).string() : "";
}
const std::string kToolkit = toolkit_include();

tools::RunResult run(const std::string& program, const std::vector<std::string>& args = {}) {
  std::vector<std::string> argv{program};
  argv.insert(argv.end(), args.begin(), args.end());
  tools::RunOptions options;
  options.timeout_s = 60;
  return tools::run_command(argv, options);
}

// The headers a make rule file (g++ -MD) names, each as its real path.
std::vector<std::string> headers_read(const std::string& dep_file) {
  std::ifstream in(dep_file);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::string> headers;
  std::istringstream words(text.str());
  for (std::string w; words >> w;) {
    if (w == "\\" || w.back() == ':') continue;
    std::error_code ec;
    const fs::path real = fs::canonical(w, ec);
    if (!ec) headers.push_back(real.string());
  }
  return headers;
}

}  // namespace

TEST_SUITE("cpusim samples") {

TEST_CASE("the sample-style programs build with cpucc alone, read no header of the CUDA Toolkit, and pass") {
  for (const std::string& name : kSamples) {
    CAPTURE(name);
    const std::string program = kDir + name;
    REQUIRE_MESSAGE(fs::exists(program), program, " is missing: run make cpusim-samples");
    const tools::RunResult r = run(program);
    CHECK_MESSAGE(r.exited(0), r.describe(), "\n", r.output);
    CHECK_MESSAGE((tools::contains(r.output, "PASS") && !tools::contains(r.output, "FAIL")), r.output);
    // This machine may have the toolkit's headers on the compiler's default path: every header
    // the build read must still be cpusim's or the system's.
    const std::vector<std::string> headers = headers_read(program + ".d");
    CHECK(headers.size() > 10);
    if (!kToolkit.empty()) {
      for (const std::string& h : headers) CHECK_MESSAGE(h.rfind(kToolkit + "/", 0) != 0, name, " read the toolkit's ", h);
    }
  }
}

TEST_CASE("with the CUDA Toolkit's include folder on the path (-I, or CPATH), they build and pass the same" *
          doctest::skip(kToolkit.empty())) {
  // Skipped without the toolkit's headers (no nvcc in PATH or CUDA_HOME): nothing to be beside.
  std::vector<std::string> names = kSamples;
  names.push_back("toolkit_headers");  // also uses cuComplex.h and math_constants.h, which only the toolkit has
  for (const std::string& name : names) {
    CAPTURE(name);
    const std::string program = kDir + std::string("with-toolkit/") + name;
    REQUIRE_MESSAGE(fs::exists(program), program, " is missing: run make cpusim-samples (the toolkit is at ", kToolkit, ")");
    const tools::RunResult r = run(program);
    CHECK_MESSAGE(r.exited(0), r.describe(), "\n", r.output);
    CHECK_MESSAGE((tools::contains(r.output, "PASS") && !tools::contains(r.output, "FAIL")), r.output);
  }
}

TEST_CASE("checkCudaErrors ends a sample at a failed call, naming the call, its line and the error") {
  const tools::RunResult r = run(kDir + std::string("error_checks"), {"--fail"});
  CHECK_MESSAGE(r.exited(1), r.describe(), "\n", r.output);
  CHECK_MESSAGE(tools::contains(r.output, cpusim_test::line_of("cpusim/tests/samples/error_checks.cu", "exits here") +
                                             ": cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost) failed: "
                                             "cudaErrorInvalidValue"),
                r.output);
}

TEST_CASE("a cooperative grid is resident at once: one more block than fit fails, and the blocks meet at grid barriers") {
  // The passing run (above) checks the barriers and cudaErrorCooperativeLaunchTooLarge on this
  // machine's multiprocessors (CPUSIM_THREADS); here on one, and on three in a random order.
  for (const char* env : {"CPUSIM_THREADS=1", "CPUSIM_THREADS=3 CPUSIM_SCHEDULE=random:7"}) {
    CAPTURE(env);
    const tools::RunResult r = tools::run_command({"sh", "-c", std::string(env) + " " + kDir + "grid_sync"});
    CHECK_MESSAGE(r.exited(0), r.describe(), "\n", r.output);
    CHECK_MESSAGE(tools::contains(r.output, "a grid too large for the device: PASS"), r.output);
    CHECK_MESSAGE(tools::contains(r.output, "this device holds"), r.output);  // cpusim says why it refused
  }
}

TEST_CASE("a grid barrier that cannot open is a fault that names the blocks, or the launch that is not cooperative") {
  const std::string file = "cpusim/tests/samples/grid_sync.cu";
  const tools::RunResult exits = run(kDir + std::string("grid_sync"), {"--block-exits"});
  CHECK_MESSAGE(exits.exited(1), exits.describe(), "\n", exits.output);
  CHECK_MESSAGE(tools::contains(exits.output, "waits at this_grid().sync() at " +
                                                 cpusim_test::line_of(file, "cg::this_grid().sync();")),
                exits.output);
  CHECK_MESSAGE(tools::contains(exits.output, "but block (1,0,0) has exited the kernel (its thread (0,0,0) returned at " +
                                                 cpusim_test::line_of(file, "planted: block 1 never reaches")),
                exits.output);
  CHECK_MESSAGE(tools::contains(exits.output, "cudaDeviceSynchronize() failed: cudaErrorLaunchFailure"), exits.output);
  const tools::RunResult plain = run(kDir + std::string("grid_sync"), {"--not-cooperative"});
  CHECK_MESSAGE(plain.exited(1), plain.describe(), "\n", plain.output);
  CHECK_MESSAGE(tools::contains(plain.output, "calls this_grid().sync() at " + cpusim_test::line_of(file, "before any block checks") +
                                                 " in a launch that is not cooperative"),
                plain.output);
}

TEST_CASE("a tile of several warps whose sync a thread skips is a fault; a shuffle outside its mask is a warning") {
  const std::string file = "cpusim/tests/samples/multi_warp_tiles.cu";
  const tools::RunResult r = run(kDir + std::string("multi_warp_tiles"), {"--tile-diverges"});
  CHECK_MESSAGE(r.exited(1), r.describe(), "\n", r.output);
  CHECK_MESSAGE(tools::contains(r.output, "waits at the sync of its tile of 64 threads (threads 64 to 127 of the block) at " +
                                             cpusim_test::line_of(file, "planted: thread 70 never arrives") +
                                             ", but thread (70,0,0) has exited the kernel"),
                r.output);
  const tools::RunResult w = run(kDir + std::string("multi_warp_tiles"), {"--outside-mask"});
  CHECK_MESSAGE(w.exited(0), w.describe(), "\n", w.output);
  CHECK_MESSAGE(tools::contains(w.output, "(lane 0): __shfl_down_sync(0x000000ff) at " +
                                             cpusim_test::line_of(file, "v += __shfl_down_sync(0xffu, v, offset)") +
                                             " reads lane 8, which is not in the mask"),
                w.output);
}

TEST_CASE("what cooperative groups and the launch API cannot do here stops the compile, saying what and why") {
  const fs::path dir = fs::temp_directory_path() / ("test_samples." + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string source = (dir / "cg_outside.cu").string();
  std::ofstream(source) << "#include <cooperative_groups.h>\n"
                           "namespace cg = cooperative_groups;\n"
                           "__global__ void coalesced_kernel() { cg::coalesced_threads(); }\n"
                           "__global__ void huge_kernel() { cg::tiled_partition<2048>(cg::this_thread_block()).sync(); }\n"
                           "__global__ void wide_kernel(int* x) {\n"
                           "  *x = cg::tiled_partition<64>(cg::this_thread_block()).shfl(*x, 0);\n"
                           "}\n"
                           "int main() {\n"
                           "  void* hidden = (void*)wide_kernel;\n"
                           "  cudaLaunchKernel(hidden, 1, 64, nullptr, 0, 0);\n"
                           "}\n";
  tools::RunOptions options;
  options.timeout_s = 120;
  const tools::RunResult r = tools::run_command({"cpusim/cpucc", source, "-o", (dir / "cg_outside").string()}, options);
  CHECK_MESSAGE(r.exited(1), r.describe(), "\n", r.output);
  CHECK_MESSAGE(tools::contains(r.output, "coalesced_threads() is not in the CPU backend's (cpusim) subset"), r.output);
  CHECK_MESSAGE(tools::contains(r.output, "tiled_partition<N>: N is a power of 2 up to 1024"), r.output);
  CHECK_MESSAGE(tools::contains(r.output, "a tile of more than 32 threads has no shuffles or votes (as in CUDA)"), r.output);
  CHECK_MESSAGE(tools::contains(r.output, "cudaLaunchKernel: the CPU backend (cpusim) needs the kernel itself as the first "
                                         "argument (its name, cast to void* or not)"),
                r.output);
  fs::remove_all(dir);
}

}  // TEST_SUITE
