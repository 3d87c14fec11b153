// Occupancy: how many blocks of a kernel one multiprocessor of the emulated device holds at once,
// from the block's threads, its shared memory and the limits cudaGetDeviceProperties reports
// (api.cpp): 2048 threads and 32 blocks per multiprocessor, 228 KB of shared memory per
// multiprocessor of which each block also takes 1 KB for the system (reservedSharedMemPerBlock),
// 227 KB per block at most. cudaOccupancy* and cooperative launches (launch.cpp) use the same
// count; a multiprocessor is one of the CPUSIM_THREADS OS threads.
//
// Registers are the one limit a CPU cannot know: g++ allocates no GPU registers. cpusim assumes
// every kernel uses 32 registers per thread (what cudaFuncGetAttributes reports as numRegs), the
// most that still lets 2048 threads fit in the 65536 registers of a multiprocessor, so registers
// never limit occupancy here; a real kernel that uses more has a lower occupancy on a GPU.
//
// Static shared memory is the other thing g++ does not tell: cpusim learns a kernel's when its
// blocks reach their __shared__ declarations, and uses the largest it has seen in earlier
// launches of that kernel (none before its first launch).
#include <algorithm>
#include <map>
#include <mutex>

#include "internal.h"

namespace cpusim::detail {

namespace {
constexpr int warp_size = 32;
constexpr int max_threads_per_block = 1024;
constexpr int max_warps_per_multiprocessor = 2048 / warp_size;
constexpr int max_blocks_per_multiprocessor = 32;
constexpr size_t shared_per_multiprocessor = 228 * 1024;
constexpr size_t shared_per_block_optin = 227 * 1024;
constexpr size_t reserved_shared_per_block = 1024;
constexpr size_t shared_granularity = 128;  // shared memory is given to blocks in 128-byte units
constexpr int assumed_registers_per_thread = 32;

std::mutex statics_mutex;
std::map<const void*, size_t> statics_seen;
}  // namespace

int multiprocessor_count() { return config().threads; }

size_t static_smem_seen(const void* key) {
  std::lock_guard<std::mutex> lock(statics_mutex);
  const auto it = statics_seen.find(key);
  return it == statics_seen.end() ? 0 : it->second;
}

void note_static_smem(const void* key, size_t bytes) {
  std::lock_guard<std::mutex> lock(statics_mutex);
  size_t& seen = statics_seen[key];
  seen = std::max(seen, bytes);
}

int blocks_per_multiprocessor(const void* key, long long threads, size_t dynamic_bytes, size_t static_bytes) {
  // A block that could not be launched at all fits zero times.
  if (threads < 1 || threads > max_threads_per_block) return 0;
  if (dynamic_bytes > dynamic_smem_limit(key) || static_bytes + dynamic_bytes > shared_per_block_optin) return 0;
  const int warps = int((threads + warp_size - 1) / warp_size);
  const int by_threads = max_warps_per_multiprocessor / warps;
  const size_t shared = (static_bytes + dynamic_bytes + shared_granularity - 1) / shared_granularity * shared_granularity;
  const int by_shared = int(shared_per_multiprocessor / (shared + reserved_shared_per_block));
  return std::min({by_threads, by_shared, max_blocks_per_multiprocessor});
}

}  // namespace cpusim::detail

using namespace cpusim::detail;

cudaError_t cpusim::detail::occupancy_max_active_blocks(int* num_blocks, const void* kernel, int block_size,
                                                        size_t dynamic_bytes, unsigned flags) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (num_blocks == nullptr || block_size <= 0 || flags > cudaOccupancyDisableCachingOverride)
    return record_error(cudaErrorInvalidValue);
  if (kernel == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  *num_blocks = blocks_per_multiprocessor(kernel, block_size, dynamic_bytes, static_smem_seen(kernel));
  return cudaSuccess;
}

// The block size with the most threads resident per multiprocessor, trying every multiple of the
// warp size from the largest allowed down (the largest first, so that a tie keeps it), and the
// grid that fills the device with such blocks.
cudaError_t cpusim::detail::occupancy_max_potential_block_size(int* min_grid_size, int* block_size, const void* kernel,
                                                               size_t (*dynamic_bytes)(const void*, int),
                                                               const void* context, int block_size_limit,
                                                               unsigned flags) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (min_grid_size == nullptr || block_size == nullptr || block_size_limit < 0 ||
      flags > cudaOccupancyDisableCachingOverride)
    return record_error(cudaErrorInvalidValue);
  if (kernel == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  int limit = max_threads_per_block;
  if (block_size_limit > 0) limit = std::min(limit, block_size_limit);
  const size_t statics = static_smem_seen(kernel);
  int best_size = 0, best_blocks = 0;
  for (int aligned = (limit + warp_size - 1) / warp_size * warp_size; aligned > 0; aligned -= warp_size) {
    const int size = std::min(aligned, limit);
    const int blocks = blocks_per_multiprocessor(kernel, size, dynamic_bytes(context, size), statics);
    if (blocks * size > best_blocks * best_size) best_size = size, best_blocks = blocks;
    if (best_blocks * best_size == max_warps_per_multiprocessor * warp_size) break;  // the most a multiprocessor holds
  }
  *min_grid_size = best_blocks * multiprocessor_count();
  *block_size = best_size;
  return cudaSuccess;
}

cudaError_t cpusim::detail::func_get_attributes(cudaFuncAttributes* attributes, const void* kernel) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (attributes == nullptr) return record_error(cudaErrorInvalidValue);
  if (kernel == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  std::memset(attributes, 0, sizeof *attributes);
  attributes->sharedSizeBytes = static_smem_seen(kernel);
  attributes->maxThreadsPerBlock = max_threads_per_block;
  attributes->numRegs = assumed_registers_per_thread;
  attributes->ptxVersion = attributes->binaryVersion = 90;
  bool set = false;
  const size_t limit = dynamic_smem_limit(kernel, &set);
  // Unless cudaFuncSetAttribute raised it, what 48 KB leaves beside the static shared memory.
  attributes->maxDynamicSharedSizeBytes =
      int(set ? limit : limit - std::min(limit, attributes->sharedSizeBytes));
  attributes->preferredShmemCarveout = -1;
  return cudaSuccess;
}
