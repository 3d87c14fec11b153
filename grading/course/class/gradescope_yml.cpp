#include "grading/course/class/gradescope_yml.h"

#include <cctype>
#include <cstdint>
#include <set>

// A reader of this one file, not a YAML library: the project would take a new dependency (CI,
// the platforms' images, make doctor, install-deps) for one file that one writer makes. Psych,
// Ruby's YAML, writes a string in one of four styles (libyaml's emitter picks among them): plain,
// 'single-quoted', "double-quoted" with escapes, or a |literal block for one with a line break;
// plain and quoted ones longer than 80 columns continue on more-indented lines. This reader
// understands those four for the values it reads, finds the keys by their indentation (two
// spaces a level, a list's "- " at its key's indentation), and skips everything else by
// indentation alone: what it skips (the results, the history) may hold any text, but the writer
// indents every line of a nested value deeper than its key. Anything else where it reads (a
// tag, an alias, a folded >block, a value on the line below its key) is refused, with its line.

namespace grade {

namespace {

size_t indent_of(const std::string& line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

// Nothing but spaces, or a comment.
bool blank(const std::string& line) {
  const size_t n = indent_of(line);
  return n == line.size() || line[n] == '#';
}

// TEXT without the anchors (&name, which an alias elsewhere may repeat) that begin it.
std::string without_anchors(std::string text) {
  while (!text.empty() && text[0] == '&') {
    const size_t next = text.find_first_not_of(' ', text.find(' '));
    text = next == std::string::npos ? "" : text.substr(next);
  }
  return text;
}

bool only_spaces(const std::string& line) { return line.find_first_not_of(" \t") == std::string::npos; }

// A list item at column N: "- ..." or "-".
bool item_at(const std::string& line, size_t n) {
  return line.size() > n && line[n] == '-' && (line.size() == n + 1 || line[n + 1] == ' ');
}

std::string trim_right(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

// CONTENT (a line from its key on) as "KEY: REST" or "KEY:"; false when it is no mapping entry.
// Gradescope's keys are Ruby symbols (:name); other keys, only skipped, end at the first ": ".
bool split_entry(const std::string& content, std::string* key, std::string* rest) {
  size_t end = 0;
  if (!content.empty() && content[0] == ':') {
    end = 1;
    while (end < content.size() && (std::isalnum(static_cast<unsigned char>(content[end])) || content[end] == '_')) ++end;
    if (end == 1) return false;
  } else {
    end = content.find(": ");
    if (end == std::string::npos) end = trim_right(content).size() - 1;
  }
  if (end >= content.size() || content[end] != ':' || (end + 1 < content.size() && content[end + 1] != ' ')) return false;
  *key = content.substr(0, end);
  const size_t start = content.find_first_not_of(' ', end + 1);
  *rest = start == std::string::npos || content[start] == '#' ? "" : trim_right(content.substr(start));
  return true;
}

void append_utf8(uint32_t c, std::string* out) {
  if (c < 0x80) {
    *out += char(c);
  } else if (c < 0x800) {
    *out += char(0xC0 | c >> 6);
    *out += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    *out += char(0xE0 | c >> 12);
    *out += char(0x80 | (c >> 6 & 0x3F));
    *out += char(0x80 | (c & 0x3F));
  } else {
    *out += char(0xF0 | c >> 18);
    *out += char(0x80 | (c >> 12 & 0x3F));
    *out += char(0x80 | (c >> 6 & 0x3F));
    *out += char(0x80 | (c & 0x3F));
  }
}

class Reader {
 public:
  // TEXT's lines. YAML 1.1 (libyaml's, so Psych's) breaks a line at \n, \r\n, \r and NEL, and at
  // the Unicode line and paragraph separators, which a folded value keeps as they are.
  explicit Reader(const std::string& text) {
    size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    for (size_t p = start; p <= text.size();) {
      size_t len = 0;
      std::string specific;
      if (p == text.size()) {
        len = 1;
      } else if (text[p] == '\n' || text[p] == '\r') {
        len = text.compare(p, 2, "\r\n") == 0 ? 2 : 1;
      } else if (text.compare(p, 2, "\xC2\x85") == 0) {
        len = 2;
      } else if (text.compare(p, 3, "\xE2\x80\xA8") == 0 || text.compare(p, 3, "\xE2\x80\xA9") == 0) {
        len = 3;
        specific = text.substr(p, 3);
      }
      if (len == 0) {
        ++p;
        continue;
      }
      lines_.push_back(text.substr(start, p - start));
      ends_.push_back(specific);
      p += len;
      start = p;
    }
  }

  bool read(std::vector<GradescopeSubmission>* out, std::string* error) {
    out->clear();
    if (!read_document(out)) return *error = error_, false;
    return true;
  }

 private:
  std::vector<std::string> lines_;
  std::vector<std::string> ends_;  // per line, the separator that ended it; "" for a plain line break
  size_t i_ = 0;
  std::string error_;

  bool fail(const std::string& what) {
    if (error_.empty()) error_ = "line " + std::to_string(std::min(i_, lines_.size() - 1) + 1) + ": " + what;
    return false;
  }
  void skip_blank() {
    while (i_ < lines_.size() && blank(lines_[i_])) ++i_;
  }
  // Past the lines nested deeper than N, and the list items at N that belong to the key above.
  void skip_value(size_t n) {
    for (; i_ < lines_.size(); ++i_) {
      const std::string& l = lines_[i_];
      if (!blank(l) && indent_of(l) < n + 1 && !(indent_of(l) == n && item_at(l, n))) break;
    }
  }

  bool read_document(std::vector<GradescopeSubmission>* out) {
    skip_blank();
    if (i_ < lines_.size() && lines_[i_].rfind("---", 0) == 0) {
      const std::string rest = trim_right(lines_[i_].substr(3));
      if (rest == " {}") return ++i_, true;
      if (!rest.empty()) return fail("expected the submissions on the lines after ---");
      ++i_;
    }
    std::set<std::string> folders;
    for (skip_blank(); i_ < lines_.size(); skip_blank()) {
      const std::string& line = lines_[i_];
      if (line == "...") break;
      std::string key, rest;
      if (indent_of(line) != 0 || !split_entry(line, &key, &rest)) return fail("expected a submission's folder, such as submission_123:");
      const bool submission = key.rfind("submission_", 0) == 0 && key.size() > 11 &&
                              key.find_first_not_of("0123456789", 11) == std::string::npos;
      ++i_;
      if (!submission) {  // not a submission: nothing of it is read
        skip_value(0);
        continue;
      }
      if (!rest.empty()) return --i_, fail(key + ": expected its keys on the lines below it");
      if (!folders.insert(key).second) return --i_, fail(key + " is listed twice");
      GradescopeSubmission s;
      s.folder = key;
      s.line = int(i_);
      if (!read_submission(&s)) return false;
      out->push_back(s);
    }
    for (++i_; i_ < lines_.size(); ++i_) {
      if (!blank(lines_[i_])) return fail("more after the end of the document (...)");
    }
    return true;
  }

  // The keys of a submission, indented alike (two spaces), until the next line at column 0.
  bool read_submission(GradescopeSubmission* s) {
    size_t m = 0;
    for (skip_blank(); i_ < lines_.size(); skip_blank()) {
      const std::string& line = lines_[i_];
      const size_t n = indent_of(line);
      if (n == 0) break;
      if (m == 0) m = n;
      if (n != m) return fail(s->folder + ": a line indented unlike the submission's keys");
      std::string key, rest;
      if (item_at(line, m)) return fail(s->folder + ": a list item where a key was expected");
      if (!split_entry(line.substr(m), &key, &rest)) return fail(s->folder + ": expected a key, such as :created_at:");
      if (key == ":submitters") {
        ++i_;
        if (rest == "[]") continue;
        if (!rest.empty()) return --i_, fail(s->folder + ": :submitters: expected a list of students");
        if (!read_submitters(m, s)) return false;
      } else if (key == ":created_at") {
        if (!read_scalar(rest, m, &s->created_at)) return false;
      } else {
        ++i_;
        skip_value(m);
      }
    }
    return true;
  }

  // The list below :submitters: (at the key's column M, or deeper), an item per student.
  bool read_submitters(size_t m, GradescopeSubmission* s) {
    skip_blank();
    if (i_ >= lines_.size()) return true;
    const size_t k = indent_of(lines_[i_]);
    if (k < m || !item_at(lines_[i_], k)) return true;  // a null list
    for (; i_ < lines_.size() && indent_of(lines_[i_]) == k && item_at(lines_[i_], k); skip_blank()) {
      GradescopeSubmitter who;
      if (!read_submitter(k, &who)) return false;
      s->submitters.push_back(who);
    }
    if (i_ < lines_.size() && indent_of(lines_[i_]) > m) return fail(s->folder + ": a line indented unlike the submitters' list");
    return true;
  }

  // One item "- :name: ..." at column K, its keys below at the column of its first.
  bool read_submitter(size_t k, GradescopeSubmitter* who) {
    const std::string& line = lines_[i_];
    size_t e = k + 1;
    while (e < line.size() && line[e] == ' ') ++e;
    std::string content = without_anchors(line.substr(e));
    if (!content.empty() && content[0] == '*') return fail("a submitter given as an alias (" + content + "): this reader does not follow them");
    if (content == "{}") return ++i_, true;
    if (!content.empty() && content[0] == '{') return fail("a submitter written on one line ({...}): expected its keys on lines of their own");
    if (content.empty()) {  // its keys begin on the next line
      ++i_;
      skip_blank();
      if (i_ >= lines_.size() || indent_of(lines_[i_]) <= k) return true;
      e = indent_of(lines_[i_]);
      content = lines_[i_].substr(e);
    }
    for (;;) {
      std::string key, rest;
      if (!split_entry(content, &key, &rest)) return fail("expected a submitter's key, such as :name:");
      std::string* value = key == ":name" ? &who->name : key == ":sid" ? &who->sid : key == ":email" ? &who->email : nullptr;
      if (value != nullptr) {
        if (!read_scalar(rest, e, value)) return false;
      } else {
        ++i_;
        skip_value(e);
      }
      skip_blank();
      if (i_ >= lines_.size() || indent_of(lines_[i_]) != e || item_at(lines_[i_], e)) break;
      content = lines_[i_].substr(e);
    }
    if (i_ < lines_.size() && indent_of(lines_[i_]) > e) return fail("a line indented unlike the submitter's keys");
    return true;
  }

  // The value REST of a key on line i_ of a mapping at column N, and the lines deeper than N that
  // continue it, into *VALUE ("" for a null); i_ ends past them.
  bool read_scalar(std::string rest, size_t n, std::string* value) {
    rest = without_anchors(rest);
    if (rest.empty()) {
      ++i_;
      skip_blank();
      if (i_ < lines_.size() && indent_of(lines_[i_]) > n) return fail("expected the value on its key's line");
      return *value = "", true;
    }
    switch (rest[0]) {
      case '!': return fail("a tagged value (" + rest.substr(0, rest.find(' ')) + "): this reader does not know what it holds");
      case '*': return fail("an alias (" + rest + "): this reader does not follow them");
      case '[':
      case '{': return fail("a list or a mapping where a text was expected");
      case '>': return fail("a folded block (>): Gradescope's writer does not make them, and this reader does not read them");
      case '|': return read_literal(rest, n, value);
      case '\'':
      case '"': return read_quoted(rest, n, value);
      default: return read_plain(rest, n, value);
    }
  }

  // Counts the empty lines from i_ on and returns the index of the next line, without moving.
  size_t next_content(size_t* empty) const {
    size_t j = i_;
    *empty = 0;
    while (j < lines_.size() && only_spaces(lines_[j])) ++j, ++*empty;
    return j;
  }

  // What a value folded over lines keeps of the break that ended line J and of the EMPTY lines
  // after it: one space for a plain break alone, else a \n per empty line; a separator as it is.
  // An escaped break (a \ at the line's end, ESCAPED) keeps nothing of its own.
  std::string folded(size_t j, size_t empty, bool escaped = false) const {
    std::string text = !ends_[j].empty() ? ends_[j] : escaped || empty > 0 ? "" : " ";
    for (size_t k = 1; k <= empty; ++k) text += ends_[j + k].empty() ? "\n" : ends_[j + k];
    return text;
  }

  bool read_plain(const std::string& first, size_t n, std::string* value) {
    auto cut_comment = [](const std::string& s, bool* cut) {
      const size_t hash = s.find(" #");
      *cut = hash != std::string::npos;
      return trim_right(*cut ? s.substr(0, hash) : s);
    };
    bool ended = false;
    std::string text = cut_comment(first, &ended);
    for (++i_; !ended; ++i_) {
      size_t empty = 0;
      const size_t j = next_content(&empty);
      if (j >= lines_.size() || indent_of(lines_[j]) <= n || lines_[j][indent_of(lines_[j])] == '#') break;
      text += folded(i_ - 1, empty);
      text += cut_comment(lines_[j].substr(indent_of(lines_[j])), &ended);
      i_ = j;
    }
    if (text.find(": ") != std::string::npos || (!text.empty() && text.back() == ':')) return fail("a value holding ': ' unquoted, which YAML does not allow");
    *value = text == "~" || text == "null" || text == "Null" || text == "NULL" ? "" : text;
    return true;
  }

  bool read_quoted(const std::string& first, size_t n, std::string* value) {
    const char quote = first[0];
    std::string out, seg = first.substr(1);
    size_t hard = 0;  // out's length without the blanks that end a line (YAML drops them when it folds)
    for (;;) {
      bool escaped_break = false;
      for (size_t p = 0; p < seg.size(); ++p) {
        const char c = seg[p];
        if (c == quote && quote == '\'' && p + 1 < seg.size() && seg[p + 1] == '\'') {
          out += '\'';
          hard = out.size();
          ++p;
          continue;
        }
        if (c == quote) {
          const std::string after = trim_right(seg.substr(p + 1));
          if (!after.empty() && after.rfind(" #", 0) != 0) return fail("more after a quoted value's end");
          ++i_;
          return *value = out, true;
        }
        if (c == '\\' && quote == '"') {
          if (p + 1 == seg.size()) {
            escaped_break = true;
            break;
          }
          if (!escape(seg, &p, &out)) return fail("an escape this reader does not know in a quoted value");
          hard = out.size();
          continue;
        }
        out += c;
        if (c != ' ' && c != '\t') hard = out.size();
      }
      if (!escaped_break) out.resize(hard);
      const size_t ended = i_++;
      size_t empty = 0;
      const size_t j = next_content(&empty);
      if (j >= lines_.size() || indent_of(lines_[j]) <= n) return fail("a quoted value that does not end");
      out += folded(ended, empty, escaped_break);
      hard = out.size();
      i_ = j;
      seg = lines_[j].substr(lines_[j].find_first_not_of(" \t"));
    }
  }

  // The escape at S[*P] ('\\'), appended to *OUT; *P ends on its last character.
  static bool escape(const std::string& s, size_t* p, std::string* out) {
    const char c = s[++*p];
    int digits = 0;
    switch (c) {
      case '0': return *out += '\0', true;
      case 'a': return *out += '\a', true;
      case 'b': return *out += '\b', true;
      case 't':
      case '\t': return *out += '\t', true;
      case 'n': return *out += '\n', true;
      case 'v': return *out += '\v', true;
      case 'f': return *out += '\f', true;
      case 'r': return *out += '\r', true;
      case 'e': return *out += '\x1B', true;
      case ' ':
      case '"':
      case '/':
      case '\\': return *out += c, true;
      case 'N': return append_utf8(0x85, out), true;
      case '_': return append_utf8(0xA0, out), true;
      case 'L': return append_utf8(0x2028, out), true;
      case 'P': return append_utf8(0x2029, out), true;
      case 'x': digits = 2; break;
      case 'u': digits = 4; break;
      case 'U': digits = 8; break;
      default: return false;
    }
    if (*p + digits >= s.size()) return false;
    uint32_t code = 0;
    for (int d = 1; d <= digits; ++d) {
      const char h = s[*p + d];
      if (!std::isxdigit(static_cast<unsigned char>(h))) return false;
      code = code * 16 + uint32_t(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : std::tolower(h) - 'a' + 10);
    }
    if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    *p += digits;
    append_utf8(code, out);
    return true;
  }

  // A |block: its lines deeper than N, as they are, joined by line breaks; "|-" drops the last
  // line break, "|+" keeps the empty lines at its end; a digit gives its indentation (N + digit).
  bool read_literal(const std::string& header, size_t n, std::string* value) {
    char chomp = ' ';
    size_t indent = 0;
    for (size_t p = 1; p < header.size() && header[p] != ' '; ++p) {
      if ((header[p] == '-' || header[p] == '+') && chomp == ' ') chomp = header[p];
      else if (header[p] >= '1' && header[p] <= '9' && indent == 0) indent = n + size_t(header[p] - '0');
      else return fail("a block header this reader does not know (" + header + ")");
    }
    ++i_;
    std::vector<std::string> body, ends;
    for (; i_ < lines_.size(); ++i_) {
      const std::string& l = lines_[i_];
      if (only_spaces(l)) {
        body.push_back(indent != 0 && l.size() > indent ? l.substr(indent) : "");
      } else {
        if (indent == 0 && indent_of(l) <= n) break;  // an empty block
        if (indent == 0) indent = indent_of(l);
        if (indent_of(l) < indent) break;
        body.push_back(l.substr(indent));
      }
      ends.push_back(ends_[i_].empty() ? "\n" : ends_[i_]);
    }
    size_t last = body.size();
    while (last > 0 && body[last - 1].empty()) --last;
    std::string text;
    for (size_t k = 0; k < (chomp == '+' ? body.size() : last); ++k) text += body[k] + ends[k];
    if (chomp == '-' && last > 0) text.resize(text.size() - ends[last - 1].size());
    *value = text;
    return true;
  }
};

}  // namespace

bool read_gradescope_metadata(const std::string& text, std::vector<GradescopeSubmission>* submissions, std::string* error) {
  return Reader(text).read(submissions, error);
}

}  // namespace grade
