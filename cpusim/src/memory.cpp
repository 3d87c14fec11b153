// "Device" memory: real heap blocks (so AddressSanitizer sees one byte past the end), 256-byte
// aligned like cudaMalloc's, and filled with cpusim's NaN (fill_garbage) so that reading what was never written
// gives NaN. The allocations are tracked, so copies that run past a buffer, copies in the wrong
// direction and host pointers passed to kernels fail as they would on a GPU.
#include <unistd.h>

#include <cstring>
#include <map>
#include <mutex>

#include "internal.h"

namespace cpusim::detail {

namespace {

enum class memory_kind { device, host };
struct allocation {
  size_t size;
  memory_kind kind;
};

// Never destroyed: LeakSanitizer runs after static destructors and must still find the
// allocations reachable (a GPU program need not free its device memory).
std::mutex& allocations_mutex = *new std::mutex;
std::map<const char*, allocation>& allocations = *new std::map<const char*, allocation>;
size_t device_bytes = 0;
std::atomic<unsigned long long> host_device_copy_count{0};

// The allocation that holds p, if any (one past the end counts, as for any C++ pointer).
const allocation* find(const void* p, const char** begin) {
  const char* c = static_cast<const char*>(p);
  auto it = allocations.upper_bound(c);
  if (it == allocations.begin()) return nullptr;
  --it;
  if (c > it->first + it->second.size) return nullptr;
  *begin = it->first;
  return &it->second;
}

cudaError_t allocate(void** ptr, size_t size, memory_kind kind) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (ptr == nullptr) return record_error(cudaErrorInvalidValue);
  *ptr = nullptr;
  if (size == 0) return cudaSuccess;
  void* p = nullptr;
  if (posix_memalign(&p, 256, size) != 0) return record_error(cudaErrorMemoryAllocation);
  fill_garbage(p, size);
  std::lock_guard<std::mutex> lock(allocations_mutex);
  allocations[static_cast<const char*>(p)] = {size, kind};
  if (kind == memory_kind::device) device_bytes += size;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t release(void* p, memory_kind kind, const char* api) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (p == nullptr) return cudaSuccess;
  std::lock_guard<std::mutex> lock(allocations_mutex);
  auto it = allocations.find(static_cast<const char*>(p));
  if (it == allocations.end() || it->second.kind != kind) {
    report(std::string(api) + " of a pointer that " + (kind == memory_kind::device ? "cudaMalloc" : "cudaMallocHost") +
           " did not return (or that was freed already): cudaErrorInvalidValue");
    return record_error(cudaErrorInvalidValue);
  }
  if (kind == memory_kind::device) device_bytes -= it->second.size;
  allocations.erase(it);
  std::free(p);
  return cudaSuccess;
}

// Checks that [p, p+count) lies in device memory; `role` names p for the message.
cudaError_t check_device_range(const void* p, size_t count, const char* api, const char* role) {
  std::lock_guard<std::mutex> lock(allocations_mutex);
  const char* begin = nullptr;
  const allocation* a = find(p, &begin);
  char text[512];
  if (a == nullptr || a->kind != memory_kind::device) {
    snprintf(text, sizeof text,
             "%s: the %s pointer %p is not device memory from cudaMalloc (wrong direction, or arguments swapped?):"
             " cudaErrorInvalidValue",
             api, role, p);
    report(text);
    return cudaErrorInvalidValue;
  }
  const size_t offset = size_t(static_cast<const char*>(p) - begin);
  if (offset + count > a->size) {
    snprintf(text, sizeof text,
             "%s: %zu bytes at %s %p run past the end of its cudaMalloc'd buffer (%zu bytes, %zu from its start):"
             " cudaErrorInvalidValue",
             api, count, role, p, a->size, offset);
    report(text);
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

bool is_device(const void* p) {
  std::lock_guard<std::mutex> lock(allocations_mutex);
  const char* begin = nullptr;
  const allocation* a = find(p, &begin);
  return a != nullptr && a->kind == memory_kind::device;
}

}  // namespace

bool device_allocation(const void* p, const char** begin, const char** end) {
  std::lock_guard<std::mutex> lock(allocations_mutex);
  const allocation* a = find(p, begin);
  if (a == nullptr || a->kind != memory_kind::device) return false;
  *end = *begin + a->size;
  return true;
}

namespace {

cudaError_t copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, const char* api) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (count == 0) return cudaSuccess;
  const bool device_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                          (kind == cudaMemcpyDefault && is_device(dst));
  const bool device_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                          (kind == cudaMemcpyDefault && is_device(src));
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return record_error(cudaErrorInvalidMemcpyDirection);
  if (device_dst)
    if (cudaError_t e = check_device_range(dst, count, api, "destination")) return record_error(e);
  if (device_src)
    if (cudaError_t e = check_device_range(src, count, api, "source")) return record_error(e);
  if (device_dst != device_src) ++host_device_copy_count;
  std::memcpy(dst, src, count);
  return cudaSuccess;
}

__thread int bad_argument_index = -1;
__thread const void* bad_argument = nullptr;

}  // namespace

bool device_accessible(const void* p) {
  std::lock_guard<std::mutex> lock(allocations_mutex);
  const char* begin = nullptr;
  return find(p, &begin) != nullptr;
}

void note_argument(int index, const void* pointer) {
  if (pointer != nullptr && bad_argument_index < 0 && !device_accessible(pointer)) {
    bad_argument_index = index;
    bad_argument = pointer;
  }
}

bool take_bad_argument(int* index, const void** pointer) {
  *index = bad_argument_index;
  *pointer = bad_argument;
  bad_argument_index = -1;
  return *index >= 0;
}

void free_all_allocations() {
  std::lock_guard<std::mutex> lock(allocations_mutex);
  for (auto& a : allocations) std::free(const_cast<char*>(a.first));
  allocations.clear();
  device_bytes = 0;
}

// The symbol (a global here, not in the allocation table) is device memory; the other side is
// the host's unless `kind`, or for cudaMemcpyDefault the pointer itself, says otherwise.
cudaError_t copy_symbol(void* dst, const void* src, size_t count, size_t symbol_size, size_t offset,
                        cudaMemcpyKind kind) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (offset + count > symbol_size) return record_error(cudaErrorInvalidValue);
  const bool device_to_device =
      kind == cudaMemcpyDeviceToDevice || (kind == cudaMemcpyDefault && (is_device(dst) || is_device(src)));
  if (!device_to_device) ++host_device_copy_count;
  std::memcpy(dst, src, count);
  return cudaSuccess;
}

}  // namespace cpusim::detail

using namespace cpusim::detail;

unsigned long long cpusim::host_device_copies() { return host_device_copy_count.load(); }

cudaError_t cudaMalloc(void** ptr, size_t size) { return allocate(ptr, size, memory_kind::device); }
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int) { return allocate(ptr, size, memory_kind::device); }
cudaError_t cudaMallocHost(void** ptr, size_t size) { return allocate(ptr, size, memory_kind::host); }
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int) { return allocate(ptr, size, memory_kind::host); }
cudaError_t cudaFree(void* ptr) { return release(ptr, memory_kind::device, "cudaFree"); }
cudaError_t cudaFreeHost(void* ptr) { return release(ptr, memory_kind::host, "cudaFreeHost"); }

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  const size_t total = size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGESIZE));
  std::lock_guard<std::mutex> lock(allocations_mutex);
  if (free_bytes) *free_bytes = total > device_bytes ? total - device_bytes : 0;
  if (total_bytes) *total_bytes = total;
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  return copy(dst, src, count, kind, "cudaMemcpy");
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t) {
  return copy(dst, src, count, kind, "cudaMemcpyAsync");
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch) return record_error(cudaErrorInvalidPitchValue);
  for (size_t row = 0; row < height; ++row)
    if (cudaError_t e = copy(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch,
                             width, kind, "cudaMemcpy2D"))
      return e;
  return cudaSuccess;
}

cudaError_t cudaMemset(void* ptr, int value, size_t count) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (count == 0) return cudaSuccess;
  if (cudaError_t e = check_device_range(ptr, count, "cudaMemset", "destination")) return record_error(e);
  std::memset(ptr, value, count);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t) { return cudaMemset(ptr, value, count); }

namespace cpusim::detail {

void fill_garbage(void* p, size_t bytes) {
  const uint32_t pattern = 0x7FC5A5A5u;
  char* out = static_cast<char*>(p);
  size_t i = 0;
  for (; i + sizeof pattern <= bytes; i += sizeof pattern) std::memcpy(out + i, &pattern, sizeof pattern);
  std::memcpy(out + i, &pattern, bytes - i);  // a tail shorter than a word
}

}  // namespace cpusim::detail
