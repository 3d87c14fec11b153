// Faults inside kernels and how they are reported: every report names the kernel, the block and
// the thread, on stderr lines that start with "cpusim:". A fault fails the block's launch with a
// sticky error, as it would on a GPU (too much shared memory fails only that launch: launch.cpp);
// a crash (SIGSEGV...) ends the process with its signal.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "internal.h"
#include "sanitizer.h"

namespace cpusim::detail {

bool same_site(call_site a, call_site b) {
  return a.line == b.line && (a.file == b.file || (a.file && b.file && std::strcmp(a.file, b.file) == 0));
}

std::string where(call_site s) { return std::string(s.file ? s.file : "?") + ":" + std::to_string(s.line); }

void report(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += "cpusim: " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  fflush(stdout);  // keep the kernel's printf output ahead of the report
  fwrite(out.data(), 1, out.size(), stderr);
}

std::string describe_thread(const uint3& t) {
  return "(" + std::to_string(t.x) + "," + std::to_string(t.y) + "," + std::to_string(t.z) + ")";
}

std::string kernel_and_block(const block_context& b) {
  return "kernel '" + std::string(b.launch->site.name) + "' block " + describe_thread(b.index);
}

void fault_in_block(block_context& b, cudaError_t error, const std::string& text) {
  if (b.fault == cudaSuccess) b.fault = error;
  int none = cudaSuccess;
  // Only the launch's first fault is reported, so blocks failing in parallel print one story.
  if (b.launch->error.compare_exchange_strong(none, error)) report(text);
}

[[noreturn]] void fault_in_thread(cudaError_t error, const std::string& text) {
  thread_slot* t = current_thread;
  if (t == nullptr) {
    report(text);
    std::abort();
  }
  fault_in_block(*current_block, error, text);
  t->state = thread_state::abandoned;
  yield_to_scheduler(*t);
  std::abort();  // an abandoned fiber is never resumed
}

// ---- misaligned accesses ----
// cpucc compiles kernels with GCC's -fsanitize=alignment, which checks every typed access through
// a pointer and calls this function when the address is not a multiple of the type's alignment.
// A GPU faults on such an access (a float4 load from a + 1: cudaErrorMisalignedAddress); an x86
// CPU does not, so without the check a kernel wrong on every GPU would pass here. cpucc does not
// link libubsan: this is its handler, with the layout GCC passes (libubsan's TypeMismatchData, v1).
namespace {
struct ubsan_location {
  const char* file;
  uint32_t line, column;
};
struct ubsan_type {
  uint16_t kind, info;
  char name[1];  // the type's spelling, as long as it is
};
struct ubsan_type_mismatch {
  ubsan_location where;
  const ubsan_type* type;
  unsigned char log_alignment, check_kind;
};
}  // namespace

}  // namespace cpusim::detail

extern "C" void __ubsan_handle_type_mismatch_v1(void* data, void* pointer) {
  using namespace cpusim::detail;
  // Host code (the launcher, the harness) runs on the CPU as it does beside a GPU: no fault there.
  if (current_thread == nullptr || current_block == nullptr) return;
  const auto& d = *static_cast<const ubsan_type_mismatch*>(data);
  const size_t alignment = size_t(1) << d.log_alignment;
  char address[32];
  snprintf(address, sizeof address, "%p", pointer);
  fault_in_thread(cudaErrorMisalignedAddress,
                  "error: misaligned address in " + kernel_and_block(*current_block) + " thread " +
                      describe_thread(current_thread->index) + " at " + where({d.where.file, int(d.where.line)}) +
                      ": an access to " + d.type->name + " at " + address + ", which is not a multiple of its " +
                      std::to_string(alignment) + " bytes (on a GPU: cudaErrorMisalignedAddress)");
}

namespace cpusim::detail {

// ---- crashes ----
namespace {

struct sigaction previous[NSIG];
const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

void on_crash(int sig, siginfo_t* info, void* context) {
  thread_slot* t = current_thread;
  block_context* b = current_block;
  if (t != nullptr && b != nullptr) {
    const char* address = static_cast<const char*>(info->si_addr);
    const long page = sysconf(_SC_PAGESIZE);
    const bool overflow = address >= t->stack.base - page && address < t->stack.base;
    const char* name = sigabbrev_np(sig);
    char hint[256];
    if (overflow)
      snprintf(hint, sizeof hint,
               "stack overflow: each CUDA thread has a %zu KB stack (CPUSIM_STACK_KB); large local arrays or deep"
               " recursion exceed it",
               config().stack_bytes / 1024);
    else if (sig == SIGFPE)
      snprintf(hint, sizeof hint, "an integer division by zero? (on a GPU it gives an undefined value instead)");
    else if (san::asan)
      snprintf(hint, sizeof hint, "an invalid address (on a GPU: cudaErrorIllegalAddress); AddressSanitizer says where:");
    else
      snprintf(hint, sizeof hint,
               "hint: rebuild with cpucc -fsanitize=address to see the faulting source line (on a GPU:"
               " cudaErrorIllegalAddress)");
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "cpusim: kernel '%s' crashed with SIG%s in block (%u,%u,%u) thread (%u,%u,%u)\ncpusim: %s\n",
                     b->launch->site.name, name ? name : "?", b->index.x, b->index.y, b->index.z, t->index.x,
                     t->index.y, t->index.z, hint);
    if (n > 0) (void)!write(STDERR_FILENO, text, size_t(n) < sizeof text ? size_t(n) : sizeof text - 1);
    const struct rlimit no_core = {0, 0};  // the report says it all; a core of the emulator would not
    setrlimit(RLIMIT_CORE, &no_core);
  }
  // Hand over to whoever handled the signal before (AddressSanitizer), or die by it.
  const struct sigaction& p = previous[sig];
  if ((p.sa_flags & SA_SIGINFO) && p.sa_sigaction != nullptr) {
    p.sa_sigaction(sig, info, context);
  } else if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN) {
    p.sa_handler(sig);
  } else {
    signal(sig, SIG_DFL);  // the faulting instruction runs again and the process dies by sig
  }
}

#if defined(CPUSIM_ASAN)
// Runs after AddressSanitizer's report: says which CUDA thread made the access and, when it
// lies next to a __shared__ array, which array.
void on_asan_report() {
  thread_slot* t = current_thread;
  block_context* b = current_block;
  if (t == nullptr || b == nullptr) return;
  std::string text = "the invalid access above was made by " + kernel_and_block(*b) + " thread " + describe_thread(t->index);
  const char* address = static_cast<const char*>(__asan_get_report_address());
  for (const shared_region& r : b->shared) {
    if (address >= r.data - 64 && address < r.data + r.size + 64) {
      text += "\nit is outside " + std::string(r.site ? "__shared__ array '" : "") + r.name + (r.site ? "'" : "") + " (" +
              std::to_string(r.size) + " bytes" + (r.site ? ", declared at " + where(r.declared) : "") +
              "), at byte offset " + std::to_string(address - r.data) + ": an index out of range";
      break;
    }
  }
  report(text);
}
#endif

}  // namespace

void install_crash_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : crash_signals) {
      struct sigaction action {};
      action.sa_sigaction = on_crash;
      action.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigemptyset(&action.sa_mask);
      sigaction(sig, &action, &previous[sig]);
    }
#if defined(CPUSIM_ASAN)
    __sanitizer_set_death_callback(on_asan_report);
#endif
  });
  // The handler must run on its own stack: a fiber stack that overflowed has no room left.
  static thread_local bool has_alt_stack = false;
  if (!has_alt_stack) {
    stack_t current{};
    sigaltstack(nullptr, &current);
    if (current.ss_flags & SS_DISABLE) {
      stack_t alt{};
      alt.ss_size = 64 * 1024;
      alt.ss_sp = std::malloc(alt.ss_size);
      sigaltstack(&alt, nullptr);
    }
    has_alt_stack = true;
  }
}

// ---- watchdog: a kernel that never reaches a barrier again (an endless loop, or a spin-wait on
// another thread of its block, which on fibers never gets to run) would hang the process ----
namespace {
std::atomic<const launch_state*> watched{nullptr};
std::atomic<long long> watched_since{0};

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void watchdog_arm(const launch_state* launch) {
  watched_since = now_ms();
  watched = launch;
  static std::once_flag once;
  if (launch == nullptr || config().timeout_s <= 0) return;
  std::call_once(once, [] {
    std::thread([] {
      for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        const launch_state* l = watched.load();
        const double seconds = (now_ms() - watched_since.load()) / 1000.0;
        if (l == nullptr || seconds < config().timeout_s) continue;
        report("error: kernel '" + std::string(l->site.name) + "' (launched at " + where({l->site.file, l->site.line}) +
               ") has run for " + std::to_string(int(seconds)) +
               " s (CPUSIM_TIMEOUT_S).\n"
               "  An endless loop, or a thread that spins waiting for another thread: cpusim switches threads only\n"
               "  at barriers and warp operations, so a spin-wait never lets the other thread run.");
        std::_Exit(124);
      }
    }).detach();
  });
}

}  // namespace cpusim::detail

namespace {

// The kernel's signature as nvcc spells it in an assert message: g++ writes "const int*", nvcc
// "const int *" (docs/results/cpusim-suite-h100.log, assert_fail).
std::string nvcc_signature(const char* function) {
  std::string out;
  for (const char* c = function; *c; ++c) {
    const bool starts_run = (*c == '*' || *c == '&') && c != function;
    if (starts_run && c[-1] != ' ' && c[-1] != '(' && c[-1] != '*' && c[-1] != '&') out += ' ';
    out += *c;
  }
  return out;
}

}  // namespace

// A failed assert in a kernel fails the launch with cudaErrorAssert, after printing what a GPU
// prints; elsewhere it behaves as glibc's. glibc's assert() calls this function.
extern "C" void __assert_fail(const char* expr, const char* file, unsigned int line, const char* function) noexcept {
  using namespace cpusim::detail;
  thread_slot* t = current_thread;
  if (t == nullptr) {
    fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file, line, function, expr);
    std::abort();
  }
  block_context& b = *current_block;
  fflush(stdout);
  if (b.launch->error.load() == cudaSuccess)
    fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line,
            nvcc_signature(function).c_str(), b.index.x, b.index.y, b.index.z, t->index.x, t->index.y, t->index.z, expr);
  fault_in_thread(cudaErrorAssert, "error: assertion `" + std::string(expr) + "` failed in " + kernel_and_block(b) +
                                       " thread " + describe_thread(t->index) + " at " + file + ":" +
                                       std::to_string(line));
}
