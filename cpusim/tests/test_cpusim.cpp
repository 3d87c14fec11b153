// Tests of cpusim, the CPU backend (cpusim/README.md). Each test runs a program
// of the suite (cpusim/tests/suite/, built by `make cpusim-suite` into build/cpu/cpusim-suite/) in its
// own process with a time limit, and checks its exit status and what it printed: results that a
// GPU prints too, and for the planted bugs, cpusim's (or the sanitizer's) report with the line.
// Runs from the repository root.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cpusim/launch_log.h"
#include "cpusim/tests/source_line.h"
#include "tools/subprocess.h"
#include "tools/text.h"

namespace {

std::string suite_dir() {
  const char* dir = std::getenv("CPUSIM_SUITE_DIR");
  return std::string(dir && *dir ? dir : "build/cpu/cpusim-suite") + "/";
}

using tools::contains;

// Runs a suite program. A ThreadSanitizer binary that cannot map its shadow memory on this
// kernel (high-entropy ASLR) is run again without address randomization.
tools::RunResult run(const std::string& program, const std::vector<std::string>& args = {},
                     const std::vector<std::string>& env = {}, double timeout_s = 60) {
  std::vector<std::string> argv{suite_dir() + program};
  argv.insert(argv.end(), args.begin(), args.end());
  tools::RunOptions options;
  options.timeout_s = timeout_s;
  options.env = env;
  tools::RunResult r = tools::run_command(argv, options);
  if (contains(r.output, "ThreadSanitizer: unexpected memory mapping")) {
    argv.insert(argv.begin(), {"setarch", "-R"});
    r = tools::run_command(argv, options);
  }
  return r;
}

tools::RunResult cpucc(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv{"cpusim/cpucc"};
  argv.insert(argv.end(), args.begin(), args.end());
  tools::RunOptions options;
  options.timeout_s = 120;
  options.env = env;
  return tools::run_command(argv, options);
}

using cpusim_test::line_of;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string temp_dir() {
  char pattern[] = "/tmp/test_cpusim.XXXXXX";
  const char* dir = mkdtemp(pattern);
  return dir ? dir : "/tmp";
}

#define CHECK_RUN(result, condition) CHECK_MESSAGE((condition), (result).describe() << "\n" << (result).output)

// A suite program's run: how it must end and what it must print.
struct expected_run {
  std::string what;                  // the subcase's name
  std::string program;
  std::string ends;                  // as RunResult::describe() says it: "exit 1", "killed by SIGSEGV"
  std::vector<std::string> prints;   // each must occur in the output
  std::vector<std::string> env = {};
  double timeout_s = 60;
};

// Each case in a subcase of its own; a failure names the status or the text that is missing,
// then shows the whole output.
void check_runs(const std::vector<expected_run>& cases) {
  for (const expected_run& c : cases) {
    SUBCASE(c.what.c_str()) {
      const tools::RunResult r = run(c.program, {}, c.env, c.timeout_s);
      CHECK_MESSAGE(r.describe() == c.ends, c.program << ": " << r.describe() << ", expected " << c.ends << "\n" << r.output);
      for (const std::string& text : c.prints)
        CHECK_MESSAGE(contains(r.output, text), c.program << " did not print: " << text << "\n" << r.output);
    }
  }
}

}  // namespace

TEST_SUITE("cpusim") {
  TEST_CASE("the textbook programs print what a GPU prints") {
    struct expected {
      const char* program;
      const char* line;
    };
    const expected cases[] = {
        {"vector_add", "vector_add: ok 1024 elements\n"},
        {"matmul_shared", "matmul_shared: ok 96x80 * 80x64 checksum 114442\n"},
        {"warp_reduce", "warp_reduce: ok n=100000 sum=596\n"},
    };
    for (const expected& e : cases) {
      const std::string program = e.program;
      CAPTURE(program);
      const tools::RunResult r = run(e.program);
      CHECK_RUN(r, r.exited(0));
      CHECK_RUN(r, r.output == e.line);
    }
  }

  TEST_CASE("feature programs") {
    check_runs({
        {"indexing in 3-D", "indexing", "exit 0", {"indexing: ok grid (3,2,2) block (8,4,2) warpSize 32"}},
        {"static __shared__ is per block", "shared_static", "exit 0", {"shared_static: ok 64 blocks"}},
        {"dynamic shared memory, and 64 KB after cudaFuncSetAttribute", "shared_dynamic", "exit 0",
         {"shared_dynamic: ok small=1024 elements big=65536 bytes sum=134209536"}},
        {"barrier variants", "sync_variants", "exit 0", {"sync_variants: count=100 and=0,1 or=1,0 syncwarp=ok"}},
        {"warp shuffles and votes", "warp_ops", "exit 0",
         {"warp_ops: shfl_int: 30 30 30 30 30 30 30\n",
          "warp_ops: shfl_up_unsigned: 0 3 8 13 18 23 28\n",
          "warp_ops: shfl_down_float: 2 4 7 9 12 14 15\n",
          "warp_ops: shfl_xor_double_x10: 20 80 220 280 420 480 620\n",
          "warp_ops: shfl_longlong: 31 31 31 31 31 31 31\n",
          "warp_ops: shfl_down_width8: 1 6 11 15 21 26 31\n",
          "warp_ops: shfl_width8: 2 2 10 10 18 26 26\n",
          "warp_ops: ballot: 1227133513 1227133513\n",
          "warp_ops: any: 1 1\n",
          "warp_ops: all: 0 0\n",
          "warp_ops: activemask_even: 1431655765 0\n",
          "warp_ops: ballot_low16: 4369 0\n"}},
        {"atomics", "atomics", "exit 0",
         {"atomics: int add=523776 sub=-1024 min=-523 max=523 exch=1 cas_won=1\n",
          "atomics: unsigned add=2048 sub=8976 min=7 max=3069\n",
          "atomics: ull add=8796093022208 max=1124800395214848 cas=5\n",
          "atomics: float add=512.0 exch=2.0 max via CAS=255.75 double add=256.00\n"}},
        {"vector types", "vector_types", "exit 0", {"vector_types: ok float4 16/16 int2 8/8 checksum 69632"}},
        {"math functions", "math_funcs", "exit 0",
         {"math_funcs: 2.688 0.6875 1.5 0.6667 0.75 2.25 0.75 2.117 2.117 0.75 2.25 -4 4 2.25 2.859 5.5\n",
          "math_funcs: bits 0x3f800000 popc=8 clz=31 ffs=4\n"}},
        {"template kernels, deduced and explicit, from headers and pointers", "templates", "exit 0",
         {"templates: ok float x[7]=172 int x[7]=-172"}},
        {"runtime API", "runtime_api", "exit 0",
         {"cc=9.0 warpSize=32 maxThreadsPerBlock=1024 smem=49152 optin=232448 "
          "maxThreadsDim=(1024,1024,64) maxGridSize=(2147483647,65535,65535)",
          "cudaErrorInvalidConfiguration \"invalid configuration argument\"",
          "copies h[4095]=4095 constant 103 105 107 109 counter=100",
          "stream result h[10]=6.0 elapsed>=0:1",
          "mistakes: copy past the end=cudaErrorInvalidValue, swapped copy=cudaErrorInvalidValue, "
          "free of a host pointer=cudaErrorInvalidValue, unrecorded event=cudaErrorInvalidResourceHandle",
          "runtime_api: done, last error cudaSuccess"}},
        {"device printf", "printf_kernel", "exit 0",
         {"printf_kernel: thread 0 of block 0 says 40\nprintf_kernel: thread 1 of block 0 says 41\n"
          "printf_kernel: thread 2 of block 0 says 42\nprintf_kernel: thread 3 of block 0 says 43\n"
          "printf_kernel: done\n"}},
        {"a .cu and a .cpp file compiled apart and linked", "host_main", "exit 0",
         {"host_main: ok saxpy 777 elements, launch cudaSuccess"}},
        {"memory nobody wrote reads as NaN", "uninitialized", "exit 0",
         {"uninitialized: global sum is NaN, shared sum is NaN"}},
    });
  }

  TEST_CASE("results do not depend on the schedule or the number of OS threads") {
    const std::string reference = run("matmul_shared").output;
    CHECK(contains(reference, "matmul_shared: ok"));
    for (const std::string schedule : {"forward", "reverse", "alternate", "random:7", "random:12345"})
      for (const std::string threads : {"1", "2", "3"}) {
        CAPTURE(schedule);
        CAPTURE(threads);
        const tools::RunResult r = run("matmul_shared", {}, {"CPUSIM_SCHEDULE=" + schedule, "CPUSIM_THREADS=" + threads});
        CHECK_RUN(r, r.exited(0) && r.output == reference);
      }
    const tools::RunResult warps = run("warp_ops", {}, {"CPUSIM_SCHEDULE=reverse"});
    CHECK_RUN(warps, warps.exited(0) && warps.output == run("warp_ops").output);
  }

  TEST_CASE("a missing __syncthreads shows as schedules that disagree") {
    const tools::RunResult forward = run("missing_barrier", {}, {"CPUSIM_SCHEDULE=forward"});
    const tools::RunResult reverse = run("missing_barrier", {}, {"CPUSIM_SCHEDULE=reverse"});
    CHECK_RUN(forward, forward.exited(1) && contains(forward.output, "missing_barrier: WRONG"));
    CHECK_RUN(reverse, reverse.exited(1) && contains(reverse.output, "missing_barrier: WRONG"));
    CHECK_MESSAGE(forward.output != reverse.output, "forward and reverse agree:\n" << forward.output);
    // Both orders in one run, block by block: wrong, and wrong unlike either.
    const tools::RunResult alternate = run("missing_barrier", {}, {"CPUSIM_SCHEDULE=alternate"});
    CHECK_RUN(alternate, alternate.exited(1) && contains(alternate.output, "missing_barrier: WRONG"));
    CHECK(alternate.output != forward.output);
    CHECK(alternate.output != reverse.output);
  }

  TEST_CASE("barrier and warp bugs are reported with their lines") {
    check_runs({
        {"divergent barrier", "divergent_barrier", "exit 1",
         {"cpusim: error: kernel 'divergent_barrier_kernel' block (0,0,0): threads wait at different barriers",
          line_of("cpusim/tests/suite/divergent_barrier.cu", "the lower half waits here"),
          line_of("cpusim/tests/suite/divergent_barrier.cu", "the upper half waits here"),
          line_of("cpusim/tests/suite/divergent_barrier.cu", "CUDA_CHECK(cudaDeviceSynchronize())") +
              ": cudaDeviceSynchronize() failed: cudaErrorLaunchFailure"}},
        {"a return before a barrier", "early_return_barrier", "exit 1",
         {"kernel 'early_return_kernel' block (1,0,0): 72 threads wait at __syncthreads() at " +
              line_of("cpusim/tests/suite/early_return_barrier.cu", "__syncthreads();"),
          "thread (72,0,0) has exited the kernel: it returned at " +
              line_of("cpusim/tests/suite/early_return_barrier.cu", "if (i >= n) return;")}},
        {"a warp mask naming lanes that exited", "warp_mask_exited", "exit 1",
         {"waits at __shfl_down_sync(0xffffffff) at " + line_of("cpusim/tests/suite/warp_mask_exited.cu", "__shfl_down_sync"),
          "lane 16, thread (16,0,0), has exited the kernel: it returned at " +
              line_of("cpusim/tests/suite/warp_mask_exited.cu", "if (lane >= n) return;")}},
        {"a spin-wait on another thread ends with the watchdog, not a hang", "spin_wait", "exit 124",
         {"cpusim: error: kernel 'spin_wait_kernel'", "has run for 1 s (CPUSIM_TIMEOUT_S)"},
         {"CPUSIM_TIMEOUT_S=1"}, 30},
    });
  }

  TEST_CASE("launch configurations beyond CUDA's limits fail at the launch with cudaErrorInvalidValue, as CUDA 13 does") {
    const tools::RunResult r = run("too_many_threads");
    CHECK_RUN(r, r.exited(0));
    for (const std::string what : {"block (2048,1,1)", "block (32,32,2)", "block (1,1,65)", "block (0,1,1)",
                                   "grid (1,65536,1)", "grid (0,1,1)"}) {
      CAPTURE(what);
      const std::string line = "too_many_threads: " + what;
      const size_t at = r.output.find(line);
      REQUIRE_MESSAGE(at != std::string::npos, r.output);
      const std::string rest = r.output.substr(at, r.output.find('\n', at) - at);
      CHECK_MESSAGE(contains(rest, "-> cudaErrorInvalidValue, then cudaSuccess, kernel ran: no"), rest);
    }
    CHECK_RUN(r, contains(r.output, "block (1024,1,1) valid -> cudaSuccess, then cudaSuccess, kernel ran: yes"));
    CHECK_RUN(r, contains(r.output, "cpusim: launch of 'mark_kernel' at cpusim/tests/suite/too_many_threads.cu:"));
    CHECK_RUN(r, contains(r.output, "block (2048,1,1) has 2048 threads; a block has at most 1024 (cudaErrorInvalidValue)"));
  }

  // docs/results/cpusim-error-semantics-h100.log holds what the program printed on an H100; cpusim
  // must print the same lines (its own cpusim: reports aside).
  TEST_CASE("which call reports which error: the lines an H100 printed") {
    const std::string log = read_file("docs/results/cpusim-error-semantics-h100.log");
    const size_t from = log.find("== error_semantics\n");
    REQUIRE_MESSAGE(from != std::string::npos, "no error_semantics section in the H100 log");
    std::string expected;
    std::istringstream gpu(log.substr(from));
    for (std::string line; std::getline(gpu, line) && line.rfind("exit ", 0) != 0;)
      if (line.rfind("error_semantics: ", 0) == 0) expected += line + "\n";
    REQUIRE(contains(expected, "error_semantics: failed assert -> get cudaSuccess"));

    const tools::RunResult r = run("error_semantics");
    CHECK_RUN(r, r.exited(0));
    std::string printed;
    std::istringstream cpu(r.output);
    for (std::string line; std::getline(cpu, line);)
      if (line.rfind("error_semantics: ", 0) == 0) printed += line + "\n";
    CHECK_MESSAGE(printed == expected, "cpusim printed:\n" << printed << "the H100 printed:\n" << expected);
    CHECK_RUN(r, contains(r.output, line_of("cpusim/tests/suite/error_semantics.cu", "assert(v < 0)") +
                                        ": void assert_kernel(int): block: [0,0,0], thread: [0,0,0] Assertion `v < 0` failed."));
  }

  TEST_CASE("shared memory limits") {
    check_runs({
        {"dynamic shared memory above 48 KB needs cudaFuncSetAttribute", "big_dynamic_smem", "exit 0",
         {"big_dynamic_smem: without the attribute: cudaErrorInvalidValue\n",
          "big_dynamic_smem: with the attribute: cudaSuccess\n", "big_dynamic_smem: result 127\n"}},
        {"more than 48 KB of static shared memory", "static_smem_too_big", "exit 1",
         {"static shared memory reaches 65536 bytes with __shared__ 'b' (32768 bytes, declared at " +
              line_of("cpusim/tests/suite/compile_fail/static_smem_too_big.cu", "__shared__ float b"),
          // A launch error, as a GPU's "too many resources" is: reported once, not sticky.
          "static_smem_too_big: launch cudaErrorLaunchOutOfResources, then cudaDeviceSynchronize cudaSuccess"}},
    });
  }

  TEST_CASE("faults in kernels") {
    check_runs({
        {"a failed assert, and the sticky error after it", "assert_fail", "exit 1",
         {line_of("cpusim/tests/suite/assert_fail.cu", "assert(v < 40)") +
              ": void assert_kernel(const int *): block: [0,0,0], thread: [50,0,0] Assertion `v < 40` failed.",
          "cpusim: error: assertion `v < 40` failed in kernel 'assert_kernel' block (0,0,0) thread (50,0,0)",
          "assert_fail: cudaDeviceSynchronize cudaErrorAssert, then cudaMalloc cudaErrorAssert, "
          "cudaGetLastError cudaErrorAssert and cudaSuccess"}},
        {"a C++ exception", "kernel_exception", "exit 1",
         {"kernel 'throwing_kernel' block (0,0,0) thread (11,0,0) threw a C++ exception: negative input",
          "kernel_exception: cudaErrorLaunchFailure"}},
        {"a null pointer", "crash_null", "killed by SIGSEGV",
         {"cpusim: kernel 'crash_kernel' crashed with SIGSEGV in block (0,0,0) thread (5,0,0)", "-fsanitize=address"}},
        {"a stack overflow", "stack_overflow", "killed by SIGSEGV",
         {"kernel 'recursion_kernel' crashed with SIGSEGV in block (0,0,0) thread (0,0,0)", "stack overflow"}},
        {"a host pointer passed to a kernel", "host_pointer_arg", "exit 1",
         {"launch of 'scale_kernel' at " + line_of("cpusim/tests/suite/host_pointer_arg.cu", "BUG: should be d") + ": argument 1",
          // As on a GPU, the fault is not a launch error: cudaDeviceSynchronize reports it.
          line_of("cpusim/tests/suite/host_pointer_arg.cu", "CUDA_CHECK(cudaDeviceSynchronize())") +
              ": cudaDeviceSynchronize() failed: cudaErrorIllegalAddress"}},
        // An x86 CPU loads 16 bytes from any address; a GPU faults, and so does cpusim.
        {"a float4 load one float past alignment", "misaligned_float4", "exit 0",
         {"misaligned_float4: a: cudaSuccess\n",
          "cpusim: error: misaligned address in kernel 'sum4_kernel' block (0,0,0) thread (0,0,0) at " +
              line_of("cpusim/tests/suite/misaligned_float4.cu", "BUG") + ": an access to 'const struct float4' at 0x",
          "which is not a multiple of its 16 bytes (on a GPU: cudaErrorMisalignedAddress)",
          "misaligned_float4: a + 1: cudaErrorMisalignedAddress\n"}},
    });
  }

  TEST_CASE("AddressSanitizer flavor") {
    SUBCASE("one past the end of a cudaMalloc'd buffer") {
      const tools::RunResult r = run("oob_global.asan");
      CHECK_RUN(r, !r.exited(0));
      CHECK_RUN(r, contains(r.output, "ERROR: AddressSanitizer: heap-buffer-overflow"));
      CHECK_RUN(r, contains(r.output, "in oob_global_kernel(float*, int) " + line_of("cpusim/tests/suite/oob_global.cu", "BUG")));
      CHECK_RUN(r, contains(r.output, "cpusim: the invalid access above was made by kernel 'oob_global_kernel' block (3,0,0) thread (232,0,0)"));
    }
    SUBCASE("a shared-memory index out of range") {
      const tools::RunResult r = run("oob_shared.asan");
      CHECK_RUN(r, !r.exited(0));
      CHECK_RUN(r, contains(r.output, "ERROR: AddressSanitizer"));
      CHECK_RUN(r, contains(r.output, line_of("cpusim/tests/suite/oob_shared.cu", "BUG")));
      CHECK_RUN(r, contains(r.output, "thread (127,0,0)"));
      CHECK_RUN(r, contains(r.output, "it is outside __shared__ array 'tile' (512 bytes, declared at " +
                                          line_of("cpusim/tests/suite/oob_shared.cu", "__shared__ float tile") + "), at byte offset 512"));
    }
    SUBCASE("a correct program is clean") {
      const tools::RunResult r = run("vector_add.asan");
      CHECK_RUN(r, r.exited(0) && r.output == "vector_add: ok 1024 elements\n");
    }
  }

  TEST_CASE("ThreadSanitizer flavor") {
    SUBCASE("a race between blocks on a global counter") {
      const tools::RunResult r = run("race_blocks.tsan", {}, {"CPUSIM_THREADS=1"});
      CHECK_RUN(r, contains(r.output, "WARNING: ThreadSanitizer: data race"));
      CHECK_RUN(r, contains(r.output, "count_kernel(int*, bool) " + line_of("cpusim/tests/suite/race_blocks.cu", "BUG")));
      CHECK_RUN(r, contains(r.output, "'CUDA block (1,0,0) thread (0,0,0)'"));
      const tools::RunResult two = run("race_blocks.tsan", {}, {"CPUSIM_THREADS=2"});
      CHECK_RUN(two, contains(two.output, "WARNING: ThreadSanitizer: data race"));
    }
    SUBCASE("the same counter with atomicAdd is race-free") {
      const tools::RunResult r = run("race_blocks.tsan", {"atomic"});
      CHECK_RUN(r, r.exited(0) && r.output == "race_blocks: atomicAdd count=8 (expected 8)\n");
    }
    SUBCASE("a missing barrier is a race on shared memory") {
      const tools::RunResult r = run("missing_barrier.tsan");
      CHECK_RUN(r, contains(r.output, "WARNING: ThreadSanitizer: data race"));
      CHECK_RUN(r, contains(r.output, "matmul_missing_barrier_kernel(float const*, float const*, float*, int) cpusim/tests/suite/missing_barrier.cu:"));
    }
    SUBCASE("barriers, warp shuffles and atomics order the threads: no false reports") {
      for (const std::string program : {"matmul_shared.tsan", "warp_reduce.tsan"}) {
        CAPTURE(program);
        const tools::RunResult r = run(program, {}, {}, 120);
        CHECK_RUN(r, r.exited(0) && !contains(r.output, "ThreadSanitizer"));
      }
    }
  }

  TEST_CASE("launch log") {
    const std::string log = temp_dir() + "/launches.log";
    const tools::RunResult a = run("matmul_shared", {}, {"CPUSIM_LAUNCH_LOG=" + log});
    const tools::RunResult b = run("big_dynamic_smem", {}, {"CPUSIM_LAUNCH_LOG=" + log});
    CHECK_RUN(a, a.exited(0));
    CHECK_RUN(b, b.exited(0));
    const std::string text = read_file(log);
    CHECK_MESSAGE(contains(text, "kernel=matmul_shared_kernel grid=4,6,1 block=16,16,1 dynamic_smem=0 static_smem=2048 site=" +
                                     line_of("cpusim/tests/suite/matmul_shared.cu", "matmul_shared_kernel<<<") + " status=cudaSuccess\n"),
                  text);
    CHECK_MESSAGE(contains(text, "kernel=big_smem_kernel grid=1,1,1 block=128,1,1 dynamic_smem=65536 static_smem=0 site=cpusim/tests/suite/big_dynamic_smem.cu:"),
                  text);
    CHECK_MESSAGE(contains(text, "status=cudaErrorInvalidValue\n"), text);
    std::remove(log.c_str());
  }

  // The counts of cpusim/tests/suite/access_patterns.cu, each derived there by hand.
  TEST_CASE("the count flavor's model: global sectors and lines, shared wavefronts, per warp instruction") {
    const std::string log = temp_dir() + "/counts.log";
    const tools::RunResult r = run("access_patterns.count", {}, {"CPUSIM_LAUNCH_LOG=" + log});
    CHECK_RUN(r, r.exited(0));
    const std::vector<cpusim::log::Launch> launches = cpusim::log::read_launch_log(log);
    // A kernel's launch, and its instructions' counts of one space and kind, summed.
    auto kernel = [&](const std::string& name) {
      for (const cpusim::log::Launch& l : launches)
        if (l.text("kernel") == name) return l;
      FAIL_CHECK("no launch of " << name);
      return cpusim::log::Launch{};
    };
    using v = std::vector<double>;
    auto summed = [](const cpusim::log::Launch& l, const std::string& space, const std::string& kind,
                     const std::vector<std::string>& fields) {
      v total(fields.size());
      for (const cpusim::log::Instruction& i : l.instructions)
        if (i.text("space") == space && i.text("kind") == kind)
          for (size_t f = 0; f < fields.size(); ++f) total[f] += i.number(fields[f]);
      return total;
    };
    // requests, sectors, the fewest sectors that hold the bytes, 128-byte lines, distinct bytes
    auto global = [&](const std::string& name, const std::string& kind) {
      return summed(kernel(name), "global", kind, {"requests", "sectors", "ideal_sectors", "lines", "bytes"});
    };
    CHECK(global("stride1_kernel", "load") == v{1, 4, 4, 1, 128});
    CHECK(global("stride1_kernel", "store") == v{1, 4, 4, 1, 128});
    CHECK(global("stride32_kernel", "load") == v{1, 32, 4, 32, 128});
    CHECK(global("broadcast_kernel", "load") == v{1, 1, 1, 1, 4});
    CHECK(global("float4_kernel", "load") == v{1, 16, 16, 4, 512});
    CHECK(global("float4_kernel", "store") == v{1, 16, 16, 4, 512});
    // A warp of 32 lanes and one of 16: 4 sectors and 2.
    CHECK(global("partial_warp_kernel", "load") == v{2, 6, 6, 2, 192});
    // Sixteen lanes' atomics on one address: one request; its own load and store are not counted.
    CHECK(kernel("atomic_kernel").number("atomic_threads") == 16);
    CHECK(global("atomic_kernel", "load") == v{1, 2, 2, 1, 64});
    CHECK(kernel("atomic_kernel").number("global_store_requests") == 0);
    // The distinct sectors touched, the DRAM estimate: 128 bytes read, 128 written.
    CHECK(kernel("stride1_kernel").number("touched_bytes") == 256);

    // requests, wavefronts, the conflict-free ideal
    auto shared = [&](const std::string& name, const std::string& kind) {
      return summed(kernel(name), "shared", kind, {"requests", "wavefronts", "ideal_wavefronts"});
    };
    CHECK(shared("shared_stride_kernel<1>", "load") == v{1, 1, 1});
    CHECK(shared("shared_stride_kernel<2>", "load") == v{1, 2, 1});    // 2-way conflict
    CHECK(shared("shared_stride_kernel<32>", "load") == v{1, 32, 1});  // 32-way conflict
    CHECK(shared("shared_stride_kernel<0>", "load") == v{1, 1, 1});    // a broadcast
    CHECK(shared("shared_stride_kernel<33>", "load") == v{1, 1, 1});   // a column of a padded tile
    CHECK(shared("shared_stride_kernel<33>", "store") == v{33, 33, 33});
    CHECK(shared("shared_float4_kernel<false>", "load") == v{1, 4, 4});  // half a warp at a time
    CHECK(shared("shared_float4_kernel<true>", "load") == v{1, 2, 2});   // one float4 for all

    // Each instruction's drawn request (make profile's page): the first warp's, each lane as
    // lane:offset:bytes from the start of its allocation or of the block's shared memory.
    auto sample = [&](const std::string& name, const std::string& space, const std::string& kind) {
      for (const cpusim::log::Instruction& i : kernel(name).instructions)
        if (i.text("space") == space && i.text("kind") == kind) return i.text("sample_warp") + " " + i.text("sample");
      return std::string("none");
    };
    // "0 0:0:4,1:S:4,...": warp 0, lane i at offset STRIDE * i.
    auto lanes = [](int lanes, int stride, int bytes) {
      std::string s = "0 ";
      for (int i = 0; i < lanes; ++i) s += (i ? "," : "") + std::to_string(i) + ":" + std::to_string(stride * i) + ":" + std::to_string(bytes);
      return s;
    };
    CHECK(sample("stride1_kernel", "global", "load") == lanes(32, 4, 4));
    CHECK(sample("stride32_kernel", "global", "load") == lanes(32, 128, 4));
    CHECK(sample("float4_kernel", "global", "store") == lanes(32, 16, 16));
    CHECK(sample("partial_warp_kernel", "global", "load") == lanes(32, 4, 4));  // warp 0, not the partial one
    CHECK(sample("shared_stride_kernel<32>", "shared", "load") == lanes(32, 128, 4));  // every lane in bank 0
    CHECK(sample("shared_stride_kernel<33>", "shared", "load") == lanes(32, 132, 4));  // one lane per bank
    CHECK(sample("shared_stride_kernel<0>", "shared", "load") == lanes(32, 0, 4));
    // Each instruction names where its code is, for addr2line (make profile maps them to lines:
    // tests/grading/test_profile_report.cpp).
    for (const cpusim::log::Launch& l : launches)
      for (const cpusim::log::Instruction& i : l.instructions) {
        CHECK(i.text("offset").rfind("0x", 0) == 0);
        CHECK(contains(i.text("object"), "access_patterns.count"));
      }
    std::remove(log.c_str());
  }

  TEST_CASE("copies between host and device are counted; device-to-device ones, by kind or by pointer, are not") {
    const tools::RunResult r = run("copy_counts");
    CHECK_RUN(r, r.exited(0));
    CHECK(r.output ==
          "start 0\nhost_to_device 1\ndevice_to_device 1\ndefault_device_to_device 1\ndefault_device_to_host 2\n"
          "to_symbol_from_host 3\nto_symbol_from_device 3\nfrom_symbol_default_to_device 3\nfrom_symbol_to_host 4\n");
  }

  TEST_CASE("cpucc") {
    const std::string out = temp_dir() + "/a.out";
    SUBCASE("bad usage exits 2 with a usage line") {
      for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
               {}, {"--frobnicate", "cpusim/tests/suite/vector_add.cu"}, {"cpusim/tests/suite/no_such_file.cu", "-o", out},
               {"-o", out}, {"README"}}) {
        const tools::RunResult r = cpucc(args);
        CHECK_RUN(r, r.exited(2) && contains(r.output, "usage: cpucc"));
      }
    }
    SUBCASE("missing Boost.Context is named, with the fix") {
      const tools::RunResult r = cpucc({"cpusim/tests/suite/vector_add.cu", "-o", out}, {"CPUCC_CXX=/bin/echo"});
      CHECK_RUN(r, r.exited(2) && contains(r.output, "Boost.Context") && contains(r.output, "scripts/install-deps"));
    }
    SUBCASE("compile errors point at the original line") {
      const tools::RunResult r = cpucc({"cpusim/tests/suite/compile_fail/compile_error.cu", "-o", out});
      CHECK_RUN(r, r.exited(1));
      CHECK_RUN(r, contains(r.output, line_of("cpusim/tests/suite/compile_fail/compile_error.cu", "int not_a_pointer = message;") + ":"));
    }
    SUBCASE("features that need a GPU are rejected at compile time") {
      struct reject {
        const char* file;
        std::string message;
      };
      const reject cases[] = {
          {"cpusim/tests/suite/compile_fail/reject_cublas.cu", "cuBLAS needs a GPU: the CPU backend (cpusim) cannot run it"},
          {"cpusim/tests/suite/compile_fail/reject_texture.cu", "needs a GPU: the CPU backend (cpusim) cannot run it"},
          {"cpusim/tests/suite/compile_fail/reject_asm.cu",
           line_of("cpusim/tests/suite/compile_fail/reject_asm.cu", "asm volatile") + ": error: inline assembly (asm) needs a GPU"},
          {"cpusim/tests/suite/compile_fail/reject_no_sanitize.cu",
           line_of("cpusim/tests/suite/compile_fail/reject_no_sanitize.cu", "no_sanitize(\"alignment\")") +
               ": error: 'no_sanitize' turns off a check of the CPU backend"},
          {"cpusim/tests/suite/compile_fail/reject_dynamic_parallelism.cu",
           line_of("cpusim/tests/suite/compile_fail/reject_dynamic_parallelism.cu", "child_kernel<<<") +
               ": error: launching a kernel from device code (dynamic parallelism) needs a GPU"},
      };
      for (const reject& c : cases) {
        const std::string file = c.file;
        CAPTURE(file);
        const tools::RunResult r = cpucc({c.file, "-o", out});
        CHECK_RUN(r, r.exited(1) && contains(r.output, c.message));
      }
    }
    SUBCASE("-c, -D and -I, and linking objects") {
      const std::string dir = temp_dir();
      const tools::RunResult k = cpucc({"-c", "cpusim/tests/suite/host_kernels.cu", "-o", dir + "/k.o"});
      const tools::RunResult m = cpucc({"-c", "-D", "UNUSED_MACRO=1", "-I", "cpusim/tests/suite", "cpusim/tests/suite/host_main.cpp", "-o", dir + "/m.o"});
      CHECK_RUN(k, k.exited(0));
      CHECK_RUN(m, m.exited(0));
      const tools::RunResult link = cpucc({dir + "/k.o", dir + "/m.o", "-o", dir + "/host"});
      CHECK_RUN(link, link.exited(0));
      const tools::RunResult r = tools::run_command({dir + "/host"});
      CHECK_RUN(r, r.exited(0) && contains(r.output, "host_main: ok saxpy 777 elements"));
    }
  }
}
