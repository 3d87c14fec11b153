// Whether a lab's file is still the skeleton as handed out: its SHA-256 is the one that
// grading/skeletons.sha256 lists for the lab (`make skeletons` writes the list beside the files,
// `make check-skeletons` checks it). Such a lab is not started: the grader says so once, rather
// than a failing hint per shape, and runs none of its shapes; make status says so too.
#pragma once

#include <string>

#include "common/labs.h"

namespace grade {

inline constexpr char kSkeletonList[] = "grading/skeletons.sha256";

// FILE (a lab file handed in as LAB's) against LIST; false when either cannot be read.
bool untouched_skeleton(const std::string& file, const lab::LabEntry& lab, const std::string& list = kSkeletonList);

}  // namespace grade
