// A tree of its own for a test of a repository-wide check (scripts/include-graph,
// scripts/undefined-functions): the script copied in, where it finds its root, and the files
// named, each with its text. The caller removes the tree.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace script_test {

// The tree's root: SCRIPT (a path from the checkout, "scripts/include-graph") is at the same
// path under it.
inline std::string tree_with(const std::string& script, const std::vector<std::pair<std::string, std::string>>& files) {
  namespace fs = std::filesystem;
  const fs::path root =
      fs::temp_directory_path() / (fs::path(script).filename().string() + "-" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories((root / script).parent_path());
  fs::copy_file(script, root / script);
  for (const auto& [path, text] : files) {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  }
  return root.string();
}

}  // namespace script_test
