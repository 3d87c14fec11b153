// Writing a file whole or not at all: what every report, gradebook and recorded table is written
// with, so that a reader never sees half of one.
#pragma once

#include <string>

namespace grade {

// Writes TEXT to PATH through a temporary file renamed over it; makes PATH's folder first. False
// when it cannot.
bool write_atomically(const std::string& path, const std::string& text);

}  // namespace grade
