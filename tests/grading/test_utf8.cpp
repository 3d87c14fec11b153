// Student output on its way into results.json (grading/core/utf8.h): always valid UTF-8, cut only
// between characters.
#include <doctest/doctest.h>

#include <string>

#include "grading/core/utf8.h"

TEST_CASE("valid UTF-8 passes unchanged; every malformed byte becomes U+FFFD") {
  const std::string fine = "José Ñ 数 \xF0\x9F\x98\x80 ok";
  CHECK(grade::valid_utf8(fine) == fine);
  const std::string bad = "\xEF\xBF\xBD";
  CHECK(grade::valid_utf8("a\xFF" "b") == "a" + bad + "b");              // never valid
  CHECK(grade::valid_utf8("\x80") == bad);                                // a stray continuation byte
  CHECK(grade::valid_utf8("\xC3") == bad);                                // truncated at the end
  CHECK(grade::valid_utf8("\xE6\x95" "x") == bad + bad + "x");            // truncated in the middle
  CHECK(grade::valid_utf8("\xC0\xAF") == bad + bad);                      // overlong '/'
  CHECK(grade::valid_utf8("\xED\xA0\x80") == bad + bad + bad);            // a surrogate
  CHECK(grade::valid_utf8("\xF4\x90\x80\x80") == bad + bad + bad + bad);  // beyond U+10FFFF
}

TEST_CASE("a cut never splits a character") {
  const std::string text = "ab\xC3\xB1" "c\xE6\x95\xB0";  // a b ñ c 数
  CHECK(grade::utf8_prefix(text, 100) == text);
  CHECK(grade::utf8_prefix(text, 3) == "ab");  // inside ñ: before it
  CHECK(grade::utf8_prefix(text, 4) == "ab\xC3\xB1");
  CHECK(grade::utf8_prefix(text, 6) == "ab\xC3\xB1" "c");
  CHECK(grade::utf8_prefix(text, 7) == "ab\xC3\xB1" "c");
  CHECK(grade::utf8_prefix(text, 0) == "");
}
