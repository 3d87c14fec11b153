#include "harness/launcher.h"

namespace lab {

void Launcher::operator()(const Case& c, const std::vector<const float*>& in, float* out) const {
  switch (c.op) {
    case Op::kMatmul: matmul(in[0], in[1], out, int(c.M), int(c.N), int(c.K)); break;
    case Op::kTranspose: transpose(in[0], out, int(c.rows), int(c.cols)); break;
    case Op::kDot: dot(in[0], in[1], out, int(c.n)); break;
  }
}

}  // namespace lab
