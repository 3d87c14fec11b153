// The Simplified Chinese documents (PATH.zh-CN.md beside PATH.md) say what their English twins
// say: for every English document listed in docs/zh-CN.txt, its twin exists, the two link to
// each other near the top, and the twin has
//   - the same headings: the same sequence of levels (#, ##, ###), whatever their words;
//   - the same fenced code blocks (``` to ```), byte for byte, fences and indentation included,
//     in the same order;
//   - the same inline commands, as a multiset: the backticked spans that start with `make ` or
//     hold a path (a word with a / inside it, or a file name such as `matmul_naive.cu`), with
//     runs of blanks and line breaks inside a span read as one space;
//   - the same figures, as a multiset (defined below);
//   - the same link targets, as a multiset (a translation may reorder a sentence's links), where
//     the twin links to the Chinese twin of every listed document the English links to: a link
//     to X.zh-CN.md in Chinese stands for one to X.md in English, and a Chinese link to a listed
//     English document (whose twin a Chinese reader would want) is a difference of its own.
// Only the words may differ. Each difference is reported by what it is and where it lies in
// both files: the heading, the code block, the command, the figure or the link.
//
// A FIGURE is a number written in the prose (headings, lists and tables included), as the regex
// below reads it: digits, joined to more digits by one of . : / ^ - x × (5.72, 2026-11-25,
// 2/32, 2^28, 8192x4096, 16×8, 580.159.04), with a %, ³ or ² right after it kept (96.5%,
// 4096³, 8192²), and the ASCII letters or _ right before it kept (H100, sm_90, fp32, HBM3,
// float4, L2), so that a name with a number in it is one figure. Not figures, since they are
// compared on their own or are code a translation copies as is: what lies in fenced code
// blocks and inline code spans, link targets, and the line that links to the other language.
// Nothing else is excluded: a translation writes every number as the English does, in Arabic
// numerals with the same units, and adds none (a number the English spells out, "two loads",
// "seven times", is spelled out in Chinese too: 两次, 七倍).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tools/text.h"

namespace {

namespace fs = std::filesystem;

const std::string kList = "docs/zh-CN.txt";

// One thing found in a document, and its line (from 1).
struct Found {
  std::string text;
  int line;
};

struct DocParts {
  std::vector<Found> headings;  // the whole heading line; its level is its count of #
  std::vector<Found> code;      // each fenced block, its fences included, as written
  std::vector<Found> commands;
  std::vector<Found> figures;
  std::vector<Found> links;       // link targets, the link to the other language excepted
  std::vector<Found> twin_links;  // the links to the other language
  int first_section = 0;          // the line of the first ## heading, 0 if none
};

int heading_level(const std::string& line) {
  size_t n = 0;
  while (n < line.size() && line[n] == '#') ++n;
  return n >= 1 && n <= 6 && n < line.size() && line[n] == ' ' ? static_cast<int>(n) : 0;
}

std::string squeeze_blanks(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool blank = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (blank) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return tools::trim(out);
}

bool is_command(const std::string& span) {
  static const std::regex path(R"([A-Za-z0-9_.<>~*-]/[A-Za-z0-9_.<>*-])");
  static const std::regex file(R"([A-Za-z0-9_*<>-]\.(cu|cuh|h|cpp|md|txt|log|json|svg|tsv|mk)\b)");
  return span.rfind("make ", 0) == 0 || std::regex_search(span, path) || std::regex_search(span, file);
}

// The figures of a piece of prose: see the comment at the top.
void add_figures(const std::string& prose, int first_line, std::vector<Found>* figures) {
  static const std::regex figure("[A-Za-z_]*[0-9]+(?:(?:[.:/^x-]|\xC3\x97)[0-9]+)*(?:%|\xC2\xB3|\xC2\xB2)?");
  for (std::sregex_iterator it(prose.begin(), prose.end(), figure), end; it != end; ++it) {
    const int line = first_line + static_cast<int>(std::count(prose.begin(), prose.begin() + it->position(), '\n'));
    figures->push_back({it->str(), line});
  }
}

// One paragraph of prose (its lines joined by \n), starting at FIRST_LINE: its code spans, then
// its links, then what is left for figures.
void read_paragraph(std::string para, int first_line, const std::string& twin_name, DocParts* parts) {
  auto line_at = [&](size_t pos) {
    return first_line + static_cast<int>(std::count(para.begin(), para.begin() + pos, '\n'));
  };
  // Code spans: a run of N backticks up to the next run of exactly N; each is blanked out
  // (its line breaks kept, so that lines still count right).
  for (size_t at = 0; (at = para.find('`', at)) != std::string::npos;) {
    size_t n = para.find_first_not_of('`', at);
    if (n == std::string::npos) break;
    n -= at;
    size_t close = n;
    size_t search = at + n;
    size_t end = std::string::npos;
    while ((close = para.find(std::string(n, '`'), search)) != std::string::npos) {
      const size_t after = close + n;
      if ((after >= para.size() || para[after] != '`') && (close == 0 || para[close - 1] != '`')) {
        end = close;
        break;
      }
      search = para.find_first_not_of('`', close);
      if (search == std::string::npos) break;
    }
    if (end == std::string::npos) {
      at += n;  // no closing run: the backticks are text
      continue;
    }
    const std::string span = squeeze_blanks(para.substr(at + n, end - at - n));
    if (is_command(span)) parts->commands.push_back({span, line_at(at)});
    for (size_t i = at; i < end + n; ++i) {
      if (para[i] != '\n') para[i] = ' ';
    }
    at = end + n;
  }
  // Links: [text](target); the target is blanked out, the text stays prose.
  static const std::regex link(R"(\]\(([^)\s]+)\))");
  std::string rest = para;
  for (std::sregex_iterator it(para.begin(), para.end(), link), end; it != end; ++it) {
    const std::string target = (*it)[1].str();
    const int line = line_at(it->position());
    (target == twin_name ? parts->twin_links : parts->links).push_back({target, line});
    for (size_t i = it->position(); i < static_cast<size_t>(it->position() + it->length()); ++i) rest[i] = ' ';
  }
  add_figures(rest, first_line, &parts->figures);
}

// TWIN_NAME: the file name of the other language's document, as a link beside it names it.
DocParts parse_doc(const std::string& text, const std::string& twin_name) {
  DocParts parts;
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);

  std::string para;
  int para_line = 0;
  auto flush = [&] {
    if (!para.empty()) read_paragraph(para, para_line, twin_name, &parts);
    para.clear();
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    const std::string& line = lines[i];
    const std::string body = tools::trim(line);
    if (body.rfind("```", 0) == 0) {
      flush();
      std::string block = line + "\n";
      size_t j = i + 1;
      while (j < lines.size() && tools::trim(lines[j]).rfind("```", 0) != 0) block += lines[j++] + "\n";
      if (j < lines.size()) block += lines[j] + "\n";
      parts.code.push_back({block, n});
      i = j;
      continue;
    }
    if (body.empty()) {
      flush();
      continue;
    }
    // The line that links to the other language is left out of everything but its link.
    if (!twin_name.empty() && tools::contains(line, "](" + twin_name + ")")) {
      flush();
      parts.twin_links.push_back({twin_name, n});
      continue;
    }
    const int level = heading_level(line);
    if (level > 0) {
      parts.headings.push_back({line, n});
      if (level == 2 && parts.first_section == 0) parts.first_section = n;
    }
    // A heading and a table row are paragraphs of their own.
    if (level > 0 || body[0] == '|') {
      flush();
      read_paragraph(line, n, twin_name, &parts);
      continue;
    }
    if (para.empty()) para_line = n;
    else para += "\n";
    para += line;
  }
  flush();
  return parts;
}

std::string first_line_of_difference(const std::string& a, const std::string& b) {
  std::istringstream ia(a), ib(b);
  std::string la, lb;
  for (int n = 1;; ++n) {
    const bool more_a = static_cast<bool>(std::getline(ia, la));
    const bool more_b = static_cast<bool>(std::getline(ib, lb));
    if (!more_a && !more_b) return "";
    if (!more_a || !more_b || la != lb) {
      return "its line " + std::to_string(n) + ": English `" + (more_a ? la : "(none)") + "`, Chinese `" +
             (more_b ? lb : "(none)") + "`";
    }
  }
}

std::string lines_of(const std::vector<int>& lines) {
  std::string s;
  for (int n : lines) s += (s.empty() ? "" : ", ") + std::to_string(n);
  return s.empty() ? "" : " (line" + std::string(lines.size() > 1 ? "s " : " ") + s + ")";
}

// The differences between two multisets: "WHAT `x`: 2 in English (lines 3, 9), 1 in Chinese (line 4)".
void compare_multisets(const char* what, const std::vector<Found>& en, const std::vector<Found>& zh,
                       std::vector<std::string>* problems) {
  std::map<std::string, std::pair<std::vector<int>, std::vector<int>>> seen;
  for (const Found& f : en) seen[f.text].first.push_back(f.line);
  for (const Found& f : zh) seen[f.text].second.push_back(f.line);
  for (const auto& [key, where] : seen) {
    if (where.first.size() == where.second.size()) continue;
    problems->push_back(std::string(what) + " `" + key + "`: " + std::to_string(where.first.size()) + " in English" +
                        lines_of(where.first) + ", " + std::to_string(where.second.size()) + " in Chinese" +
                        lines_of(where.second));
  }
}

std::string twin_of(const std::string& english) { return english.substr(0, english.size() - 3) + ".zh-CN.md"; }

// A link to a Chinese twin, X.zh-CN.md (an anchor kept), as a link to its English X.md; any
// other link as it is.
std::string twin_to_english(const std::string& target) {
  static const std::regex twin(R"(^(.*)\.zh-CN\.md(#.*)?$)");
  std::smatch m;
  return std::regex_match(target, m, twin) ? m[1].str() + ".md" + m[2].str() : target;
}

std::vector<std::string> listed_documents();

// Whether TARGET, a link of the document at DOC (a relative .md path, an anchor allowed), names a
// listed document: one whose Chinese twin a Chinese document should link instead.
bool has_twin(const std::string& doc, const std::string& target) {
  const std::string path = target.substr(0, target.find('#'));
  if (path.size() < 3 || path.compare(path.size() - 3, 3, ".md") != 0 || path.find("://") != std::string::npos) return false;
  const std::string resolved = (fs::path(doc).parent_path() / path).lexically_normal().string();
  const std::vector<std::string> listed = listed_documents();
  return std::find(listed.begin(), listed.end(), resolved) != listed.end();
}

// What differs between an English document and its Chinese twin, each difference a line that
// names it; empty when they agree. EN_NAME and ZH_NAME are their paths, for the messages.
std::vector<std::string> parity_problems(const std::string& en_name, const std::string& en_text,
                                         const std::string& zh_name, const std::string& zh_text) {
  const DocParts en = parse_doc(en_text, fs::path(zh_name).filename().string());
  const DocParts zh = parse_doc(zh_text, fs::path(en_name).filename().string());
  std::vector<std::string> problems;
  auto at = [](const std::string& name, const Found& f) { return name + ":" + std::to_string(f.line); };

  // Headings: the first place where the levels part.
  for (size_t i = 0; i < std::max(en.headings.size(), zh.headings.size()); ++i) {
    const bool has_en = i < en.headings.size(), has_zh = i < zh.headings.size();
    if (has_en && has_zh && heading_level(en.headings[i].text) == heading_level(zh.headings[i].text)) continue;
    problems.push_back(
        "heading " + std::to_string(i + 1) + " differs in level: English " +
        (has_en ? "`" + en.headings[i].text + "` (" + at(en_name, en.headings[i]) + ")" : "has none") + ", Chinese " +
        (has_zh ? "`" + zh.headings[i].text + "` (" + at(zh_name, zh.headings[i]) + ")" : "has none") + " (" +
        std::to_string(en.headings.size()) + " headings in English, " + std::to_string(zh.headings.size()) +
        " in Chinese)");
    break;
  }
  // Code blocks: each in order, byte for byte.
  for (size_t i = 0; i < std::max(en.code.size(), zh.code.size()); ++i) {
    const bool has_en = i < en.code.size(), has_zh = i < zh.code.size();
    if (has_en && has_zh && en.code[i].text == zh.code[i].text) continue;
    problems.push_back("code block " + std::to_string(i + 1) + " differs: English " +
                       (has_en ? at(en_name, en.code[i]) : "has none") + ", Chinese " +
                       (has_zh ? at(zh_name, zh.code[i]) : "has none") + "; " +
                       first_line_of_difference(has_en ? en.code[i].text : "", has_zh ? zh.code[i].text : "") + " (" +
                       std::to_string(en.code.size()) + " blocks in English, " + std::to_string(zh.code.size()) +
                       " in Chinese)");
    break;
  }
  compare_multisets("command", en.commands, zh.commands, &problems);
  compare_multisets("figure", en.figures, zh.figures, &problems);
  // Links: the twin's to Chinese twins read as the English documents they translate.
  std::vector<Found> zh_links;
  for (const Found& link : zh.links) {
    const std::string target = link.text;
    const std::string english = twin_to_english(target);
    if (english == target && has_twin(zh_name, target)) {
      problems.push_back("link `" + target + "` (" + at(zh_name, link) + ") leads a Chinese reader to English: link `" +
                         twin_of(target) + "`");
    }
    zh_links.push_back({english, link.line});
  }
  compare_multisets("link", en.links, zh_links, &problems);
  return problems;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The English documents that have a Chinese twin: the paths of docs/zh-CN.txt, # comments aside.
std::vector<std::string> listed_documents() {
  std::vector<std::string> docs;
  std::ifstream in(kList);
  for (std::string line; std::getline(in, line);) {
    line = tools::trim(line);
    if (!line.empty() && line[0] != '#') docs.push_back(line);
  }
  return docs;
}

// A twin's link to its English document must come before the first section (## heading), on a
// line of its own; and the English document's to its twin the same.
void check_cross_link(const std::string& name, const std::string& text, const std::string& other) {
  const DocParts parts = parse_doc(text, fs::path(other).filename().string());
  CHECK_MESSAGE(parts.twin_links.size() == 1, name, " links to ", fs::path(other).filename().string(), " ",
                parts.twin_links.size(), " times (on a line of its own, near the top: once)");
  if (!parts.twin_links.empty()) {
    CHECK_MESSAGE((parts.first_section == 0 || parts.twin_links[0].line < parts.first_section), name,
                  ": the link to ", other, " is on line ", parts.twin_links[0].line,
                  ", after the first section (line ", parts.first_section, "): it belongs near the top");
  }
}

// A short English document and a faithful Chinese twin, for the tests of the check itself.
const char* const kEnglish = R"md(# Lab 01: naive matrix multiplication

[中文](README.zh-CN.md)

**Goal:** one thread per element of C, 5.72 TFLOP/s on an H100 at 4096³ (11% of cuBLAS).

## Running

```sh
make run LAB=01                  # the edges, then check and time
```

`make run LAB=01` builds `labs/01_matmul_naive/matmul_naive.cu`; see [the guide](../../docs/getting-started.md).

### Sizes

| block | median ms |
|---|---:|
| 32 × 8 | 23.46 |
)md";

const char* const kChinese = R"md(# 实验 01：朴素矩阵乘法

[English](README.md)

**目标：** C 的每个元素一个 thread，在 H100 上 4096³ 规模达到 5.72 TFLOP/s（cuBLAS 的 11%）。

## 运行

```sh
make run LAB=01                  # the edges, then check and time
```

`make run LAB=01` 构建 `labs/01_matmul_naive/matmul_naive.cu`；参见[入门指南](../../docs/getting-started.zh-CN.md)。

### 规模

| block | 中位数 ms |
|---|---:|
| 32 × 8 | 23.46 |
)md";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "the sample has no `", from, "`");
  return s.replace(at, from.size(), to);
}

std::vector<std::string> sample_problems(const std::string& zh) {
  return parity_problems("labs/01/README.md", kEnglish, "labs/01/README.zh-CN.md", zh);
}

void check_problems(const std::vector<std::string>& got, const std::vector<std::string>& expected) {
  CHECK_MESSAGE(got == expected, "the check reported:\n", tools::joined(got), "and should have reported:\n",
                tools::joined(expected));
}

}  // namespace

TEST_SUITE("docs") {

TEST_CASE("the check of a Chinese twin passes a faithful one and names each difference of a broken one") {
  CHECK_MESSAGE(sample_problems(kChinese).empty(), tools::joined(sample_problems(kChinese)));

  SUBCASE("one figure") {
    const auto problems = sample_problems(replaced(kChinese, "5.72 TFLOP/s", "5.27 TFLOP/s"));
    check_problems(problems, {"figure `5.27`: 0 in English, 1 in Chinese (line 5)",
                                                       "figure `5.72`: 1 in English (line 5), 0 in Chinese"});
  }
  SUBCASE("one figure of a table, and a spelled-out number written as a figure") {
    const auto problems = sample_problems(replaced(replaced(kChinese, "| 23.46 |", "| 24.36 |"), "每个元素一个", "每个元素 1 个"));
    check_problems(problems, {"figure `1`: 0 in English, 1 in Chinese (line 5)",
                                                       "figure `23.46`: 1 in English (line 19), 0 in Chinese",
                                                       "figure `24.36`: 0 in English, 1 in Chinese (line 19)"});
  }
  SUBCASE("one heading") {
    const auto problems = sample_problems(replaced(kChinese, "### 规模", "## 规模"));
    check_problems(problems, {"heading 3 differs in level: English `### Sizes` "
                                                       "(labs/01/README.md:15), Chinese `## 规模` "
                                                       "(labs/01/README.zh-CN.md:15) (3 headings in English, 3 in Chinese)"});
  }
  SUBCASE("one inline command") {
    const auto problems = sample_problems(replaced(kChinese, "`make run LAB=01` 构建", "`make run LAB=02` 构建"));
    check_problems(problems, {"command `make run LAB=01`: 1 in English (line 13), 0 in Chinese",
                                                       "command `make run LAB=02`: 0 in English, 1 in Chinese (line 13)"});
  }
  SUBCASE("one code block") {
    const auto problems = sample_problems(replaced(kChinese, "# the edges, then check and time", "# 先查边界"));
    check_problems(problems, {"code block 1 differs: English labs/01/README.md:9, Chinese "
                                                       "labs/01/README.zh-CN.md:9; its line 2: English `make run LAB=01"
                                                       "                  # the edges, then check and time`, Chinese "
                                                       "`make run LAB=01                  # 先查边界` (1 blocks in English, "
                                                       "1 in Chinese)"});
  }
  SUBCASE("one link") {
    const auto problems = sample_problems(replaced(kChinese, "(../../docs/getting-started.zh-CN.md)", "(../../docs/tuning.md)"));
    check_problems(problems, {"link `../../docs/getting-started.md`: 1 in English (line 13), 0 in Chinese",
                                                       "link `../../docs/tuning.md`: 0 in English, 1 in Chinese (line 13)"});
  }
  SUBCASE("a link to the English document where its Chinese twin exists") {
    const auto problems = sample_problems(replaced(kChinese, "(../../docs/getting-started.zh-CN.md)", "(../../docs/getting-started.md)"));
    check_problems(problems, {"link `../../docs/getting-started.md` (labs/01/README.zh-CN.md:13) leads a Chinese reader to "
                              "English: link `../../docs/getting-started.zh-CN.md`"});
  }
  SUBCASE("a figure, a heading and a command at once") {
    std::string zh = replaced(kChinese, "5.72 TFLOP/s", "5.27 TFLOP/s");
    zh = replaced(zh, "### 规模", "#### 规模");
    zh = replaced(zh, "`make run LAB=01` 构建", "`make grade LAB=01` 构建");
    CHECK(sample_problems(zh).size() == 5);  // the heading, two commands, two figures
  }
}

TEST_CASE("the cross-links of a sample pair are found, and a missing one is reported") {
  CHECK(parse_doc(kEnglish, "README.zh-CN.md").twin_links.size() == 1);
  CHECK(parse_doc(kChinese, "README.md").twin_links.size() == 1);
  CHECK(parse_doc(replaced(kChinese, "[English](README.md)", "English"), "README.md").twin_links.empty());
}

TEST_CASE("every English document of docs/zh-CN.txt has its Chinese twin, and the two link to each other") {
  const std::vector<std::string> docs = listed_documents();
  REQUIRE_MESSAGE(!docs.empty(), kList, " lists no documents");
  for (const std::string& en : docs) {
    INFO(en);
    REQUIRE_MESSAGE(fs::exists(en), kList, " lists ", en, ", which does not exist");
    const std::string zh = twin_of(en);
    CHECK_MESSAGE(fs::exists(zh), en, " has no Chinese twin ", zh);
    if (!fs::exists(zh)) continue;
    check_cross_link(en, read_text(en), zh);
    check_cross_link(zh, read_text(zh), en);
  }
}

TEST_CASE("every Chinese document is the twin of a listed English one") {
  const std::vector<std::string> docs = listed_documents();
  std::vector<std::string> unlisted;
  for (auto it = fs::recursive_directory_iterator("."); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name == "build" || name[0] == '.')) {
      it.disable_recursion_pending();
      continue;
    }
    const std::string path = it->path().lexically_relative(".").string();
    if (tools::contains(name, ".zh-CN.md") && name.size() > 9 && name.substr(name.size() - 9) == ".zh-CN.md") {
      const std::string en = path.substr(0, path.size() - 9) + ".md";
      if (std::find(docs.begin(), docs.end(), en) == docs.end()) unlisted.push_back(path);
    }
  }
  CHECK_MESSAGE(unlisted.empty(), "Chinese documents whose English one ", kList, " does not list:\n", tools::joined(unlisted));
}

TEST_CASE("each Chinese twin has its English document's headings, code blocks, commands, figures and links") {
  int compared = 0;
  for (const std::string& en : listed_documents()) {
    const std::string zh = twin_of(en);
    if (!fs::exists(en) || !fs::exists(zh)) continue;  // reported by the test above
    ++compared;
    const std::vector<std::string> problems = parity_problems(en, read_text(en), zh, read_text(zh));
    CHECK_MESSAGE(problems.empty(), zh, " differs from ", en, ":\n", tools::joined(problems));
    const DocParts parts = parse_doc(read_text(en), fs::path(zh).filename().string());
    MESSAGE(en, ": ", parts.headings.size(), " headings, ", parts.code.size(), " code blocks, ", parts.commands.size(),
            " commands, ", parts.figures.size(), " figures, ", parts.links.size(), " links compared");
  }
  MESSAGE(compared, " pairs of documents compared");
  CHECK(compared > 0);
}

}  // TEST_SUITE
