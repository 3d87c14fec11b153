// Student output in the reports: whatever bytes a program printed, made valid UTF-8, and cut
// only between characters, so that results.json is always valid JSON (Gradescope rejects a
// file that is not).
#pragma once

#include <cstddef>
#include <string>

namespace grade {

// `text` with every byte that does not belong to a well-formed UTF-8 character (a stray
// continuation byte, a truncated or overlong sequence, a surrogate, beyond U+10FFFF) replaced
// by U+FFFD.
std::string valid_utf8(const std::string& text);

// The longest prefix of `text` of at most `max_bytes` bytes that does not end inside a
// character.
std::string utf8_prefix(const std::string& text, size_t max_bytes);

}  // namespace grade
