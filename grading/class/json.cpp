#include "grading/class/json.h"

#include <cstdlib>
#include <cstring>

namespace grade {

namespace {

struct Reader {
  const std::string& text;
  size_t at = 0;
  std::string error;

  void blanks() {
    while (at < text.size() && std::strchr(" \t\r\n", text[at]) != nullptr && text[at] != '\0') ++at;
  }
  bool fail(const std::string& why) {
    if (error.empty()) error = "at byte " + std::to_string(at) + ": " + why;
    return false;
  }
  bool literal(const char* word) {
    if (text.compare(at, std::strlen(word), word) != 0) return fail("unexpected text");
    at += std::strlen(word);
    return true;
  }

  // A \uXXXX escape (a surrogate pair taken whole) as UTF-8.
  bool unicode(std::string* out) {
    auto hex4 = [&](unsigned* u) {
      if (at + 4 > text.size()) return false;
      char* end = nullptr;
      const std::string digits = text.substr(at, 4);
      *u = unsigned(std::strtoul(digits.c_str(), &end, 16));
      at += 4;
      return end == digits.c_str() + 4;
    };
    unsigned u = 0, low = 0;
    if (!hex4(&u)) return fail("a bad \\u escape");
    if (u >= 0xD800 && u < 0xDC00 && text.compare(at, 2, "\\u") == 0) {
      at += 2;
      if (!hex4(&low) || low < 0xDC00 || low >= 0xE000) return fail("a bad surrogate pair");
      u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
    }
    if (u < 0x80) *out += char(u);
    else if (u < 0x800) *out += {char(0xC0 | u >> 6), char(0x80 | (u & 0x3F))};
    else if (u < 0x10000) *out += {char(0xE0 | u >> 12), char(0x80 | (u >> 6 & 0x3F)), char(0x80 | (u & 0x3F))};
    else *out += {char(0xF0 | u >> 18), char(0x80 | (u >> 12 & 0x3F)), char(0x80 | (u >> 6 & 0x3F)), char(0x80 | (u & 0x3F))};
    return true;
  }

  bool string(std::string* out) {
    if (!literal("\"")) return false;
    while (at < text.size() && text[at] != '"') {
      const char c = text[at++];
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (at >= text.size()) break;
      const char e = text[at++];
      const char* plain = std::strchr("\"\\/bfnrt", e);
      if (e == 'u') {
        if (!unicode(out)) return false;
      } else if (plain != nullptr && e != '\0') {
        *out += "\"\\/\b\f\n\r\t"[plain - "\"\\/bfnrt"];
      } else {
        return fail("a bad escape");
      }
    }
    return literal("\"");
  }

  bool value(JsonValue* v, int depth);

  bool container(JsonValue* v, int depth, char close) {
    ++at;
    blanks();
    if (at < text.size() && text[at] == close) return ++at, true;
    for (;;) {
      blanks();
      if (close == '}') {
        v->members.emplace_back();
        if (!string(&v->members.back().first)) return false;
        blanks();
        if (!literal(":") || !value(&v->members.back().second, depth + 1)) return false;
      } else {
        v->items.emplace_back();
        if (!value(&v->items.back(), depth + 1)) return false;
      }
      blanks();
      if (at < text.size() && text[at] == ',') {
        ++at;
        continue;
      }
      return literal(close == '}' ? "}" : "]");
    }
  }
};

bool Reader::value(JsonValue* v, int depth) {
  if (depth > 64) return fail("nested too deep");
  blanks();
  if (at >= text.size()) return fail("the text ends where a value should be");
  const char c = text[at];
  if (c == '{') return v->type = JsonValue::Type::kObject, container(v, depth, '}');
  if (c == '[') return v->type = JsonValue::Type::kArray, container(v, depth, ']');
  if (c == '"') return v->type = JsonValue::Type::kString, string(&v->string);
  if (c == 't' || c == 'f') return v->type = JsonValue::Type::kBool, v->boolean = c == 't', literal(c == 't' ? "true" : "false");
  if (c == 'n') return literal("null");
  char* end = nullptr;
  v->number = std::strtod(text.c_str() + at, &end);
  if (end == text.c_str() + at) return fail("not a value");
  v->type = JsonValue::Type::kNumber;
  at = size_t(end - text.c_str());
  return true;
}

}  // namespace

const JsonValue* JsonValue::get(const std::string& name) const {
  for (const auto& [key, member] : members) {
    if (key == name) return &member;
  }
  return nullptr;
}

bool parse_json(const std::string& text, JsonValue* value, std::string* error) {
  Reader r{text, 0, ""};
  *value = JsonValue{};
  bool ok = r.value(value, 0);
  r.blanks();
  if (ok && r.at != text.size()) ok = r.fail("text after the value");
  if (!ok) *error = r.error;
  return ok;
}

}  // namespace grade
