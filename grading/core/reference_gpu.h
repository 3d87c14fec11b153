// The GPU that make profile's estimates are for: the one a GPU run ran on, described from what
// the lab program measured there; on the CPU backend, one of the tables below, the H100 by
// default (make profile GPU=H200 for the other). Each table's figures are the ones this project
// measured on that GPU where it measured them, NVIDIA's otherwise.
#pragma once

#include <optional>
#include <string>

namespace grade {

struct ReferenceGpu {
  std::string name;
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
inline const ReferenceGpu kH100{"H100 80GB HBM3", 66.9e12, 51.3e12, 3.0e12, 50.0 * 1024 * 1024, 132, 1.98e9,
                                2048, 32, 228.0 * 1024, 1024};

// The H200: the same chip and clocks (its SGEMM 51.37 TFLOP/s at 4096^3), more and faster memory:
// a copy at 4.16 TB/s and a 60 MiB L2 (docs/results/bench-20261129-0716-h200.log).
inline const ReferenceGpu kH200{"H200", 66.9e12, 51.4e12, 4.16e12, 60.0 * 1024 * 1024, 132, 1.98e9,
                                2048, 32, 228.0 * 1024, 1024};

// The table named NAME (H100 or H200, as written or in lowercase); nothing for another.
std::optional<ReferenceGpu> reference_gpu_named(const std::string& name);

// The GPU a run ran on, from what the lab program measured there: its name, FP32 peak (FLOP/s),
// a copy's rate (bytes/s), SMs and L2; what a Hopper SM holds for the rest, and the SGEMM rate at
// the share of the peak that cuBLAS reaches on the H100.
ReferenceGpu measured_gpu(const std::string& name, double fp32_peak, double copy_bandwidth, int sms, double l2_bytes);

}  // namespace grade
