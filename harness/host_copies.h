// Copies between host and device memory, counted, so that the grader can tell a launcher that
// finishes its work on the host (partial sums copied back and added there, the answer copied
// in) from one that leaves it to the GPU. On the CPU backend the runtime counts them
// (cpusim::host_device_copies); on a GPU the lab programs are linked with --wrap for the CUDA
// runtime's copy functions (the Makefile's WRAP_COPIES), and host_copies.cpp counts the calls
// on their way through. A copy by other means (mapped or managed memory, the driver API) is not
// counted.
#pragma once

namespace lab {

// Copies between host and device so far in this process, the harness's own included: callers
// take the difference around the call they watch.
unsigned long long host_device_copies();

}  // namespace lab
