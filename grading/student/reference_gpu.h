// The GPU that make profile's estimates are for: one table. The H100's figures are the ones
// this project measured on its H100 80GB HBM3 where it measured them, NVIDIA's otherwise.
#pragma once

namespace grade {

struct ReferenceGpu {
  const char* name;
  double fp32_peak;      // FLOP/s: every FMA lane busy
  double fp32_sgemm;     // FLOP/s that cuBLAS's SGEMM reaches: what a matrix product can expect
  double dram_bandwidth; // bytes/s, read + write, that a device-to-device copy reaches
  double l2_bytes;
  int sms;
  double clock_hz;       // shared memory serves one wavefront per SM per clock
  int max_threads_per_sm, max_blocks_per_sm;
  double shared_bytes_per_sm, shared_reserved_per_block;  // bytes
};

// fp32_peak: 132 SMs x 128 FMA lanes x 2 FLOP x 1.98 GHz (docs/tuning.md, "The floors");
// fp32_sgemm: cuBLAS SGEMM at 4096^3 (docs/tuning.md, 51.3 TFLOP/s; 50.97-51.67 in
// docs/results/bench-h100.log); dram_bandwidth: the copy of docs/results/bench-h100.log
// (2.96-3.00 TB/s); the rest from NVIDIA's H100 specifications (50 MiB L2, 228 KB of shared
// memory per SM, 1 KB of it reserved per block).
inline constexpr ReferenceGpu kH100{"H100 80GB HBM3", 66.9e12, 51.3e12, 3.0e12, 50.0 * 1024 * 1024, 132, 1.98e9,
                                    2048, 32, 228.0 * 1024, 1024};

}  // namespace grade
