// Sample-style device query: the device findCudaDevice picks, its properties, the attributes
// that must agree with them, and the driver and runtime versions.
#include <cuda_runtime.h>

#include <cstdio>

#include "sample_helper.h"

int main(int argc, const char** argv) {
  const int device = findCudaDevice(argc, argv);
  int count = 0, current = -1, driver = 0, runtime = 0;
  checkCudaErrors(cudaGetDeviceCount(&count));
  checkCudaErrors(cudaGetDevice(&current));
  checkCudaErrors(cudaDriverGetVersion(&driver));
  checkCudaErrors(cudaRuntimeGetVersion(&runtime));
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, device));
  std::printf("Device %d: \"%s\"\n", device, prop.name);
  std::printf("  CUDA driver / runtime version        %d.%d / %d.%d\n", driver / 1000, driver % 1000 / 10,
              runtime / 1000, runtime % 1000 / 10);
  std::printf("  compute capability                   %d.%d\n", prop.major, prop.minor);
  std::printf("  multiprocessors                      %d (%d CUDA cores each where known)\n", prop.multiProcessorCount,
              sample_cores_per_sm(prop.major, prop.minor));
  std::printf("  global memory                        %zu MiB\n", prop.totalGlobalMem >> 20);
  std::printf("  shared memory per block              %zu bytes\n", prop.sharedMemPerBlock);
  std::printf("  warp size, max threads per block     %d, %d\n", prop.warpSize, prop.maxThreadsPerBlock);
  std::printf("  max block                            %d x %d x %d\n", prop.maxThreadsDim[0], prop.maxThreadsDim[1],
              prop.maxThreadsDim[2]);
  std::printf("  max grid                             %d x %d x %d\n", prop.maxGridSize[0], prop.maxGridSize[1],
              prop.maxGridSize[2]);
  // Each attribute against the property it mirrors.
  struct Pair { cudaDeviceAttr attr; int property; const char* name; };
  const Pair pairs[] = {
      {cudaDevAttrMaxThreadsPerBlock, prop.maxThreadsPerBlock, "max threads per block"},
      {cudaDevAttrWarpSize, prop.warpSize, "warp size"},
      {cudaDevAttrMultiProcessorCount, prop.multiProcessorCount, "multiprocessors"},
      {cudaDevAttrComputeCapabilityMajor, prop.major, "compute capability major"},
      {cudaDevAttrComputeCapabilityMinor, prop.minor, "compute capability minor"},
      {cudaDevAttrMaxSharedMemoryPerBlock, int(prop.sharedMemPerBlock), "shared memory per block"},
      {cudaDevAttrL2CacheSize, prop.l2CacheSize, "L2 size"},
      {cudaDevAttrMaxBlockDimX, prop.maxThreadsDim[0], "max block x"},
      {cudaDevAttrMaxGridDimY, prop.maxGridSize[1], "max grid y"},
      {cudaDevAttrUnifiedAddressing, prop.unifiedAddressing, "unified addressing"},
      {cudaDevAttrManagedMemory, prop.managedMemory, "managed memory"},
      {cudaDevAttrCooperativeLaunch, prop.cooperativeLaunch, "cooperative launch"},
  };
  int mismatches = 0;
  for (const Pair& p : pairs) {
    int value = -1;
    checkCudaErrors(cudaDeviceGetAttribute(&value, p.attr, device));
    if (value != p.property) {
      std::printf("  MISMATCH %s: attribute %d, property %d\n", p.name, value, p.property);
      ++mismatches;
    }
  }
  int clock_khz = 0, mode = -1;
  checkCudaErrors(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  checkCudaErrors(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, device));
  std::printf("  clock rate                           %d MHz\n", clock_khz / 1000);
  const bool pass = mismatches == 0 && count >= 1 && current == device && driver >= 13000 && runtime >= 13000 &&
                    prop.warpSize == 32 && prop.maxThreadsPerBlock == 1024 && prop.major >= 7 && clock_khz > 0 &&
                    mode != cudaComputeModeProhibited;
  std::printf("device_query: %s (%d devices, %d attribute mismatches)\n", pass ? "PASS" : "FAIL", count, mismatches);
  return pass ? 0 : 1;
}
