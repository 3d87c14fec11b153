#include "grading/core/case_runs.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>

#include "tools/descendants.h"
#include "tools/text.h"
#include "common/timing.h"
#include "grading/core/isolation.h"
#include "grading/core/machine.h"
#include "grading/core/pass_clock.h"
#include "grading/core/run_trace.h"
#include "grading/core/student_uid.h"
#include "grading/core/turns.h"

namespace grade {

namespace {

// A student's code may take this many times the solution's time for a case or a pass.
constexpr double kLimitFactor = 4;
// But never less than these, in seconds: a new process, a CUDA context and reading the inputs
// cost the same for any kernel. The CPU backend runs every thread on two cores: more.
constexpr double kCaseFloorGpu = 2, kCaseFloorCpu = 5;
constexpr double kPassFloorGpu = 8, kPassFloorCpu = 20;
// One run of one small case under a tool (compute-sanitizer, ncu) or in a sanitizer's build: the
// solutions take 1-3 s on the H100 and under 2 s on the CPU backend. A run that meets this floor
// is not failed for it: the solution's time decides (run_limited).
constexpr double kRunFloorGpu = 10, kRunFloorCpu = 30;
// On a GPU the seconds before a program's device is open count against no shape's limit, only
// against this one (grading/core/pass_clock.h): 32 programs starting at once on the H200 took
// 5.9 s at most.
constexpr double kStartLimitGpu = 10;

// A folder the student's program writes its results into.
std::string make_dir(const Context& ctx, const std::string& name) {
  const std::string dir = make_private_dir(ctx.work_dir + "/" + name + "-");
  if (dir.empty()) throw CannotGrade("cannot make a folder in " + ctx.work_dir);
  ctx.sandbox.hand_over(dir);
  return dir;
}

// Removes what runs left in CASES's folder of their results, for a run again.
void remove_results(const Cases& cases) { tools::run_command({"sh", "-c", "rm -f \"$0\"/*.result \"$0\"/*.out", cases.dir}); }

void write_case_list(const Cases& cases, const std::vector<size_t>& which) {
  std::ofstream list(cases.dir + "/cases.txt");
  for (size_t i : which) list << lab::format_case_line(cases.cases[i]) << "\n";
}

// Removes case I's result and output, for a run again or a result that does not count.
void forget_result(const Cases& cases, size_t i) {
  std::remove(cases.result_path(i).c_str());
  std::remove((cases.dir + "/" + std::to_string(cases.cases[i].id) + ".out").c_str());
}

bool has_error(const std::string& result_path) {
  const lab::CaseResult r = lab::parse_result(tools::read_text(result_path));
  return !r.launch_error.empty() || !r.run_error.empty();
}

// Whether TEXT (a run's output, a case's error) says that the GPU's memory ran out: the runtime's
// error's name or text, the driver's.
bool says_out_of_memory(const std::string& text) {
  return tools::contains(text, "out of memory") || tools::contains(text, "MemoryAllocation") ||
         tools::contains(text, "OUT_OF_MEMORY");
}

// Whether a run beside other graders' runs may have ended as it did for their programs: another
// student's program can take the GPU's memory and share its time, so a run stopped for time,
// killed by the kernel (SIGKILL) or out of GPU memory is run again alone. No other ending is
// theirs: a crash or any other CUDA error is the program's own, and gets no second try.
bool may_be_others(const tools::RunResult& r) { return r.timed_out || r.signal == SIGKILL || says_out_of_memory(r.output); }

}  // namespace

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string fmt(const char* format, double a, double b, double c) {
  char text[256];
  snprintf(text, sizeof text, format, a, b, c);
  return text;
}

Turns& gpu_turns(const Context& ctx) {
  static Turns turns;
  static std::once_flag shared;
  std::call_once(shared, [&] {
    if (ctx.backend != "gpu") return;
    // One lock file per GPU, on this machine: the GPU CUDA_VISIBLE_DEVICES gives this grader (make
    // grade-class sets it), else all of them. Named by that text: graders that name one GPU two
    // ways ("0", its UUID) would not take turns, and Slurm's tasks, each naming its own GPU "0",
    // take turns they need not (slower, never unfair).
    std::string gpu = visible_gpus();
    for (char& c : gpu) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
    }
    turns.share_with_graders(machine_lock_folder() + "/gpu-" + gpu + ".lock", ctx.side_by_side);
  });
  return turns;
}

std::string over_memory_line(long limit_mib) {
  return "(stopped: its resident memory passed the grader's limit of " + memory_text(limit_mib) + ", the rubric's memory.run)";
}

namespace {

// What is this run's own: the program, its working folder and its cases; the rest of the
// builds and of the scratch folder is hidden from a student's program.
std::vector<std::string> own_paths(const Program& program, const std::string& cwd, const std::vector<std::string>& args) {
  std::vector<std::string> own;
  if (!program.solution) {
    for (const std::string& path : std::vector<std::string>{program.path, cwd, args.empty() ? "" : args.back()}) {
      if (!path.empty() && exists(path)) own.push_back(std::filesystem::weakly_canonical(path).string());
    }
  }
  return own;
}

// The turn at the GPU of a run of PROGRAM at place USE, held while it lives; none for a CPU
// backend's build (Program::on_cores), which never touches the GPU.
std::optional<Turn> turn_at_gpu(const Context& ctx, const Program& program, GpuUse use) {
  if (program.on_cores) return std::nullopt;
  return std::optional<Turn>(std::in_place, gpu_turns(ctx),
                             use == GpuUse::alone ? Turns::Kind::alone : program.solution ? Turns::Kind::solution : Turns::Kind::student,
                             use == GpuUse::timed);
}

// A sanitizer's build has no data limit (its shadow memory would break it), and ThreadSanitizer
// does not hold its own RSS limit: its resident memory, and that of what it started, is read
// every 200 ms, and the run stopped past the limit (OVER_MEMORY then set). STOP_EARLY and STARTED:
// the run's, wrapped.
void watch_memory(const Context& ctx, const std::shared_ptr<std::atomic<bool>>& over_memory, std::function<bool()>* stop_early,
                  std::function<void(int pid)>* started) {
  auto pid = std::make_shared<std::atomic<int>>(0);
  *stop_early = [stop_early = std::move(*stop_early), pid, over_memory, limit = ctx.sandbox.memory_limit_mib << 20, calls = 0]() mutable {
    if (stop_early && stop_early()) return true;
    if (++calls % 4 != 0 || *pid == 0 || tools::tree_resident_bytes(*pid) <= limit) return false;
    *over_memory = true;
    return true;
  };
  *started = [started = std::move(*started), pid](int p) {
    *pid = p;
    if (started) started(p);
  };
}

}  // namespace

tools::RunResult run_program(const Context& ctx, const Program& program, const std::vector<std::string>& args,
                           const std::vector<std::string>& env, const std::vector<std::string>& wrapper, double timeout_s,
                           RunControl control) {
  std::function<bool()> stop_early = std::move(control.stop_early);
  std::function<void(int pid)> started = std::move(control.started);
  if (fingerprint(program.path) != program.fingerprint) {
    tools::RunResult tampered;
    tampered.spawn_failed = true;
    tampered.output = program.path + " changed after it was built: something rewrote it during grading\n";
    return tampered;
  }
  std::vector<std::string> argv = wrapper;
  argv.push_back(program.path);
  if (!program.step.empty()) argv.insert(argv.end(), {"--step", program.step});
  argv.insert(argv.end(), args.begin(), args.end());
  tools::RunOptions options;
  options.timeout_s = timeout_s > 0 ? timeout_s : ctx.rubric->timeout_run;
  options.max_output = 256 * 1024;
  auto over_memory = std::make_shared<std::atomic<bool>>(false);
  if (program.sanitizer) watch_memory(ctx, over_memory, &stop_early, &started);
  options.stop_early = std::move(stop_early);
  // A working folder of its own, so that what it writes where it stands lands nowhere that
  // matters; it is its home too (Nsight Compute keeps its settings there).
  options.cwd = make_dir(ctx, "cwd");
  options.env = env;
  options.env.push_back("HOME=" + options.cwd);
  const std::vector<std::string> own = own_paths(program, options.cwd, args);
  RunTrace trace(ctx, program, args, wrapper, control.gpu == GpuUse::alone);
  std::optional<Turn> turn = turn_at_gpu(ctx, program, control.gpu);
  if (control.window != nullptr) control.window->attach(turn ? &*turn : nullptr, &trace);
  trace.started();
  options.started = std::move(started);
  tools::RunResult r = ctx.sandbox.run(ctx.sandbox.wrap(argv, options.timeout_s, program.sanitizer, own), options);
  tools::kill_descendants();
  if (control.window != nullptr) {
    control.window->over();  // a program that ended inside its window closes it
    control.window->attach(nullptr, nullptr);
  }
  trace.ended();
  tools::run_command({"rm", "-rf", options.cwd});
  if (*over_memory) {
    // Stopped for its memory, not its time: no later limit from the solution's time changes that.
    r.timed_out = false;
    r.signal = SIGKILL;
    r.output += (r.output.empty() || r.output.back() == '\n' ? "" : "\n") + over_memory_line(ctx.sandbox.memory_limit_mib) + "\n";
  }
  return r;
}

void TimedWindow::ready() {
  if (turn_ != nullptr && turn_->ready() && trace_ != nullptr) trace_->window_opened();
}

void TimedWindow::over() {
  if (trace_ != nullptr) trace_->window_closed();
  if (turn_ != nullptr) turn_->timed();
}

Cases write_cases(const Context& ctx, const std::string& name, const std::vector<lab::Case>& shapes, bool timed) {
  Cases out;
  out.dir = make_dir(ctx, name);
  for (size_t i = 0; i < shapes.size(); ++i) {
    lab::ServeCase c;
    c.id = int(i);
    c.shape = shapes[i];
    c.timed = timed;
    c.reps = timed ? lab::kTimedRuns : 0;
    c.warmup = timed ? lab::kWarmupRuns : 0;
    out.cases.push_back(c);
    out.inputs.push_back(lab::make_inputs(shapes[i], ctx.seed + i));
    const std::vector<std::vector<float>>& in = out.inputs.back();
    for (size_t j = 0; j < in.size(); ++j) {
      lab::write_floats(out.dir + "/" + std::to_string(i) + ".in" + std::to_string(j), in[j].data(), in[j].size());
    }
  }
  std::vector<size_t> all(shapes.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  write_case_list(out, all);
  return out;
}

Cases repeat_cases(const Cases& from) {
  Cases out = from;
  const size_t n = from.cases.size();
  for (lab::ServeCase& c : out.cases) c.id += int(n);
  // Each input file again under its twin's id: "3.in0" as "<n + 3>.in0".
  const char* script = "cd \"$0\" && for f in *.in*; do [ -e \"$f\" ] || continue; "
                       "cp \"$f\" \"$(( ${f%%.*} + $1 )).${f#*.}\" || exit 1; done";
  const tools::RunResult cp = tools::run_command({"sh", "-c", script, from.dir, std::to_string(n)});
  if (!cp.exited(0)) throw CannotGrade("cannot copy the cases in " + from.dir + ": " + cp.describe() + "\n" + cp.output);
  return out;
}

Cases copy_cases(const Context& ctx, const Cases& from, const std::string& name, bool zero_fill) {
  Cases out = from;
  out.dir = make_dir(ctx, name);
  for (lab::ServeCase& c : out.cases) c.zero_fill = zero_fill;
  // A copy cut short would fail the runs on it as a broken program; it is the machine's failure
  // (a full disk, or, without namespaces, student code that killed the cp), never the student's.
  const tools::RunResult cp = tools::run_command({"sh", "-c", "cp \"$0\"/*.in* \"$1\"", from.dir, out.dir});
  if (!cp.exited(0)) throw CannotGrade("cannot copy the cases to " + out.dir + ": cp " + cp.describe() + "\n" + cp.output);
  // And their list, for a run outside a pass (run_limited's solution, the technique check's):
  // without it, such a run of the copy found no cases and failed.
  std::vector<size_t> all(out.cases.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  write_case_list(out, all);
  return out;
}

Limits fixed_limits(const Context& ctx, size_t cases) {
  Limits l;
  l.per_case.assign(cases, ctx.rubric->timeout_run);
  l.total = ctx.rubric->timeout_run;
  l.basis = "the rubric's timeout.run";
  return l;
}

Limits limits_from(const Context& ctx, const std::vector<double>& solution_seconds) {
  const bool gpu = ctx.backend == "gpu";
  const double case_floor = gpu ? kCaseFloorGpu : kCaseFloorCpu, pass_floor = gpu ? kPassFloorGpu : kPassFloorCpu;
  Limits l = fixed_limits(ctx, solution_seconds.size());
  double total = 0;
  for (size_t i = 0; i < solution_seconds.size(); ++i) {
    if (solution_seconds[i] < 0) continue;
    l.per_case[i] = std::max(case_floor, kLimitFactor * solution_seconds[i]);
    total += solution_seconds[i];
  }
  l.total = std::min(ctx.rubric->timeout_run, std::max(pass_floor, kLimitFactor * total));
  l.basis = fmt(gpu ? "%.0fx the solution's time in this run, at least %.0f s a shape and %.0f s in all"
                    : "%.0fx the solution's CPU time in this run, at least %.0f s a shape and %.0f s in all",
                kLimitFactor, case_floor, pass_floor);
  return l;
}

namespace {

// One try of run_limited, its runs at GPU place USE.
tools::RunResult run_limited_once(const Context& ctx, const Program& program, const Cases& cases, const std::vector<std::string>& env,
                                const std::vector<std::string>& wrapper, const Program* solution, GpuUse use) {
  RunControl control;
  control.gpu = use;
  const double floor = std::min(ctx.rubric->timeout_run, ctx.backend == "gpu" && !program.on_cores ? kRunFloorGpu : kRunFloorCpu);
  tools::RunResult r = run_program(ctx, program, {"--serve", cases.dir}, env, wrapper, floor, control);
  if (!r.timed_out) return r;
  std::string why = fmt("(stopped after %.0f s, the least time any such run gets", floor);
  if (solution != nullptr && !solution->path.empty()) {
    // Slow, or hung: the solution's time for the same run tells which.
    const Cases theirs = copy_cases(ctx, cases, "solution-time");
    const tools::RunResult s = run_program(ctx, *solution, {"--serve", theirs.dir}, env, wrapper, 0, control);
    if (s.exited(0)) why += fmt("; the solution took %.1f s for the same run", s.seconds);
    if (s.exited(0) && kLimitFactor * s.seconds > floor) {
      remove_results(cases);
      r = run_program(ctx, program, {"--serve", cases.dir}, env, wrapper, std::min(ctx.rubric->timeout_run, kLimitFactor * s.seconds),
                      control);
      why = fmt("(stopped at %.0fx the solution's %.1f s for the same run", kLimitFactor, s.seconds);
    }
  }
  if (r.timed_out) r.output += (r.output.empty() || r.output.back() == '\n' ? "" : "\n") + why + ")\n";
  return r;
}

}  // namespace

tools::RunResult run_limited(const Context& ctx, const Program& program, const Cases& cases, const std::vector<std::string>& env,
                           const std::vector<std::string>& wrapper, const Program* solution) {
  const tools::RunResult r = run_limited_once(ctx, program, cases, env, wrapper, solution, GpuUse::shared);
  // A tool (compute-sanitizer, Nsight Compute) that died of a signal before its summary broke
  // itself, not the program it watched (whose crash it reports): twice in three classes of 20 on
  // the H200, a memcheck run of the solution's file beside the others died of SIGSEGV with nothing
  // reported. (A program that kills its tool so gains a run alone, no point.)
  const bool tool_broke = !wrapper.empty() && r.signal != 0 && !tools::contains(r.output, "ERROR SUMMARY");
  if (!gpu_turns(ctx).side_by_side() || program.on_cores || !(may_be_others(r) || tool_broke)) return r;
  remove_results(cases);
  return run_limited_once(ctx, program, cases, env, wrapper, solution, GpuUse::alone);
}


namespace {

// A run's timed case, as its program tells it (common/protocol.h): once ready, it waits for its
// window at the GPU (TimedWindow), the pass's clock stopped meanwhile, then gets its go; its
// timed calls over, the window closes.
class TimedCaseWatch {
 public:
  TimedCaseWatch(const Cases& cases, size_t i, PassClock& clock, TimedWindow& window)
      : base_(cases.dir + "/" + std::to_string(cases.cases[i].id)), timed_(cases.cases[i].timed), clock_(clock), window_(window) {
    for (const char* what : {".ready", ".go", ".timed"}) std::remove((base_ + what).c_str());
  }
  // Looks at what the program said; true when the run must stop (the window could not be had).
  bool look() {
    if (!timed_ || error_) return bool(error_);
    if (!went_ && exists(base_ + ".ready")) {
      clock_.counting();  // its device's opening, if not seen yet, before the wait
      clock_.pause();
      try {
        window_.ready();
      } catch (...) {
        error_ = std::current_exception();
        return true;
      }
      clock_.resume();
      went_ = std::ofstream(base_ + ".go").good();
    }
    if (went_ && !over_ && exists(base_ + ".timed")) {
      window_.over();
      over_ = true;
    }
    return false;
  }
  // After the run: what taking the window threw, thrown again.
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::string base_;
  bool timed_;
  PassClock& clock_;
  TimedWindow& window_;
  bool went_ = false, over_ = false;
  std::exception_ptr error_;
};

// One try of serve_pass, its runs at GPU place USE. When TWINS is not 0, case i + TWINS is case i
// run again (serve_twice), LIMITS.total is both passes' time and the first runs have half of it,
// as a pass of their own; a case whose program died, hung or ran out of time there has its twin
// dropped from the runs to come: it would only do so again. (A first shape late from its
// program's start is found with its twin already in the running program's list: that twin runs,
// and does not count.) Long because it is one loop, a run of the program each round, whose
// callbacks (started, advance, stop_early) share the case being run, when it started and the
// pass's clock: helpers would each have to be handed all three.
Pass serve_pass_once(const Context& ctx, const Program& program, const Cases& cases, std::vector<size_t> which,
                     const std::vector<std::string>& env, const Limits& limits, GpuUse use, size_t twins) {
  Pass pass;
  pass.seconds.assign(cases.cases.size(), -1);
  pass.stopped.assign(cases.cases.size(), "");
  const bool gpu = ctx.backend == "gpu";
  PassClock clock(!gpu, cases.dir + "/started", kStartLimitGpu);
  const double pass_time = twins > 0 ? limits.total / 2 : limits.total;
  auto deadline = [&](size_t k) { return k < which.size() && (twins == 0 || which[k] < twins) ? pass_time : limits.total; };
  auto drop_twin = [&](size_t i, size_t from) {
    if (twins > 0 && i < twins) which.erase(std::remove(which.begin() + long(from), which.end(), i + twins), which.end());
  };
  size_t next = 0;
  while (next < which.size()) {
    if (clock.now() >= deadline(next)) {
      // Every case whose time is over is not run: all that are left, or the rest of the first runs.
      while (next < which.size() && clock.now() >= deadline(next)) {
        const size_t i = which[next];
        pass.stopped[i] = fmt("not run: the time for all shapes (%.0f s: ", pass_time) + limits.basis + ") ran out";
        which.erase(which.begin() + long(next));
        drop_twin(i, next);
      }
      continue;
    }
    const double left = limits.total - clock.now();
    write_case_list(cases, std::vector<size_t>(which.begin() + long(next), which.end()));
    size_t current = next;
    double case_start = clock.now();
    // Waiting for its turn (run_program) counts against no limit: the clock starts with the run.
    auto started = [&](int pid) {
      clock.started(pid);
      case_start = clock.now();
    };
    bool too_slow = false, out_of_time = false, slow_start = false, late = false, late_error = false;
    size_t stopped_at = which.size();  // the case at which stop_early stopped the run, if it did
    // Moves past every case whose result is there, timing each from the end of the one before.
    // A run's first shape late from its program's start (PassClock::first_shape_late) fails, its
    // result unread.
    auto advance = [&] {
      clock.counting();
      while (current < which.size() && exists(cases.result_path(which[current]))) {
        clock.shape_done();
        const double now = clock.now();
        const size_t i = which[current];
        pass.seconds[i] = now - case_start;
        if (current == next && clock.first_shape_late(limits.per_case[i])) {
          pass.stopped[i] = fmt("timed out after %.1f s on this shape, its program's start included (its limit: ",
                                clock.since_start()) +
                            limits.basis + ")";
          late_error = has_error(cases.result_path(i));  // (a CUDA error there ended the run on purpose)
          forget_result(cases, i);
          pass.seconds[i] = -1;
          late = true;
        }
        case_start = now;
        ++current;
      }
    };
    TimedWindow window;
    TimedCaseWatch watch(cases, which[next], clock, window);
    RunControl control;
    control.window = &window;
    control.stop_early = [&] {
      if (watch.look()) return true;
      advance();
      if (!clock.counting()) return slow_start = clock.slow_start();
      const double now = clock.now();
      too_slow = current < which.size() && now - case_start > limits.per_case[which[current]];
      out_of_time = now >= deadline(current);
      if (too_slow || out_of_time) stopped_at = current;
      return too_slow || out_of_time;
    };
    control.started = started;
    control.gpu = use;
    clock.starting();
    // A timed run's wait for its window (the others' runs under way, its round's setups and calls)
    // stops its pass's clock; the process's own limit gets the rubric's timeout.run for it.
    const double start_limit = gpu ? kStartLimitGpu : 0, window_wait = use == GpuUse::timed ? ctx.rubric->timeout_run : 0;
    const tools::RunResult r =
        run_program(ctx, program, {"--serve", cases.dir}, env, {}, clock.wall_limit(left) + start_limit + window_wait, control);
    watch.rethrow();
    const double elapsed = clock.now() - case_start;
    clock.ended();
    advance();
    pass.may_be_others = pass.may_be_others || late;
    if (current == which.size()) break;
    // A case that ends in a CUDA error ends the process on purpose: go on from the next one.
    const bool sticky = current > next && (has_error(cases.result_path(which[current - 1])) || late_error);
    pass.may_be_others = pass.may_be_others || too_slow || out_of_time || slow_start || may_be_others(r) ||
                         (sticky && says_out_of_memory(tools::read_text(cases.result_path(which[current - 1]))));
    // Stopped at a case that then finished (its result came between the look and the kill): the
    // case after it is not to blame, and goes on in a fresh process, with the time it has.
    if (!sticky && stopped_at >= current) {
      const size_t i = which[current];
      pass.stopped[i] = slow_start ? fmt("timed out before this shape: its GPU was not ready after %.0f s (the least time any "
                                         "program gets to start)", kStartLimitGpu)
                        : too_slow ? fmt("timed out after %.1f s on this shape (its limit: ", elapsed) + limits.basis + ")"
                        : out_of_time || r.timed_out
                            ? "timed out: the time for all shapes (" + limits.basis + ") ran out during this shape"
                            : "the program " + r.describe() + " before finishing this shape";
      if (pass.failed_output.empty()) pass.failed_output = r.output;
      drop_twin(i, current);
      ++current;
    }
    next = current;
  }
  return pass;
}

// serve_pass, its twins as serve_pass_once's.
Pass serve_pass_tries(const Context& ctx, const Program& program, const Cases& cases, const std::vector<size_t>& which,
                      const std::vector<std::string>& env, const Limits& limits, bool timed, size_t twins) {
  const Pass pass = serve_pass_once(ctx, program, cases, which, env, limits, timed ? GpuUse::timed : GpuUse::shared, twins);
  // A timed pass sets its case up beside the other programs of its round, which may hold the
  // memory or the time it lacked.
  if (!(gpu_turns(ctx).side_by_side() || timed) || program.on_cores || !pass.may_be_others) return pass;
  for (size_t i : which) forget_result(cases, i);
  return serve_pass_once(ctx, program, cases, which, env, limits, GpuUse::alone, twins);
}

}  // namespace

Pass serve_pass(const Context& ctx, const Program& program, const Cases& cases, const std::vector<size_t>& which,
                const std::vector<std::string>& env, const Limits& limits, bool timed) {
  return serve_pass_tries(ctx, program, cases, which, env, limits, timed, 0);
}

std::pair<Pass, Pass> serve_twice(const Context& ctx, const Program& program, const Cases& cases, const Cases& again,
                                  const std::vector<size_t>& which, const std::vector<std::string>& env, const Limits& limits) {
  const size_t n = cases.cases.size();
  // One list of 2n cases in the one folder; serve_pass_tries reads no inputs, only their files.
  Cases both;
  both.dir = cases.dir;
  both.cases = cases.cases;
  both.cases.insert(both.cases.end(), again.cases.begin(), again.cases.end());
  std::vector<size_t> order = which;
  for (size_t i : which) order.push_back(n + i);
  Limits twice = limits;
  twice.per_case.insert(twice.per_case.end(), limits.per_case.begin(), limits.per_case.end());
  twice.total = 2 * limits.total;
  const Pass run = serve_pass_tries(ctx, program, both, order, env, twice, false, n);
  std::pair<Pass, Pass> out;
  for (auto [pass, from] : {std::pair{&out.first, size_t(0)}, std::pair{&out.second, n}}) {
    pass->seconds.assign(run.seconds.begin() + long(from), run.seconds.begin() + long(from + n));
    pass->stopped.assign(run.stopped.begin() + long(from), run.stopped.begin() + long(from + n));
    pass->may_be_others = run.may_be_others;
  }
  out.first.failed_output = run.failed_output;
  return out;
}

}  // namespace grade
