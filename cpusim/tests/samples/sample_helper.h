// The sample-style programs' helper header, written for these tests in the manner of
// cuda-samples' Common/helper_cuda.h (which no Debian or PyPI package ships, and which the
// project does not copy). Like it, it decides what to define from the include guards of the
// CUDA headers included before it: the error checks only when the runtime's types are there
// (__DRIVER_TYPES_H__), the device choice only with the runtime (__CUDA_RUNTIME_H__), and an
// error-name overload per library whose header was included (CUBLAS_API_H_, _CUFFT_H_,
// CURAND_H_). So a program that builds with it shows that cpucc's headers define the guards
// the toolkit's do: without them, checkCudaErrors would be undeclared.
#pragma once

#include <cstdio>
#include <cstdlib>

// The name of an error code, one overload per API whose header was included.
#ifdef __DRIVER_TYPES_H__
inline const char* sample_error_name(cudaError_t e) { return cudaGetErrorName(e); }
#endif
#ifdef CUBLAS_API_H_
inline const char* sample_error_name(cublasStatus_t s) { return cublasGetStatusName(s); }
#endif
#ifdef _CUFFT_H_
inline const char* sample_error_name(cufftResult r) { return r == CUFFT_SUCCESS ? "CUFFT_SUCCESS" : "a cuFFT error"; }
#endif
#ifdef CURAND_H_
inline const char* sample_error_name(curandStatus_t s) { return s == CURAND_STATUS_SUCCESS ? "CURAND_STATUS_SUCCESS" : "a cuRAND error"; }
#endif

// Any API's status: 0 is success in all of them.
template <class Status>
void sample_check(Status status, const char* expression, const char* file, int line) {
  if (status == 0) return;
  std::fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, expression, sample_error_name(status), int(status));
  std::exit(EXIT_FAILURE);
}

#ifdef __DRIVER_TYPES_H__
#define checkCudaErrors(expression) sample_check((expression), #expression, __FILE__, __LINE__)
#define getLastCudaError(message) sample_check(cudaGetLastError(), message, __FILE__, __LINE__)
#endif

#ifdef __CUDA_RUNTIME_H__
// CUDA cores per SM by compute capability, for the device summary (0 when unknown).
inline int sample_cores_per_sm(int major, int minor) {
  struct Row { int major, minor, cores; };
  const Row table[] = {{7, 0, 64}, {7, 5, 64}, {8, 0, 64}, {8, 6, 128}, {8, 9, 128}, {9, 0, 128}, {10, 0, 128}, {12, 0, 128}};
  for (const Row& r : table)
    if (r.major == major && r.minor == minor) return r.cores;
  return 0;
}

// Picks the device named by --device=N, else device 0, and makes it current; exits when there
// is none or it cannot compute (compute mode "prohibited").
inline int findCudaDevice(int argc, const char** argv) {
  int count = 0;
  checkCudaErrors(cudaGetDeviceCount(&count));
  if (count == 0) {
    std::fprintf(stderr, "findCudaDevice: no CUDA device\n");
    std::exit(EXIT_FAILURE);
  }
  int device = 0;
  for (int i = 1; i < argc; ++i) std::sscanf(argv[i], "--device=%d", &device);
  if (device < 0 || device >= count) {
    std::fprintf(stderr, "findCudaDevice: no device %d (there are %d)\n", device, count);
    std::exit(EXIT_FAILURE);
  }
  int mode = 0, major = 0, minor = 0;
  checkCudaErrors(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, device));
  checkCudaErrors(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  checkCudaErrors(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (mode == cudaComputeModeProhibited) {
    std::fprintf(stderr, "findCudaDevice: device %d is in compute mode 'prohibited'\n", device);
    std::exit(EXIT_FAILURE);
  }
  checkCudaErrors(cudaSetDevice(device));
  std::printf("GPU Device %d: compute capability %d.%d\n", device, major, minor);
  return device;
}
#endif
