// copy_counts (CPU backend only: cpusim::host_device_copies is cpusim's own): the copies that
// cross between host and device, which the grader's one-pass check counts in a launcher, and
// the ones that do not. Prints one line per copy: the count after it.
#include <cstdio>

__device__ float symbol[4];

int main() {
  float host[4] = {1, 2, 3, 4};
  float *a, *b;
  cudaMalloc(&a, sizeof host);
  cudaMalloc(&b, sizeof host);
  auto show = [](const char* what) { printf("%s %llu\n", what, cpusim::host_device_copies()); };
  show("start");
  cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice);
  show("host_to_device");
  cudaMemcpy(b, a, sizeof host, cudaMemcpyDeviceToDevice);
  show("device_to_device");
  cudaMemcpy(b, a, sizeof host, cudaMemcpyDefault);
  show("default_device_to_device");
  cudaMemcpy(host, b, sizeof host, cudaMemcpyDefault);
  show("default_device_to_host");
  cudaMemcpyToSymbol(symbol, host, sizeof host);
  show("to_symbol_from_host");
  cudaMemcpyToSymbol(symbol, a, sizeof host, 0, cudaMemcpyDeviceToDevice);
  show("to_symbol_from_device");
  cudaMemcpyFromSymbol(a, symbol, sizeof host, 0, cudaMemcpyDefault);
  show("from_symbol_default_to_device");
  cudaMemcpyFromSymbol(host, symbol, sizeof host);
  show("from_symbol_to_host");
  return 0;
}
