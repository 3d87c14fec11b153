// make profile's page (one self-contained HTML file, inline SVG, no script, nothing fetched): the
// lab's source with each line that touches memory marked by how far its requests are from the
// ideal, and for each such line one warp's request drawn: its 32 lanes, the 32-byte sectors
// (global memory) or the 32 banks (shared memory) they fall in, the ideal beside it.
//
// Where the figures come from, said on the page: on the CPU backend everything is the memory
// model's (cpusim/memory-model.md); on a GPU the per-line sectors and wavefronts are Nsight Compute's
// source counters, and the lanes are still drawn from the model's run of the same source, when
// one was made (a GPU cannot say which lane went where).
#pragma once

#include <string>
#include <vector>

#include "grading/core/kernel_counts.h"

namespace grade {

// Nsight Compute's counts for one source line's loads or stores of one space, summed over its
// instructions: requests and sectors (global) or wavefronts (shared), and their ideal.
struct MeasuredLine {
  std::string kernel;  // its function's name, as kernel_base_name() gives it
  std::string file;    // as the model's sites name it: relative to `root`
  int line = 0;
  std::string space, kind;  // global or shared; load or store
  Accesses traffic;
};

struct AccessPage {
  std::string title;              // "lab 04 (transpose), rows=1024 cols=1024"
  std::string measured_by;        // "Nsight Compute on NVIDIA H200", or "" on the CPU backend
  const RunCounts* model = nullptr;  // the CPU backend's counts, sites located (the drawings); may be null
  std::string model_problem;      // the problem the model ran, when it differs from the title's
  std::vector<MeasuredLine> measured;  // a GPU's per-line counts; empty on the CPU backend
  const RunCounts* solution = nullptr;  // the solution's, drawn after the student's (instructor's copy); may be null
  std::string root;               // the folder the source paths are relative to
};

std::string access_page_html(const AccessPage& page);

// Nsight Compute's source page of a report, as CSV (ncu --import R --page source --csv
// --print-source cuda,sass, from a run with the SourceCounters section): each CUDA line, then
// its SASS instructions with their address space, operation and counts. Paths under `root`
// are given relative to it.
std::vector<MeasuredLine> read_ncu_source_csv(const std::string& path, const std::string& root);

}  // namespace grade
