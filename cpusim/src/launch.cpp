// A kernel launch: check the configuration as the CUDA driver does, then run the grid's blocks on
// a pool of CPUSIM_THREADS OS threads (the calling thread is one of them) and return when all are
// done. Configuration errors come back through cudaGetLastError and the kernel does not run;
// a fault while it runs becomes the sticky error, which every later call returns (cudaGetLastError
// only once another call has returned it), as on a GPU. A cooperative launch must also fit on the
// device all at once (cooperative.cpp runs it).
#include <fcntl.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <numeric>
#include <thread>

#include "internal.h"
#include "sanitizer.h"

namespace cpusim::detail {

worker& this_worker() {
  static thread_local worker* w = new worker;  // never freed: fibers may still point into it at exit
  return *w;
}

namespace {

void run_blocks(launch_state& launch) {
  install_crash_handlers();
  if (launch.cooperative) {
    run_resident_blocks(launch);
    return;
  }
  block_slot& s = this_worker().slot(0);
  while (launch.error.load(std::memory_order_relaxed) == cudaSuccess) {
    const unsigned long long i = launch.next_block++;
    if (i >= launch.total_blocks) break;
    run_block(launch, block_in_order(launch, i), s);
  }
}

// The OS threads that run blocks besides the caller; started at the first launch that needs them.
class thread_pool {
 public:
  void run(launch_state& launch) {
    const int helpers = int(std::min<unsigned long long>(config().threads, launch.total_blocks)) - 1;
    if (helpers > 0) {
      std::unique_lock<std::mutex> lock(mutex_);
      while (int(threads_.size()) < helpers) threads_.emplace_back([this] { serve(); });
      current_ = &launch;
      wanted_ = helpers;
      ++generation_;
      work_.notify_all();
    }
    run_blocks(launch);
    if (helpers > 0) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [this] { return wanted_ == 0 && busy_ == 0; });
      current_ = nullptr;
    }
  }

 private:
  void serve() {
    unsigned long long seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_.wait(lock, [&] { return generation_ != seen && wanted_ > 0; });
      seen = generation_;
      --wanted_;
      ++busy_;
      launch_state* launch = current_;
      lock.unlock();
      run_blocks(*launch);
      lock.lock();
      --busy_;
      done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_, done_;
  std::vector<std::thread> threads_;
  launch_state* current_ = nullptr;
  unsigned long long generation_ = 0;
  int wanted_ = 0, busy_ = 0;
};

thread_pool& pool() {
  static thread_pool* p = new thread_pool;  // its threads live until the process exits
  return *p;
}

std::string dims(dim3 d) {
  return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
}

// The check the driver makes before a kernel runs; "" when the configuration is valid.
std::string configuration_problem(dim3 grid, dim3 block) {
  const unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z == 0) return "block (" + dims(block) + ") has a zero dimension";
  if (threads > 1024)
    return "block (" + dims(block) + ") has " + std::to_string(threads) + " threads; a block has at most 1024";
  if (block.x > 1024 || block.y > 1024 || block.z > 64)
    return "block (" + dims(block) + ") exceeds the largest block dimensions (1024,1024,64)";
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return "grid (" + dims(grid) + ") has a zero dimension";
  if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
    return "grid (" + dims(grid) + ") exceeds the largest grid dimensions (2147483647,65535,65535)";
  return "";
}

// `statics`, `counts` and `sites` (the count flavor's fields and its lines per instruction,
// access_count.cpp): for a launch that ran.
void log_launch(const launch_state& launch, cudaError_t status, size_t statics = 0, const std::string& counts = "",
                const std::string& sites = "") {
  const char* path = config().launch_log;
  if (path == nullptr || *path == 0) return;
  const launch_site& site = launch.site;
  std::string name = site.name;
  for (char& c : name)
    if (c == ' ') c = '_';  // one token per field
  const std::string line = "kernel=" + name + " grid=" + dims(launch.grid) + " block=" + dims(launch.block) +
                           " dynamic_smem=" + std::to_string(launch.dynamic_bytes) + " static_smem=" +
                           std::to_string(statics) + " site=" + where({site.file, site.line}) +
                           " status=" + cudaGetErrorName(status) + counts + "\n" + sites;
  // One write to an O_APPEND file: lines of concurrent processes do not interleave, and a
  // launch's lines per instruction follow its own line.
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!write(fd, line.data(), line.size());
  close(fd);
}

std::string launch_name(const launch_site& site) {
  return "launch of '" + std::string(site.name) + "' at " + where({site.file, site.line});
}

// After a fault every launch fails with its error, as on a GPU; said once per process.
bool refused_after_fault(const launch_state& launch) {
  const cudaError_t e = sticky_error();
  if (e == cudaSuccess) return false;
  static std::once_flag once;
  std::call_once(once, [&] {
    report(launch_name(launch.site) + " did not run: an earlier kernel failed (" + cudaGetErrorName(e) +
           "); as on a GPU, every later CUDA call returns that error");
  });
  record_error(e);
  log_launch(launch, e);
  return true;
}

// The configurations the driver refuses. CUDA 13 returns cudaErrorInvalidValue for them, not
// cudaErrorInvalidConfiguration (measured on an H100: docs/results/cpusim-error-semantics-h100.log).
bool refused_configuration(const launch_state& launch) {
  const std::string problem = configuration_problem(launch.grid, launch.block);
  if (!problem.empty()) {
    report(launch_name(launch.site) + " failed: " + problem + " (cudaErrorInvalidValue)");
    log_launch(launch, record_error(cudaErrorInvalidValue));
    return true;
  }
  const size_t limit = dynamic_smem_limit(launch.site.key);
  if (launch.dynamic_bytes > limit) {
    report(launch_name(launch.site) + " failed: it asks for " + std::to_string(launch.dynamic_bytes) +
           " bytes of dynamic shared memory, more than the kernel's limit of " + std::to_string(limit) +
           " (cudaErrorInvalidValue).\n  Above 48 KB a kernel needs cudaFuncSetAttribute(kernel, "
           "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first (at most 227 KB).");
    log_launch(launch, record_error(cudaErrorInvalidValue));
    return true;
  }
  return false;
}

// A cooperative grid larger than the device holds at once: a GPU refuses it, and so does cpusim,
// with the same occupancy that cudaOccupancyMaxActiveBlocksPerMultiprocessor reports. The static
// shared memory counted is what the kernel's blocks used in earlier launches (g++ does not know
// it before a block runs: shared_memory.cpp checks again when a declaration is reached).
bool refused_cooperative(launch_state& launch) {
  const unsigned threads = launch.block.x * launch.block.y * launch.block.z;
  const size_t statics = static_smem_seen(launch.site.key);
  const int per_multiprocessor = blocks_per_multiprocessor(launch.site.key, threads, launch.dynamic_bytes, statics);
  const unsigned long long fits = (unsigned long long)per_multiprocessor * (unsigned long long)multiprocessor_count();
  const unsigned long long blocks = (unsigned long long)launch.grid.x * launch.grid.y * launch.grid.z;
  if (blocks <= fits) return false;
  report(launch_name(launch.site) + " failed: a cooperative launch needs all " + std::to_string(blocks) +
         " blocks of its grid resident at once, and this device holds " + std::to_string(fits) + " (" +
         std::to_string(per_multiprocessor) + " per multiprocessor of blocks of " + std::to_string(threads) +
         " threads with " + std::to_string(statics + launch.dynamic_bytes) + " bytes of shared memory, times " +
         std::to_string(multiprocessor_count()) + (multiprocessor_count() == 1 ? " multiprocessor" : " multiprocessors") +
         ") (cudaErrorCooperativeLaunchTooLarge).\n  Size the grid with "
         "cudaOccupancyMaxActiveBlocksPerMultiprocessor times cudaDeviceProp::multiProcessorCount.");
  log_launch(launch, record_error(cudaErrorCooperativeLaunchTooLarge));
  return true;
}

// Argument `index` is a host pointer: on a GPU the kernel would fault, so it does not run.
void fault_on_host_pointer(const launch_state& launch, int index, const void* pointer) {
  char text[160];
  snprintf(text, sizeof text, "argument %d (%p) points to host memory, not to memory from cudaMalloc", index + 1,
           pointer);
  report("error: " + launch_name(launch.site) + ": " + text +
         ".\n  On a GPU the kernel would fault with an illegal address; the kernel did not run.");
  set_sticky_error(cudaErrorIllegalAddress);  // a fault, not a launch error: the next synchronizing call reports it
  log_launch(launch, cudaErrorIllegalAddress);
}

// The order of the blocks, as CPUSIM_SCHEDULE asks.
void order_blocks(launch_state& launch) {
  switch (config().schedule) {
    case schedule_kind::forward:
    case schedule_kind::alternate: break;
    case schedule_kind::reverse:
      launch.order_a = launch.total_blocks - 1;  // i -> total-1-i
      launch.order_b = launch.total_blocks - 1;
      break;
    case schedule_kind::random: {
      // An affine permutation of the block indices: a random a coprime with the count.
      std::mt19937_64 rng(config().seed);
      const unsigned long long n = launch.total_blocks;
      launch.order_a = n > 1 ? 1 + rng() % (n - 1) : 1;
      while (std::gcd(launch.order_a, n) != 1) launch.order_a = launch.order_a % (n - 1) + 1;
      launch.order_b = rng() % n;
      break;
    }
  }
}

// One grid at a time: host threads that launch concurrently take turns (a valid order).
void run_grid(launch_state& launch) {
  static std::mutex one_grid_at_a_time;
  std::lock_guard<std::mutex> lock(one_grid_at_a_time);
  watchdog_arm(&launch);
  pool().run(launch);
  watchdog_arm(nullptr);
  san::acquire(&tsan_launch_done);
}

// Too many resources is a launch error (cudaGetLastError reports it, nothing sticks, and the
// launching call returns it); any other failure is a fault of the running kernel, which a GPU
// reports at the next call that synchronizes, not at cudaGetLastError right after the launch.
cudaError_t record_outcome(const launch_state& launch) {
  const cudaError_t status = cudaError_t(launch.error.load());
  const bool launch_error = status == cudaErrorLaunchOutOfResources || status == cudaErrorCooperativeLaunchTooLarge;
  if (launch_error)
    record_error(status);
  else if (status != cudaSuccess)
    set_sticky_error(status);
  if (launch.site.key != nullptr) note_static_smem(launch.site.key, launch.static_shared_bytes.load());
  report_lost_updates(launch);
  log_launch(launch, status, launch.static_shared_bytes.load(), access_counts(launch), access_sites(launch));
  return launch_error ? status : cudaSuccess;
}

}  // namespace

// cudaLaunchKernel or cudaLaunchCooperativeKernel without the pointers to the arguments.
cudaError_t bad_launch_arguments(const launch_site& site, int index) {
  report(launch_name(site) + " failed: " +
         (index < 0 ? std::string("its args is null") : "its args[" + std::to_string(index) + "] is null") +
         ", but the kernel has parameters (cudaErrorInvalidValue).\n  args[i] must point to the value of the"
         " kernel's parameter i.");
  return record_error(cudaErrorInvalidValue);
}

cudaError_t launch_kernel(const launch_site& site, dim3 grid, dim3 block, size_t dynamic_smem, cudaStream_t,
                          void (*invoke)(const void*), const void* body, bool cooperative) {
  int bad_index = -1;
  const void* bad_pointer = nullptr;
  const bool bad_argument = take_bad_argument(&bad_index, &bad_pointer);
  launch_state launch;
  launch.site = site;
  launch.grid = grid;
  launch.block = block;
  launch.dynamic_bytes = dynamic_smem;
  launch.cooperative = cooperative;
  if (refused_after_fault(launch)) return sticky_error();
  if (refused_configuration(launch)) return cudaErrorInvalidValue;
  if (cooperative && refused_cooperative(launch)) return cudaErrorCooperativeLaunchTooLarge;
  if (bad_argument) {
    fault_on_host_pointer(launch, bad_index, bad_pointer);
    return cudaSuccess;  // as a GPU's launch, which faults later
  }

  launch.invoke = invoke;
  launch.body = body;
  launch.nthreads = int(block.x * block.y * block.z);
  launch.total_blocks = (unsigned long long)grid.x * grid.y * grid.z;
  order_blocks(launch);
  static std::atomic<uint64_t> launches{0};
  launch.serial = ++launches;
  launch.counts = start_counting();
  launch.updates = start_updates();
  if (cooperative) {
    launch.multiprocessors = int(std::min<unsigned long long>(multiprocessor_count(), launch.total_blocks));
    launch.rendezvous = make_rendezvous(launch);
  }
  run_grid(launch);
  return record_outcome(launch);
}

}  // namespace cpusim::detail
