// What a course platform's autograder does with one upload, whichever platform runs it
// (Gradescope: grading/course/gradescope/; PrairieLearn: grading/course/prairielearn/): find the
// lab files in what was handed in, grade them with the grader itself (build/host/grade, a
// subprocess, on the CPU backend: no platform gives an autograder a GPU), and leave the grader's
// results.json, or one that says why nothing was graded. Each platform's program then writes
// that file in its platform's format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/labs.h"

namespace grade {

struct AutogradeOptions {
  std::string lab;                                // "" for every lab of labs.txt
  std::string rubric = "grading/rubric.txt";
  std::string build_dir = "build/grade-build";    // the grader's build folder, warmed when the image was built
  int64_t timeout = 540;                          // seconds the grader may take
};

// The labs graded: labs.txt's, or those LAB names (01, or a list, 01,04). "" when they are known, else why not.
std::string labs_to_grade(const std::string& lab, std::vector<lab::LabEntry>* labs);

// Grades what was handed in at UPLOAD (a folder: the lab files, a labs/ folder, lab folders, or
// one archive of these), with WORK as scratch, into REPORT/results.json: the grader's, or one
// that says why there was nothing to grade or why the grader wrote nothing (report.h's
// write_could_not_grade). Where each lab file was found, and what is missing, in *notes. The
// grader's console goes to this program's standard output (the platform's log).
void autograde(const AutogradeOptions& o, const std::vector<lab::LabEntry>& labs, const std::string& upload, const std::string& work,
               const std::string& report, std::vector<std::string>* notes);

// What a student reads first on PLATFORM ("Gradescope", "PrairieLearn"): that the upload was
// graded on the CPU backend and what that leaves out, then NOTES, one line each.
std::string upload_preamble(const std::string& platform, const std::vector<std::string>& notes);

// The whole of the file at PATH; "" when it cannot be read.
std::string file_text(const std::string& path);

// The grader's results.json at PATH (grading/core/report.h's format): false, with the reason in
// *why, when it is not one (missing, not JSON, no score, tests or output).
bool read_grader_results(const std::string& path, nlohmann::json* results, std::string* why);

}  // namespace grade
