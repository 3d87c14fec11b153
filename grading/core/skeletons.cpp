#include "grading/core/skeletons.h"

#include <fstream>
#include <sstream>

#include "grading/core/isolation.h"

namespace grade {

bool untouched_skeleton(const std::string& file, const lab::LabEntry& lab, const std::string& list) {
  // Lines as sha256sum writes them: the hash, two blanks, labs/NN_stem/stem.cu.
  std::ifstream in(list);
  const std::string name = "labs/" + lab.folder + "/" + lab.file();
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string hash, path;
    if (words >> hash >> path && path == name) return !hash.empty() && fingerprint(file) == hash;
  }
  return false;
}

}  // namespace grade
