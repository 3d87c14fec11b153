// ThreadSanitizer's report of a data race, said in the lab's words: which CUDA threads (the CPU
// backend names its fibers "CUDA block (x,y,z) thread (x,y,z)"), what each did, on which line of
// the student's file, and what orders two such accesses on a GPU. The raw report names the build
// folder's paths and the runtime's frames, which mean nothing to a student.
#pragma once

#include <string>
#include <vector>

namespace grade {

// The races of REPORT (ThreadSanitizer's output), at most MAX of them, a sentence and a hint each,
// naming lines by the file name FILE (dot_reduction.cu) as "FILE:LINE"; empty when REPORT holds
// no race that it can read.
std::vector<std::string> races_in_plain_words(const std::string& report, const std::string& file, size_t max = 2);

}  // namespace grade
