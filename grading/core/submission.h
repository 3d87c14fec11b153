// A student's lab file, taken in for building: the grader builds a private copy of the one
// file, never the folder it was handed in, and checks afterwards that the build read nothing
// else of the checkout. A build of the copy sees only the lab's public headers (the checkout's
// folder public/, the Makefile's PUBLIC), so `#include "solutions/..."` does not resolve; a path
// that climbs out of the copy's folder, an absolute one, or one hidden behind a macro does, and
// the compiler's own list of what it read (its -MD file) shows it.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace grade {

// Why FILE (in lab folder FOLDER) cannot be graded as handed in, or "": each must be itself,
// not a symbolic link (to the solution, say), and the file a regular one of a sane size (a FIFO
// would block the build, a device would never end).
std::string not_a_plain_file(const std::string& folder, const std::string& file);

// Copies FILE to DIR/<the SHA-256 of its bytes>/NAME, unless that copy exists already, and
// returns that folder ("" with *error when it cannot). Named after its content, a copy is built
// once in a reused build folder, whoever hands it in: resubmitted, or handed in by many
// students of a class (each untouched skeleton). The bytes are read once, so the copy is what
// the hash names even if FILE changes meanwhile.
std::string copy_by_content(const std::string& file, const std::string& dir, const std::string& name, std::string* error);

// The folders whose headers any build may read: the compilers' own (g++'s search list, the
// CUDA Toolkit's folder) and the CPU backend's stand-ins for the toolkit's headers, resolved.
std::vector<std::string> system_include_roots();

// The names the shared C++ library exports (mangled), which a definition in the lab program
// would replace for the whole program; empty when they cannot be read.
std::set<std::string> cxx_library_exports();

// The first file listed in the make dependency file DEP_FILE that is neither one of OWN (the
// student's file, as copied) nor under one of ROOTS, resolved through links; "" when there is
// none. A dependency file that cannot be read counts as reading something unknown: its own path
// is returned.
std::string foreign_include(const std::string& dep_file, const std::vector<std::string>& own,
                            const std::vector<std::string>& roots);

// The headers in PUBLIC_DIR, the ones a lab file may include, as "common/ceil_div.h, ...".
std::string public_headers_text(const std::string& public_dir);

// Where FILE's text names FOREIGN, as "line N: <the line>", or "" when no #include line of
// FILE names it by its file name (a macro did).
std::string include_line(const std::string& file, const std::string& foreign);

}  // namespace grade
