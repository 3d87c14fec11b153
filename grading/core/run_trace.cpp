#include "grading/core/run_trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "grading/core/machine.h"

namespace grade {

namespace {

std::string base_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

double now_since_1970() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

std::string machine_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "this-machine";
}

}  // namespace

RunTrace::RunTrace(const Context& ctx, const Program& program, const std::vector<std::string>& args,
                   const std::vector<std::string>& wrapper, bool alone)
    : ctx_(ctx),
      asked_(now_since_1970()),
      waiting_(std::chrono::steady_clock::now()),
      running_(waiting_) {
  if (ctx.trace_runs.empty()) return;
  what_ = std::string(alone ? "alone" : "shared") + "\t" + base_name(program.path) +
          (program.step.empty() ? "" : " step " + program.step) + (program.solution ? " solution" : "") + "\t" +
          (wrapper.empty() ? "-" : base_name(wrapper[0])) + "\t" + (args.empty() ? "-" : base_name(args.back())) + "\t" +
          machine_name() + ":" + (ctx.backend == "gpu" && !program.on_cores ? visible_gpus() : "cpu") + "\n";
}

void RunTrace::started() { running_ = std::chrono::steady_clock::now(); }

void RunTrace::window_opened() { window_from_ = now_since_1970(); }

void RunTrace::window_closed() {
  if (window_from_ > 0 && window_to_ == 0) window_to_ = now_since_1970();
}

void RunTrace::ended() const {
  if (ctx_.trace_runs.empty()) return;
  char times[96];
  std::snprintf(times, sizeof times, "%.3f\t%.3f\t%.3f\t", asked_, seconds(running_ - waiting_),
                seconds(std::chrono::steady_clock::now() - running_));
  std::string line = times + what_;
  if (window_to_ > 0) {
    std::snprintf(times, sizeof times, "%.3f\t0.000\t%.3f\t", window_from_, window_to_ - window_from_);
    line += times + ("timed" + what_.substr(what_.find('\t')));
  }
  // O_APPEND, one write: a line whole, beside other graders' lines.
  const int fd = open(ctx_.trace_runs.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const ssize_t written = write(fd, line.data(), line.size());
  (void)written;  // a trace cut short costs the grading nothing
  close(fd);
}

}  // namespace grade
