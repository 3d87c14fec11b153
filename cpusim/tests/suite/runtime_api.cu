// runtime_api: the runtime calls the labs use, and the error codes of the usual mistakes.
// Expected: the same lines on the CPU backend and on an H100 (the device name is not printed).
#include <cstring>

#include "check.cuh"

__constant__ float coefficients[4];
__device__ int device_counter;

// grid(1), block(4): out[t] = coefficients[t] * 2 + device_counter.
__global__ void constant_kernel(float* out) { out[threadIdx.x] = coefficients[threadIdx.x] * 2 + device_counter; }

__global__ void busy_kernel(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + 1.0f;
}

int main() {
  int count = 0, device = -1;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("runtime_api: devices>=1:%d device=%d cc=%d.%d warpSize=%d maxThreadsPerBlock=%d smem=%zu optin=%zu "
         "maxThreadsDim=(%d,%d,%d) maxGridSize=(%d,%d,%d)\n",
         count >= 1, device, prop.major, prop.minor, prop.warpSize, prop.maxThreadsPerBlock, prop.sharedMemPerBlock,
         prop.sharedMemPerBlockOptin, prop.maxThreadsDim[0], prop.maxThreadsDim[1], prop.maxThreadsDim[2],
         prop.maxGridSize[0], prop.maxGridSize[1], prop.maxGridSize[2]);
  int optin = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  printf("runtime_api: attribute optin=%d meminfo free<=total:%d\n", optin, free_bytes <= total_bytes);

  // Errors: names and texts.
  printf("runtime_api: %s \"%s\"; %s \"%s\"; %s \"%s\"\n", cudaGetErrorName(cudaSuccess),
         cudaGetErrorString(cudaSuccess), cudaGetErrorName(cudaErrorInvalidConfiguration),
         cudaGetErrorString(cudaErrorInvalidConfiguration), cudaGetErrorName(cudaErrorIllegalAddress),
         cudaGetErrorString(cudaErrorIllegalAddress));

  // Memory: memset, copies in every direction, __constant__ and __device__ symbols.
  const int n = 1 << 12;
  float *d_a, *d_b, *h_pinned;
  CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_pinned, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_a, 0, n * sizeof(float)));
  for (int i = 0; i < n; ++i) h_pinned[i] = (float)i;
  CUDA_CHECK(cudaMemcpy(d_a, h_pinned, n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b, d_a, n * sizeof(float), cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaMemcpy(h_pinned, d_b, n * sizeof(float), cudaMemcpyDefault));
  const float coeffs[4] = {1.5f, 2.5f, 3.5f, 4.5f};
  const int counter = 100;
  CUDA_CHECK(cudaMemcpyToSymbol(coefficients, coeffs, sizeof coeffs));
  CUDA_CHECK(cudaMemcpyToSymbol(device_counter, &counter, sizeof counter));
  constant_kernel<<<1, 4>>>(d_a);
  CUDA_CHECK(cudaGetLastError());
  float out[4];
  int counter_back = 0;
  CUDA_CHECK(cudaMemcpy(out, d_a, sizeof out, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpyFromSymbol(&counter_back, device_counter, sizeof counter_back));
  printf("runtime_api: copies h[4095]=%.0f constant %.0f %.0f %.0f %.0f counter=%d\n", h_pinned[4095], out[0], out[1],
         out[2], out[3], counter_back);

  // Streams and events.
  cudaStream_t stream;
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start, stream));
  CUDA_CHECK(cudaMemcpyAsync(d_a, h_pinned, n * sizeof(float), cudaMemcpyHostToDevice, stream));
  busy_kernel<<<n / 256, 256, 0, stream>>>(d_a, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemsetAsync(d_b, 0, sizeof(float), stream));
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaEventSynchronize(stop));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  float ms = -1;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  CUDA_CHECK(cudaEventQuery(stop));
  CUDA_CHECK(cudaMemcpy(h_pinned, d_a, n * sizeof(float), cudaMemcpyDeviceToHost));
  printf("runtime_api: stream result h[10]=%.1f elapsed>=0:%d\n", h_pinned[10], ms >= 0);
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaStreamDestroy(stream));

  // The usual mistakes: each returns an error and leaves the context usable.
  float host[8];
  float* roomy = new float[n + 8];  // room for the whole copy, in case a driver did not check
  cudaError_t too_long = cudaMemcpy(roomy, d_a, (n + 8) * sizeof(float), cudaMemcpyDeviceToHost);
  delete[] roomy;
  cudaGetLastError();
  cudaError_t swapped = cudaMemcpy(d_a, host, sizeof host, cudaMemcpyDeviceToHost);
  cudaGetLastError();
  cudaError_t bad_free = cudaFree(host);
  cudaGetLastError();
  cudaEvent_t never;
  CUDA_CHECK(cudaEventCreate(&never));
  cudaError_t unrecorded = cudaEventElapsedTime(&ms, never, never);
  cudaGetLastError();
  printf("runtime_api: mistakes: copy past the end=%s, swapped copy=%s, free of a host pointer=%s, "
         "unrecorded event=%s\n",
         cudaGetErrorName(too_long), cudaGetErrorName(swapped), cudaGetErrorName(bad_free),
         cudaGetErrorName(unrecorded));
  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaFreeHost(h_pinned));
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("runtime_api: done, last error %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
