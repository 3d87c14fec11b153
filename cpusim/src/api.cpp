// The rest of the runtime API: errors (CUDA's names and texts), the one device and its
// properties, streams and events (work has finished when a call returns, so an event records the
// host clock), kernel attributes, and the settings read from the environment.
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "internal.h"
#include "sanitizer.h"

namespace cpusim::detail {

// ---- settings ----
namespace {
settings& mutable_config() {
  static settings s = [] {
    settings c{};
    const char* v = getenv("CPUSIM_THREADS");
    c.threads = v ? atoi(v) : int(std::thread::hardware_concurrency());
    if (c.threads < 1) c.threads = 1;
    if (c.threads > 256) c.threads = 256;
    c.schedule = schedule_kind::forward;
    c.seed = 1;
    if (const char* s = getenv("CPUSIM_SCHEDULE")) {
      if (std::strcmp(s, "reverse") == 0) {
        c.schedule = schedule_kind::reverse;
      } else if (std::strcmp(s, "alternate") == 0) {
        c.schedule = schedule_kind::alternate;
      } else if (std::strncmp(s, "random", 6) == 0 && (s[6] == 0 || s[6] == ':')) {
        c.schedule = schedule_kind::random;
        if (s[6] == ':') c.seed = strtoull(s + 7, nullptr, 10);
      } else if (std::strcmp(s, "forward") != 0) {
        report(std::string("warning: CPUSIM_SCHEDULE=") + s + " is not forward, reverse, alternate or random[:SEED]; using forward");
      }
    }
    v = getenv("CPUSIM_STACK_KB");
    c.stack_bytes = size_t(v ? atoi(v) : 0) * 1024;
    if (c.stack_bytes < 16 * 1024) c.stack_bytes = size_t(san::asan ? 256 : san::tsan ? 128 : 64) * 1024;
    v = getenv("CPUSIM_TIMEOUT_S");
    c.timeout_s = v ? atof(v) : 300.0;
    c.launch_log = getenv("CPUSIM_LAUNCH_LOG");
    return c;
  }();
  return s;
}
}  // namespace

const settings& config() { return mutable_config(); }

}  // namespace cpusim::detail

void cpusim::reverse_thread_order() { cpusim::detail::mutable_config().schedule = cpusim::detail::schedule_kind::reverse; }

namespace cpusim::detail {

// ---- errors: the last error per host thread; a sticky one (a failed kernel) for everyone ----
// As CUDA 13 on an H100 does (docs/results/cpusim-error-semantics-h100.log): a fault becomes the
// last error only once a call returns it, so cudaGetLastError right after a faulting launch says
// cudaSuccess and cudaDeviceSynchronize reports the fault; cudaGetLastError clears the last error
// even when it is sticky (the next failing call records it again); cudaDeviceReset clears the
// sticky error but not the last error.
namespace {
std::atomic<int> sticky{cudaSuccess};
thread_local cudaError_t last_error = cudaSuccess;
}  // namespace

cudaError_t sticky_error() { return cudaError_t(sticky.load()); }
void set_sticky_error(cudaError_t e) {
  int none = cudaSuccess;
  sticky.compare_exchange_strong(none, e);
}
cudaError_t record_error(cudaError_t e) {
  if (e != cudaSuccess) last_error = e;
  return e;
}

// ---- kernel attributes ----
namespace {
std::mutex attributes_mutex;
std::map<const void*, int> max_dynamic_smem;
constexpr int default_dynamic_limit = 48 * 1024;
constexpr int optin_limit = 227 * 1024;
}  // namespace

size_t dynamic_smem_limit(const void* key, bool* set) {
  std::lock_guard<std::mutex> lock(attributes_mutex);
  if (key != nullptr) {
    auto it = max_dynamic_smem.find(key);
    if (set != nullptr) *set = it != max_dynamic_smem.end();
    return it == max_dynamic_smem.end() ? default_dynamic_limit : it->second;
  }
  if (set != nullptr) *set = false;
  // The rewriter could not name the kernel (a template whose arguments are deduced): allow what
  // any kernel was granted.
  int limit = default_dynamic_limit;
  for (auto& k : max_dynamic_smem) limit = k.second > limit ? k.second : limit;
  return limit;
}

cudaError_t set_func_attribute(const void* kernel, cudaFuncAttribute attr, int value) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (kernel == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) return cudaSuccess;
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 || value > optin_limit)
    return record_error(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(attributes_mutex);
  max_dynamic_smem[kernel] = value;
  return cudaSuccess;
}

}  // namespace cpusim::detail

using namespace cpusim::detail;

// ---- errors ----
namespace {
struct error_text {
  int code;
  const char* name;
  const char* text;
};
// CUDA 13's own names and texts.
const error_text error_texts[] = {
    {0, "cudaSuccess", "no error"},
    {1, "cudaErrorInvalidValue", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {3, "cudaErrorInitializationError", "initialization error"},
    {4, "cudaErrorCudartUnloading", "driver shutting down"},
    {5, "cudaErrorProfilerDisabled", "profiler disabled while using external profiling tool"},
    {6, "cudaErrorProfilerNotInitialized", "profiler not initialized: call cudaProfilerInitialize()"},
    {7, "cudaErrorProfilerAlreadyStarted", "profiler already started"},
    {8, "cudaErrorProfilerAlreadyStopped", "profiler already stopped"},
    {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {12, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {13, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {16, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {17, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {18, "cudaErrorInvalidTexture", "invalid texture reference"},
    {19, "cudaErrorInvalidTextureBinding", "texture is not bound to a pointer"},
    {20, "cudaErrorInvalidChannelDescriptor", "invalid channel descriptor"},
    {21, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {22, "cudaErrorAddressOfConstant", "invalid address of constant"},
    {23, "cudaErrorTextureFetchFailed", "fetch from texture failed"},
    {24, "cudaErrorTextureNotBound", "cannot fetch from a texture that is not bound"},
    {25, "cudaErrorSynchronizationError", "incorrect use of __syncthreads()"},
    {26, "cudaErrorInvalidFilterSetting", "linear filtering not supported for non-float type"},
    {27, "cudaErrorInvalidNormSetting", "read as normalized float not supported for data type"},
    {28, "cudaErrorMixedDeviceExecution", "device emulation mode and device execution mode cannot be mixed"},
    {31, "cudaErrorNotYetImplemented", "feature not yet implemented"},
    {32, "cudaErrorMemoryValueTooLarge", "memory size or pointer value too large to fit in 32 bit"},
    {34, "cudaErrorStubLibrary", "CUDA driver is a stub library"},
    {35, "cudaErrorInsufficientDriver", "CUDA driver version is insufficient for CUDA runtime version"},
    {36, "cudaErrorCallRequiresNewerDriver", "API call is not supported in the installed CUDA driver"},
    {37, "cudaErrorInvalidSurface", "invalid surface reference"},
    {43, "cudaErrorDuplicateVariableName", "duplicate global variable looked up by string name"},
    {44, "cudaErrorDuplicateTextureName", "duplicate texture looked up by string name"},
    {45, "cudaErrorDuplicateSurfaceName", "duplicate surface looked up by string name"},
    {46, "cudaErrorDevicesUnavailable", "CUDA-capable device(s) is/are busy or unavailable"},
    {49, "cudaErrorIncompatibleDriverContext", "incompatible driver context"},
    {52, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {53, "cudaErrorPriorLaunchFailure", "unspecified launch failure in prior launch"},
    {65, "cudaErrorLaunchMaxDepthExceeded", "launch would exceed maximum depth of nested launches"},
    {66, "cudaErrorLaunchFileScopedTex", "launch failed because kernel uses unsupported, file-scoped textures (texture objects are supported)"},
    {67, "cudaErrorLaunchFileScopedSurf", "launch failed because kernel uses unsupported, file-scoped surfaces (surface objects are supported)"},
    {68, "cudaErrorSyncDepthExceeded", "cudaDeviceSynchronize failed because caller's grid depth exceeds cudaLimitDevRuntimeSyncDepth"},
    {69, "cudaErrorLaunchPendingCountExceeded", "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount"},
    {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {100, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {102, "cudaErrorDeviceNotLicensed", "device doesn't have valid Grid license"},
    {103, "cudaErrorSoftwareValidityNotEstablished", "integrity checks failed"},
    {127, "cudaErrorStartupFailure", "startup failure in cuda runtime"},
    {200, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {201, "cudaErrorDeviceUninitialized", "invalid device context"},
    {205, "cudaErrorMapBufferObjectFailed", "mapping of buffer object failed"},
    {206, "cudaErrorUnmapBufferObjectFailed", "unmapping of buffer object failed"},
    {207, "cudaErrorArrayIsMapped", "array is mapped"},
    {208, "cudaErrorAlreadyMapped", "resource already mapped"},
    {209, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
    {210, "cudaErrorAlreadyAcquired", "resource already acquired"},
    {211, "cudaErrorNotMapped", "resource not mapped"},
    {212, "cudaErrorNotMappedAsArray", "resource not mapped as array"},
    {213, "cudaErrorNotMappedAsPointer", "resource not mapped as pointer"},
    {214, "cudaErrorECCUncorrectable", "uncorrectable ECC error encountered"},
    {215, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {216, "cudaErrorDeviceAlreadyInUse", "exclusive-thread device already in use by a different thread"},
    {217, "cudaErrorPeerAccessUnsupported", "peer access is not supported between these two devices"},
    {218, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {219, "cudaErrorInvalidGraphicsContext", "invalid OpenGL or DirectX context"},
    {220, "cudaErrorNvlinkUncorrectable", "uncorrectable NVLink error detected during the execution"},
    {221, "cudaErrorJitCompilerNotFound", "PTX JIT compiler library not found"},
    {222, "cudaErrorUnsupportedPtxVersion", "the provided PTX was compiled with an unsupported toolchain."},
    {223, "cudaErrorJitCompilationDisabled", "PTX JIT compilation was disabled"},
    {224, "cudaErrorUnsupportedExecAffinity", "the provided execution affinity is not supported"},
    {225, "cudaErrorUnsupportedDevSideSync", "the provided PTX contains unsupported call to cudaDeviceSynchronize"},
    {226, "cudaErrorContained", "Invalid access of peer GPU memory over nvlink or a hardware error"},
    {300, "cudaErrorInvalidSource", "device kernel image is invalid"},
    {301, "cudaErrorFileNotFound", "file not found"},
    {302, "cudaErrorSharedObjectSymbolNotFound", "shared object symbol not found"},
    {303, "cudaErrorSharedObjectInitFailed", "shared object initialization failed"},
    {304, "cudaErrorOperatingSystem", "OS call failed or operation not supported on this OS"},
    {400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {401, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
    {402, "cudaErrorLossyQuery", "attempted introspection would be semantically lossy"},
    {500, "cudaErrorSymbolNotFound", "named symbol not found"},
    {600, "cudaErrorNotReady", "device not ready"},
    {700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {701, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {702, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {703, "cudaErrorLaunchIncompatibleTexturing", "launch uses incompatible texturing mode"},
    {704, "cudaErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {705, "cudaErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {708, "cudaErrorSetOnActiveProcess", "cannot set while device is active in this process"},
    {709, "cudaErrorContextIsDestroyed", "context is destroyed"},
    {710, "cudaErrorAssert", "device-side assert triggered"},
    {711, "cudaErrorTooManyPeers", "peer mapping resources exhausted"},
    {712, "cudaErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {713, "cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {714, "cudaErrorHardwareStackError", "hardware stack error"},
    {715, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {716, "cudaErrorMisalignedAddress", "misaligned address"},
    {717, "cudaErrorInvalidAddressSpace", "operation not supported on global/shared address space"},
    {718, "cudaErrorInvalidPc", "invalid program counter"},
    {719, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {720, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {721, "cudaErrorTensorMemoryLeak", "tensor memory not completely freed"},
    {800, "cudaErrorNotPermitted", "operation not permitted"},
    {801, "cudaErrorNotSupported", "operation not supported"},
    {802, "cudaErrorSystemNotReady", "system not yet initialized"},
    {803, "cudaErrorSystemDriverMismatch", "system has unsupported display driver / cuda driver combination"},
    {804, "cudaErrorCompatNotSupportedOnDevice", "forward compatibility was attempted on non supported HW"},
    {805, "cudaErrorMpsConnectionFailed", "MPS client failed to connect to the MPS control daemon or the MPS server"},
    {806, "cudaErrorMpsRpcFailure", "the remote procedural call between the MPS server and the MPS client failed"},
    {807, "cudaErrorMpsServerNotReady", "MPS server is not ready to accept new MPS client requests"},
    {808, "cudaErrorMpsMaxClientsReached", "the hardware resources required to create MPS client have been exhausted"},
    {809, "cudaErrorMpsMaxConnectionsReached", "the hardware resources required to support device connections have been exhausted"},
    {810, "cudaErrorMpsClientTerminated", "the MPS client has been terminated by the server"},
    {811, "cudaErrorCdpNotSupported", "is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it"},
    {812, "cudaErrorCdpVersionMismatch", "unsupported interaction between different versions of CUDA Dynamic Parallelism"},
    {900, "cudaErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {901, "cudaErrorStreamCaptureInvalidated", "operation failed due to a previous error during capture"},
    {902, "cudaErrorStreamCaptureMerge", "operation would result in a merge of separate capture sequences"},
    {903, "cudaErrorStreamCaptureUnmatched", "capture was not ended in the same stream as it began"},
    {904, "cudaErrorStreamCaptureUnjoined", "capturing stream has unjoined work"},
    {905, "cudaErrorStreamCaptureIsolation", "dependency created on uncaptured work in another stream"},
    {906, "cudaErrorStreamCaptureImplicit", "operation would make the legacy stream depend on a capturing blocking stream"},
    {907, "cudaErrorCapturedEvent", "operation not permitted on an event last recorded in a capturing stream"},
    {908, "cudaErrorStreamCaptureWrongThread", "attempt to terminate a thread-local capture sequence from another thread"},
    {909, "cudaErrorTimeout", "wait operation timed out"},
    {910, "cudaErrorGraphExecUpdateFailure", "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"},
    {911, "cudaErrorExternalDevice", "an async error has occured in external entity outside of CUDA"},
    {912, "cudaErrorInvalidClusterSize", "a kernel launch error has occurred due to cluster misconfiguration"},
    {913, "cudaErrorFunctionNotLoaded", "the function handle is not loaded when calling an API that requires a loaded function"},
    {914, "cudaErrorInvalidResourceType", "one or more resources passed in are not valid resource types for the operation"},
    {915, "cudaErrorInvalidResourceConfiguration", "one or more resources are insufficient or non-applicable for the operation"},
    {999, "cudaErrorUnknown", "unknown error"},
};
const error_text* find_error(cudaError_t e) {
  for (const error_text& t : error_texts)
    if (t.code == int(e)) return &t;
  return nullptr;
}
}  // namespace

const char* cudaGetErrorName(cudaError_t e) {
  const error_text* t = find_error(e);
  return t ? t->name : "cudaErrorUnknown";
}
const char* cudaGetErrorString(cudaError_t e) {
  const error_text* t = find_error(e);
  return t ? t->text : "unknown error";
}
cudaError_t cudaGetLastError() {
  const cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return last_error; }

// ---- the device ----
cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return record_error(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return record_error(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : record_error(cudaErrorInvalidDevice); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (p == nullptr) return record_error(cudaErrorInvalidValue);
  if (device != 0) return record_error(cudaErrorInvalidDevice);
  std::memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "CPU backend (cpusim, %d thread%s) - not a GPU", config().threads,
           config().threads == 1 ? "" : "s");
  p->totalGlobalMem = size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGESIZE));
  p->sharedMemPerBlock = 48 * 1024;
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->sharedMemPerMultiprocessor = 228 * 1024;
  p->reservedSharedMemPerBlock = 1024;
  p->regsPerBlock = p->regsPerMultiprocessor = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
  p->totalConstMem = 65536;
  p->major = 9;
  p->minor = 0;
  p->textureAlignment = 512;
  p->texturePitchAlignment = 32;
  p->multiProcessorCount = config().threads;
  p->canMapHostMemory = 1;
  p->unifiedAddressing = 1;
  p->managedMemory = 1;
  p->concurrentKernels = 1;
  p->memoryBusWidth = 64;
  p->l2CacheSize = 4 * 1024 * 1024;
  p->maxThreadsPerMultiProcessor = 2048;
  p->maxBlocksPerMultiProcessor = 32;
  p->globalL1CacheSupported = p->localL1CacheSupported = 1;
  p->hostNativeAtomicSupported = 1;
  p->cooperativeLaunch = 1;  // cudaLaunchCooperativeKernel: src/cooperative.cpp
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (value == nullptr) return record_error(cudaErrorInvalidValue);
  if (device != 0) return record_error(cudaErrorInvalidDevice);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
    case cudaDevAttrTotalConstantMemory: *value = int(p.totalConstMem); break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = 1000000; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrIntegrated: *value = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: *value = cudaComputeModeDefault; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
    case cudaDevAttrPciBusId: *value = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: *value = p.pciDeviceID; break;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case cudaDevAttrMemoryClockRate: *value = 1000000; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = int(p.reservedSharedMemPerBlock); break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    default: return record_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() { return record_error(sticky_error()); }

// A fresh context: no allocations, no sticky error, no attributes.
cudaError_t cudaDeviceReset() {
  free_all_allocations();
  sticky.store(cudaSuccess);
  std::lock_guard<std::mutex> lock(attributes_mutex);
  max_dynamic_smem.clear();
  return cudaSuccess;
}
cudaError_t cudaDeviceSetLimit(cudaLimit, size_t) { return record_error(sticky_error()); }
cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  if (value == nullptr) return record_error(cudaErrorInvalidValue);
  *value = limit == cudaLimitStackSize ? config().stack_bytes : 8u << 20;
  return record_error(sticky_error());
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return record_error(sticky_error()); }
cudaError_t cudaDriverGetVersion(int* version) {
  if (version == nullptr) return record_error(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) { return cudaDriverGetVersion(version); }

// ---- streams: everything runs in order at the call, so a stream is just a handle ----
struct CUstream_st {
  unsigned int flags;
};
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (stream == nullptr) return record_error(cudaErrorInvalidValue);
  *stream = new CUstream_st{flags};
  return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (stream == nullptr) return record_error(cudaErrorInvalidResourceHandle);
  delete stream;
  return record_error(sticky_error());
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return record_error(sticky_error()); }
cudaError_t cudaStreamQuery(cudaStream_t) { return record_error(sticky_error()); }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return record_error(sticky_error()); }

// ---- events ----
struct CUevent_st {
  unsigned int flags;
  bool recorded;
  std::chrono::steady_clock::time_point when;
};
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (event == nullptr) return record_error(cudaErrorInvalidValue);
  *event = new CUevent_st{flags, false, {}};
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (event == nullptr) return record_error(cudaErrorInvalidResourceHandle);
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (event == nullptr) return record_error(cudaErrorInvalidResourceHandle);
  return record_error(sticky_error());
}
cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (cudaError_t e = sticky_error()) return record_error(e);
  if (ms == nullptr) return record_error(cudaErrorInvalidValue);
  if (start == nullptr || end == nullptr || !start->recorded || !end->recorded ||
      ((start->flags | end->flags) & cudaEventDisableTiming))
    return record_error(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (event == nullptr) return record_error(cudaErrorInvalidResourceHandle);
  delete event;
  return cudaSuccess;
}
