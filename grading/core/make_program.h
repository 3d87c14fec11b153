// Building lab programs through the checkout's Makefile (mk/labs.mk), as the grader does: the
// parts a program links besides the student's object, and a program in one flavor.
#pragma once

#include <string>
#include <vector>

#include "grading/core/types.h"
#include "tools/subprocess.h"

namespace grade {

// One make of the checkout's Makefile into the build folder, with this machine's cores; the
// paths it prints are its last lines. A student's build runs inside the fences, OWN its folders
// (Sandbox::wrap_build).
tools::RunResult run_make(const Context& ctx, const std::vector<std::string>& args, const std::vector<std::string>* own = nullptr);

// The object of the student's file in PROGRAM, a lab program of LAB.
std::string object_of(const std::string& program, const LabRubric& lab);

// The lab program at PATH, one of LAB's, as a Program: absolute (student programs run in working
// folders of their own), with its object and fingerprint. False when it cannot be read.
bool program_at(const std::string& path, const LabRubric& lab, Program* program);

// The last N lines of make's OUTPUT, where make program and make program-parts print paths.
std::vector<std::string> printed_paths(const std::string& output, size_t n);

// Builds one lab program, from folder SRC in FLAVOR, into *PROGRAM (with *LOG what make said).
bool make_program(const Context& ctx, const std::string& src, const LabRubric& lab, const std::string& flavor,
                  Program* program, std::string* log, const std::vector<std::string>* own = nullptr);

// Builds what the programs of lab LAB from folder SRC link besides the student's object, in
// each of FLAVORS, as the grader: the student's build, fenced, cannot write them. Returns the
// programs' paths, absolute. A failure is this machine's: CannotGrade.
std::vector<std::string> make_program_parts(const Context& ctx, const std::string& src, const LabRubric& lab,
                                            const std::vector<std::string>& flavors);

}  // namespace grade
