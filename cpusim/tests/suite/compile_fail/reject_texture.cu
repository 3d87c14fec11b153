// reject_texture: texture objects are outside what the CPU backend runs; cpucc stops at the call
// with "Texture fetches (tex1Dfetch) needs a GPU". With nvcc it builds and runs.
#include <cstdio>

__global__ void fetch_kernel(cudaTextureObject_t texture, float* out) {
  out[threadIdx.x] = tex1Dfetch<float>(texture, threadIdx.x);
}

int main() {
  float* d;
  cudaMalloc(&d, 32 * sizeof(float));
  cudaResourceDesc resource = {};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = d;
  resource.res.linear.desc = cudaCreateChannelDesc<float>();
  resource.res.linear.sizeInBytes = 32 * sizeof(float);
  cudaTextureDesc description = {};
  cudaTextureObject_t texture = 0;
  cudaCreateTextureObject(&texture, &resource, &description, nullptr);
  fetch_kernel<<<1, 32>>>(texture, d);
  printf("reject_texture: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
