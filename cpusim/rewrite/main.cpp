// cpusim-rewrite: turns preprocessed CUDA C++ (g++ -E output) into C++ that g++ compiles against
// the cpusim runtime. It rewrites what C++ cannot express:
//   kernel<<<grid, block, smem, stream>>>(args)   a call of ::cpusim::launch
//   __shared__ T a[N];                            a reference to the block's copy of `a`
//   extern __shared__ T d[];                      a pointer to the block's dynamic shared memory
//   return; in a kernel                           also records the line, for barrier diagnostics
// and removes __global__/__device__, which have no C++ meaning. It never adds or removes a
// newline, and leaves g++'s line markers alone, so every diagnostic points at the original
// file:line. Inline PTX and launches from device code are rejected with such a diagnostic.
//
// Usage: cpusim-rewrite [--cu] IN.ii OUT.ii    (--cu: a .cu file, where asm() is PTX)
//
// Its parts: tokens.h and tokenize.cpp read the input, rewriter.h the pass (and its other files).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "rewriter.h"

using namespace cpusim::rewrite;

int main(int argc, char** argv) {
  bool cu = false;
  int arg = 1;
  if (arg < argc && std::strcmp(argv[arg], "--cu") == 0) cu = true, ++arg;
  if (argc - arg != 2) {
    std::fprintf(stderr, "usage: cpusim-rewrite [--cu] IN.ii OUT.ii\n");
    return 2;
  }
  std::ifstream in(argv[arg], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cpusim-rewrite: cannot read %s\n", argv[arg]);
    return 2;
  }
  source src;
  src.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  tokenize(src);
  rewriter r(src, cu);
  const bool ok = r.run();
  if (!ok) return 1;
  std::ofstream out(argv[arg + 1], std::ios::binary);
  out << r.output();
  return out ? 0 : 2;
}
