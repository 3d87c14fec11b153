#include "compare.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "fill.h"

namespace lab {

namespace {

constexpr size_t kMismatchesKept = 3;
constexpr int kTileSizes[] = {8, 16, 32, 64, 128, 256};  // candidates for "only the partial tiles"

// snprintf to a string, for the hints that carry numbers.
__attribute__((format(printf, 1, 2))) std::string formatted(const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return text;
}

// Accumulates element comparisons and reads the pattern of the mismatches.
class Tally {
 public:
  Tally(int64_t rows, int64_t cols) : rows_(rows), cols_(cols) {}

  void add(int64_t r, int64_t c, float got, double expected, double bound) {
    ++report_.checked;
    note_written(r, c, !is_poison(got));
    // got / expected, where expected stands well clear of its rounding error.
    if (std::isfinite(got) && bound > 0 && std::isfinite(bound) && std::fabs(expected) > 64 * bound) {
      const double ratio = got / expected;
      min_ratio_ = std::min(min_ratio_, ratio);
      max_ratio_ = std::max(max_ratio_, ratio);
      ++ratios_;
    }
    const double error = std::fabs(double(got) - expected);
    if (std::isfinite(error)) {
      if (error > report_.max_abs_error) report_.max_abs_error = error;
      const double ratio = bound > 0 ? error / bound : (error > 0 ? INFINITY : 0.0);
      if (ratio > report_.max_error_ratio) report_.max_error_ratio = ratio;
    }
    if (error <= bound) {  // false for NaN
      for (size_t t = 0; t < kTiles; ++t) interior_right_[t] += in_interior(r, c, t);
      return;
    }
    ++report_.wrong;
    zeros_ += got == 0.0f;
    wrong_in_first_row_ |= r == 0;
    max_wrong_col_ = std::max(max_wrong_col_, c);
    if (is_poison(got)) {
      ++report_.unwritten;
    } else if (std::isnan(got)) {
      ++computed_nan_;
    }
    for (size_t t = 0; t < kTiles; ++t) interior_wrong_[t] += in_interior(r, c, t);
    if (report_.first.size() < kMismatchesKept) report_.first.push_back({r, c, got, expected, bound});
  }

  // `look_alike` names what the result equals instead, when the caller found that out.
  CheckReport finish(const char* look_alike = nullptr) {
    report_.hint = hint(look_alike);
    return report_;
  }

 private:
  static constexpr size_t kTiles = sizeof kTileSizes / sizeof kTileSizes[0];

  // The hint, from the most specific pattern to the most general.
  std::string hint(const char* look_alike) const {
    const CheckReport& r = report_;
    if (r.wrong == 0) return "";
    if (r.unwritten == r.checked) {
      return "nothing was written: every element still holds the NaN poison. Did the kernel "
             "run at all (launch configuration, a grid of size 0, an early return)?";
    }
    if (look_alike != nullptr) return look_alike;
    const int edge_tile = edge_only_tile();
    if (r.unwritten > 0) {
      if (const std::string corner = corner_hint(); !corner.empty()) return corner;
      return unwritten_hint(edge_tile);
    }
    if (const std::string edge = first_columns_hint(); !edge.empty()) return edge;
    if (edge_tile > 0) {
      return formatted("only elements near the bottom or right edge are wrong (rows >= %lld or columns "
                     ">= %lld, the partial %d-wide tiles): check the guards on partial tiles, when "
                     "loading and when storing.",
                     (long long)(rows_ / edge_tile * edge_tile), (long long)(cols_ / edge_tile * edge_tile),
                     edge_tile);
    }
    return wrong_values_hint();
  }

  // Where the written elements are the top-left corner of the output, R rows by C columns, and
  // neither is the output's size rounded down to whole tiles (which a grid rounded down gives,
  // and unwritten_hint says): the grid covers other sizes than the output's, as when the launch
  // counts blocks of rows along x and the kernel puts threadIdx.x along the columns. "" otherwise.
  std::string corner_hint() const {
    if (written_ == 0 || !corner_only()) return "";
    const int64_t R = written_rows_, C = written_cols_;
    auto rounded_down = [](int64_t written, int64_t size) {
      if (written == size) return true;
      for (int tile : kTileSizes)
        if (written == size / tile * tile) return true;
      return false;
    };
    if (rounded_down(R, rows_) && rounded_down(C, cols_)) return "";
    return formatted("only the top-left %lld x %lld corner of the %lld x %lld output was written: the grid reaches "
                     "other sizes than the output's. Do the launch and the kernel agree on which of x and y runs along "
                     "the columns (grid.x counts the blocks along the dimension threadIdx.x walks)?",
                     (long long)R, (long long)C, (long long)rows_, (long long)cols_);
  }

  // No unwritten element lies in the box of the written ones: they form a corner.
  bool corner_only() const {
    if (written_cols_ > kColumnsTracked) return false;
    for (int64_t c = 0; c < written_cols_ && c < int64_t(first_unwritten_row_.size()); ++c)
      if (first_unwritten_row_[size_t(c)] < written_rows_) return false;
    return true;
  }

  // Every element written, and the wrong ones all in the first few columns of rows past the
  // first: where a row-major store of a thread past the right edge (column N + j of row r) lands,
  // at column j of row r + 1. "" for any other pattern.
  std::string first_columns_hint() const {
    if (wrong_in_first_row_ || max_wrong_col_ < 0 || max_wrong_col_ >= std::min<int64_t>(32, cols_ - 1)) return "";
    return formatted("the wrong elements are all in the first %lld columns of rows below the first: where a thread "
                     "past the right edge writes when it computes row * N + col with col >= N (it lands at the start "
                     "of the next row). Does every thread past the edge skip its store (a bounds guard on the column)?",
                     (long long)max_wrong_col_ + 1);
  }

  void note_written(int64_t r, int64_t c, bool written) {
    if (written) {
      ++written_;
      written_rows_ = std::max(written_rows_, r + 1);
      written_cols_ = std::max(written_cols_, c + 1);
    } else if (c < kColumnsTracked) {
      if (first_unwritten_row_.size() <= size_t(c)) first_unwritten_row_.resize(size_t(c) + 1, INT64_MAX);
      first_unwritten_row_[size_t(c)] = std::min(first_unwritten_row_[size_t(c)], r);
    }
  }

  // Some elements were never written (they still hold the NaN poison).
  std::string unwritten_hint(int edge_tile) const {
    if (report_.unwritten == report_.wrong && edge_tile > 0) {
      return "only elements in the last rows or columns were never written: the grid does not "
             "reach the edge of the output. Round the grid size up (ceil_div).";
    }
    return formatted("%lld elements were never written (they still hold the NaN poison): some "
                   "threads skip their element, or the grid is too small.",
                   (long long)report_.unwritten);
  }

  // Every element was written, and the wrong ones are not confined to partial edge tiles.
  std::string wrong_values_hint() const {
    const CheckReport& r = report_;
    if (zeros_ == r.wrong) {
      return "every wrong element is 0: nothing was added into them. Does the loop that sums run "
             "(its bounds when a size is smaller than a tile)?";
    }
    if (ratios_ >= 2 && max_ratio_ - min_ratio_ <= 0.01 * std::fabs(max_ratio_) && std::fabs(max_ratio_ - 1) > 0.01) {
      return formatted("every element is %.4g times the expected value: the right sum, scaled by a constant "
                     "(a factor applied twice or left out, a sum added twice, a launch repeated on its own output?).",
                     0.5 * (min_ratio_ + max_ratio_));
    }
    if (computed_nan_ > 0) {
      return "some results are NaN: the kernel read memory that nobody wrote (past the end of "
             "an input, or shared memory read before it was filled: a missing __syncthreads?).";
    }
    if (r.wrong * 2 > r.checked && r.max_error_ratio < 1e4) {
      return formatted("most elements are close but outside the fp32 bound (up to %.0f times it): a term "
                     "missing or counted twice in each sum (loop bounds?), or arithmetic in reduced "
                     "precision (fp16, bf16, TF32).",
                     r.max_error_ratio);
    }
    if (r.wrong * 10 >= r.checked * 9) {
      return "almost every element is wrong: check the indexing (row-major: element (r, c) of "
             "an R x C matrix is at r*C + c) and the loop bounds (each k from 0 to K - 1, once).";
    }
    return formatted("%lld of %lld elements are wrong, scattered: if they change from run to run, "
                   "suspect a race (a missing __syncthreads, or blocks writing the same element).",
                   (long long)r.wrong, (long long)r.checked);
  }

  bool in_interior(int64_t r, int64_t c, size_t t) const {
    const int64_t tile = kTileSizes[t];
    return r < rows_ / tile * tile && c < cols_ / tile * tile;
  }

  // The largest tile size for which all mismatches lie in partial edge tiles while the full
  // tiles inside hold correct results; 0 if there is none.
  int edge_only_tile() const {
    for (size_t t = kTiles; t-- > 0;) {
      const int64_t tile = kTileSizes[t];
      const bool has_partial = rows_ % tile != 0 || cols_ % tile != 0;
      if (has_partial && interior_wrong_[t] == 0 && interior_right_[t] > 0) return int(tile);
    }
    return 0;
  }

  int64_t rows_, cols_;
  CheckReport report_;
  int64_t computed_nan_ = 0;
  double min_ratio_ = INFINITY, max_ratio_ = -INFINITY;  // of got / expected (see add)
  int64_t ratios_ = 0;
  int64_t zeros_ = 0;  // wrong elements that hold 0
  int64_t interior_wrong_[kTiles] = {};
  int64_t interior_right_[kTiles] = {};
  // The written elements' box, and per column the first row left unwritten (corner_hint); the
  // columns past kColumnsTracked are not watched, and a corner wider than that is not told.
  static constexpr int64_t kColumnsTracked = 1 << 16;
  int64_t written_ = 0, written_rows_ = 0, written_cols_ = 0;
  std::vector<int64_t> first_unwritten_row_;
  // Where the wrong elements lie (first_columns_hint).
  bool wrong_in_first_row_ = false;
  int64_t max_wrong_col_ = -1;
};

// The report of N elements that all matched: what the tally gives, without its cost per element
// (on the grader's 8192x4096 transpose, 8 s against 0.1 s for a memcmp, on the 2-core CPU
// machine): the tally runs only where something is wrong.
CheckReport all_right(size_t n) {
  CheckReport report;
  report.checked = int64_t(n);
  return report;
}

}  // namespace

size_t count_nonfinite(const float* x, size_t n) {
  // A float is finite unless its exponent bits are all ones: a loop the compiler vectorizes.
  size_t nonfinite = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &x[i], sizeof bits);
    nonfinite += (bits & 0x7F800000u) == 0x7F800000u;
  }
  return nonfinite;
}

bool is_poison(float x) {
  unsigned char bytes[sizeof x];
  std::memcpy(bytes, &x, sizeof x);
  for (unsigned char b : bytes) {
    if (b != kPoisonByte) return false;
  }
  return true;
}

CheckReport check_matmul(const float* C, int M, int N, const MatmulReference& ref) {
  Tally tally(M, N);
  for (size_t i = 0; i < ref.rows.size(); ++i) {
    const int64_t row = ref.rows[i];
    for (int64_t col = 0; col < N; ++col) {
      const size_t at = i * size_t(N) + size_t(col);
      tally.add(row, col, C[size_t(row) * N + col], ref.value[at], error_bound(ref.magnitude[at]));
    }
  }
  CheckReport report = tally.finish();
  // A square result that is wrong but right when read transposed: swapped indices.
  if (!report.pass() && M == N && int(ref.rows.size()) == M && report.unwritten < report.checked) {
    bool transposed = true;
    for (int64_t i = 0; i < M && transposed; ++i) {
      for (int64_t j = 0; j < N && transposed; ++j) {
        const size_t at = size_t(i) * N + size_t(j);
        transposed = std::fabs(double(C[size_t(j) * N + i]) - ref.value[at]) <= error_bound(ref.magnitude[at]);
      }
    }
    if (transposed) {
      report.hint =
          "the result is the transpose of the expected one: are the row and column indices "
          "swapped (when reading A or B, or when writing C)?";
    }
  }
  return report;
}

CheckReport check_exact(const float* got, const float* expected, int rows, int cols, const float* input) {
  const size_t n = size_t(rows) * size_t(cols);
  if (std::memcmp(got, expected, n * sizeof(float)) == 0) return all_right(n);
  Tally tally(rows, cols);
  bool same_bits = true;
  for (size_t i = 0; i < n; ++i) {
    // Bit-exact: compare representations, so that -0.0 != 0.0 and NaN != NaN.
    same_bits = std::memcmp(&got[i], &expected[i], sizeof(float)) == 0;
    tally.add(int64_t(i / cols), int64_t(i % cols), got[i], expected[i], same_bits ? INFINITY : -1.0);
  }
  const bool is_copy = input != nullptr && n > 1 && rows != 1 && cols != 1 &&
                       std::memcmp(got, input, n * sizeof(float)) == 0;
  return tally.finish(is_copy ? "the output equals the input element for element: it was copied, "
                                "not transposed (out[c][r] must receive in[r][c])."
                              : nullptr);
}

CheckReport check_dot(float got, const DotReference& ref) {
  Tally tally(1, 1);
  tally.add(0, 0, got, ref.value, error_bound(ref.magnitude));
  CheckReport report = tally.finish();
  // One number, so the matrices' hints (patterns over elements) say nothing here.
  if (std::isnan(got)) {
    report.hint = "the result is NaN. *result starts out as NaN poison, like memory nobody wrote: set it "
                  "to 0 (cudaMemsetAsync) before the blocks add into it, and check that every block's "
                  "sum reads only values that were written (a missing __syncthreads?).";
  } else if (!report.pass() && got == 0.0f) {
    report.hint = "the result is 0: nothing was added into *result. Do the threads' loops run when n is "
                  "smaller than one block's share, and does each block add its sum (atomicAdd)?";
  } else if (!report.pass()) {
    report.hint = formatted("the result is off by %.3g, %.0f times the fp32 bound: products left out or "
                            "added twice. Does every i < n count exactly once: the elements past the last "
                            "whole float4 or block, and the blocks past the first grid-stride step?",
                            std::fabs(double(got) - ref.value), report.max_error_ratio);
  }
  return report;
}

CheckReport check_finite(const float* got, int64_t rows, int64_t cols) {
  if (count_nonfinite(got, size_t(rows * cols)) == 0) return all_right(size_t(rows * cols));
  Tally tally(rows, cols);
  for (int64_t i = 0; i < rows * cols; ++i) {
    const bool finite = std::isfinite(got[i]);
    tally.add(i / cols, i % cols, got[i], finite ? got[i] : 0.0, finite ? 0.0 : -1.0);
  }
  return tally.finish();
}

std::string verdict_line(const CheckReport& r) {
  const std::string text = format_report(r, "");
  return text.substr(0, text.find('\n'));
}

std::string format_report(const CheckReport& r, const char* indent) {
  std::string out;
  char line[512];
  if (r.pass()) {
    snprintf(line, sizeof line, "PASS: %lld of %lld elements within the bound (largest error %.2f of the bound, %.3g absolute)\n",
             (long long)r.checked, (long long)r.checked, r.max_error_ratio, r.max_abs_error);
    return line;
  }
  snprintf(line, sizeof line, "FAIL: %lld of %lld elements wrong", (long long)r.wrong,
           (long long)r.checked);
  out += line;
  if (r.unwritten > 0) {
    snprintf(line, sizeof line, " (%lld never written)", (long long)r.unwritten);
    out += line;
  }
  out += "\n";
  for (const Mismatch& m : r.first) {
    if (m.bound < 0) {  // bit-exact comparison
      snprintf(line, sizeof line, "%s  at (%lld, %lld): got %.9g, expected %.9g exactly\n", indent,
               (long long)m.row, (long long)m.col, m.got, m.expected);
    } else {
      snprintf(line, sizeof line, "%s  at (%lld, %lld): got %.9g, expected %.9g +- %.2g\n", indent,
               (long long)m.row, (long long)m.col, m.got, m.expected, m.bound);
    }
    out += line;
  }
  if (r.wrong > int64_t(r.first.size())) {
    snprintf(line, sizeof line, "%s  ... and %lld more\n", indent, (long long)(r.wrong - int64_t(r.first.size())));
    out += line;
  }
  if (!r.hint.empty()) out += std::string(indent) + "hint: " + r.hint + "\n";
  return out;
}

}  // namespace lab
