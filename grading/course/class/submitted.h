// When a student handed each lab in, for the late policy (grading/core/late.h): the time an LMS's
// export records, else the lab file's own modification time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/labs.h"

namespace grade {

// The time each of LABS was handed in (seconds since 1970, -1 when its file is missing): the
// `created_at` of a Gradescope submission_metadata.json in TOP (the entry) or ROOT (the folder
// of its labs), the same for every lab, when there is one that reads; else each lab file's
// modification time (an archive's files keep their entry's time when unpacked).
std::vector<int64_t> submission_times(const std::string& top, const std::string& root, const std::vector<lab::LabEntry>& labs);

}  // namespace grade
