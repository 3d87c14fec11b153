// What cpusim-rewrite refuses rather than rewrites: code that only a GPU can run, and attributes
// that would hide a kernel's fault from the checks standing in for a GPU's. run() reports them.
#include "rewriter.h"

namespace cpusim::rewrite {

// asm(...) in a .cu file is inline PTX; in a .cpp file it is the host's own, and stays.
bool rewriter::inline_asm(size_t i) const {
  return cu_ && (src_.is(i, "asm") || src_.is(i, "__asm__") || src_.is(i, "__asm")) &&
         (src_.is(i + 1, "(") || src_.is(i + 1, "volatile") || src_.is(i + 1, "__volatile__") ||
          src_.is(i + 1, "goto"));
}

// GCC's attributes that exempt a function from the sanitizers cpucc compiles with
// (-fsanitize=alignment, address, thread): a kernel could hide its misaligned access, its
// out-of-bounds index or its race from the checks that a GPU makes by itself.
bool rewriter::turns_off_a_check(size_t i) const {
  static const char* const names[] = {"no_sanitize", "__no_sanitize__", "no_sanitize_address", "__no_sanitize_address__",
                                      "no_sanitize_thread", "__no_sanitize_thread__", "no_sanitize_undefined",
                                      "__no_sanitize_undefined__", "no_address_safety_analysis",
                                      "__no_address_safety_analysis__", "disable_sanitizer_instrumentation",
                                      "__disable_sanitizer_instrumentation__"};
  for (const char* name : names)
    if (src_.is(i, name)) return true;
  return false;
}

}  // namespace cpusim::rewrite
