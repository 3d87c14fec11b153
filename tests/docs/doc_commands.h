// The commands the documents show a reader: the lines of ```sh blocks, and the `$ ` lines of
// ```console blocks (a command and what it printed), at the margin or indented in a list item.
// test_doc_commands runs them; test_release holds a students' copy's to them.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tools/text.h"

namespace doc_test {

struct DocCommand {
  std::string where;  // "labs/04_transpose/README.md:158"
  std::string line;   // as typed, its comment included
};

// The documents a reader follows in the checkout at ROOT, by their paths from it: the README, the
// guides (docs/*.md, and the instructor's per task, docs/instructor/*.md, where the checkout has
// them: a students' copy has not), the CPU backend's (cpusim/README.md) and every lab's README.
// Their Simplified Chinese twins are left out (docs/*.zh-CN.md
// here; a lab's README.zh-CN.md is not its README.md): test_doc_parity checks that each twin has
// its English document's code blocks and commands byte for byte, so running them too would only
// run the same commands twice, minutes more.
inline std::vector<std::string> documents(const std::string& root = ".") {
  namespace fs = std::filesystem;
  std::vector<std::string> docs = {"README.md", "cpusim/README.md"};
  std::vector<std::string> more;
  for (const std::string folder : {"docs", "docs/instructor"}) {
    if (!fs::is_directory(root + "/" + folder)) continue;
    for (const auto& e : fs::directory_iterator(root + "/" + folder)) {
      const std::string name = e.path().filename().string();
      const bool chinese = name.size() > 9 && name.substr(name.size() - 9) == ".zh-CN.md";
      if (e.path().extension() == ".md" && !chinese) more.push_back(folder + "/" + name);
    }
  }
  for (const auto& e : fs::directory_iterator(root + "/labs")) {
    if (fs::exists(e.path() / "README.md")) more.push_back("labs/" + e.path().filename().string() + "/README.md");
  }
  std::sort(more.begin(), more.end());
  docs.insert(docs.end(), more.begin(), more.end());
  return docs;
}

// A line that would be typed at a shell: what the untagged blocks must not hold.
inline bool looks_typed(const std::string& line) {
  static const std::regex typed(R"(^(\$ )?([A-Z_]+=\S* )*(make|cpusim/cpucc|nvcc|ncu|compute-sanitizer|\./\S+)( |$))");
  return std::regex_search(line, typed);
}

// The commands of the documents at ROOT, in order; a block that shows commands without saying so
// (no `sh` or `console` tag) is reported in *untagged, since test_doc_commands would not see its
// commands.
inline std::vector<DocCommand> doc_commands(std::vector<std::string>* untagged, const std::string& root = ".") {
  std::vector<DocCommand> commands;
  for (const std::string& doc : documents(root)) {
    std::ifstream in(root + "/" + doc);
    std::string tag;
    bool in_block = false;
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      const std::string where = doc + ":" + std::to_string(n);
      const std::string body = tools::trim(line);  // a block inside a list item is indented
      if (body.rfind("```", 0) == 0) {
        in_block = !in_block;
        tag = in_block ? tools::trim(body.substr(3)) : "";
        continue;
      }
      if (!in_block) continue;
      if (tag == "sh" && !body.empty() && body[0] != '#') {
        commands.push_back({where, body});
      } else if (tag == "console" && body.rfind("$ ", 0) == 0) {
        commands.push_back({where, body.substr(2)});
      } else if (tag.empty() && looks_typed(line)) {
        untagged->push_back(where + ": " + line);
      }
    }
  }
  return commands;
}

}  // namespace doc_test
