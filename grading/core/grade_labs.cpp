#include "grading/core/grade_labs.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "grading/core/build_folder.h"
#include "grading/core/cannot_grade.h"
#include "grading/core/case_runs.h"
#include "grading/core/checks.h"
#include "grading/core/machine.h"
#include "grading/core/report.h"
#include "grading/core/skeletons.h"
#include "grading/core/targets.h"
#include "grading/core/turns.h"

namespace grade {

namespace {

// MiB of memory a machine must have to spare for a lab's safety runs to run beside its
// correctness runs.
constexpr long long kSafetyBesideMib = 4096;

std::string main_shapes_text(const grade::LabRubric& l) {
  std::string text;
  for (size_t i : l.main_shapes) text += (text.empty() ? "" : ", ") + l.shapes[i].describe();
  return text;
}

// Where a lab's lines go: to stdout as they come when labs are graded one at a time, each with
// all its checks (on the CPU backend with JOBS=1); when several are graded at once, or timed
// after all of them (on a GPU), kept until the labs before it have printed, so that the output
// reads one lab after another whatever order they finish in.
class LabLog {
 public:
  explicit LabLog(bool live) : live_(live) {}
  void add(const std::string& text) {
    if (!live_) {
      kept_ += text;
      return;
    }
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  }
  // What was kept, and from now on each line as it comes.
  void go_live() {
    live_ = true;
    add(std::exchange(kept_, ""));
  }

 private:
  bool live_;
  std::string kept_;
};

// One lab's grading (of a lab in steps, one step's), from its build's check to its result.
struct LabGrading {
  const grade::LabRubric* rubric;
  grade::LabPrograms programs;
  grade::CheckResult build;
  LabLog log;
  grade::LabResult result;
  std::string why_skipped;  // why the checks after correctness did not run; empty when they did
  // A lab in steps is built once, and its build graded once, with the last step graded: its
  // points count once any step computed a shape correctly. The lab's steps are graded in order,
  // by one thread, and share SOME_CORRECT.
  bool grades_build = true;
  std::shared_ptr<bool> some_correct = std::make_shared<bool>(false);
  // Whether the safety check may start as soon as the main shapes pass, beside the rest of the
  // correctness check (grade_labs says when), and its result once it did.
  bool safety_beside = false;
  std::future<grade::CheckResult> safety{};

  void record(grade::CheckResult c) {
    log.add(grade::check_text(c));
    result.checks.push_back(std::move(c));
  }
  void skipped(const char* name, double points) {
    grade::CheckResult c(name, grade::Status::kSkip, points);
    c.details.push_back(why_skipped);
    record(c);
  }
  // A check the rubric gives no points is off: it runs nothing (safety's builds are not made
  // either: check_build.cpp), and says so.
  void off(const char* name) {
    grade::CheckResult c(name, grade::Status::kSkip, 0);
    c.details.push_back("off: the rubric gives it no points");
    record(c);
  }
};

// G's build and correctness checks, recorded; sets G's why_skipped when the later checks do not run.
void grade_correctness(const grade::Context& ctx, LabGrading& g) {
  const grade::LabRubric& l = *g.rubric;
  g.log.add("== " + l.step.title + ": " + ctx.src + "/" + l.folder + "/" + l.file() + "\n");
  const bool built = g.build.status == grade::Status::kPass;
  grade::CheckResult correctness("correctness", grade::Status::kSkip, l.points_correctness);
  bool main_correct = false;
  const std::string file = ctx.src + "/" + l.folder + "/" + l.file();
  const bool not_started = built && grade::untouched_skeleton(file, l);
  const bool step_missing = built && !not_started && !g.programs.defines(l.step.launcher);
  if (not_started) {
    // Said once, rather than a failing hint per shape, and no shape run.
    correctness.status = grade::Status::kFail;
    correctness.details = {"not started: " + file + " is the skeleton as handed out. Fill in its TODO(student) blocks " +
                           "(labs/" + l.folder + "/README.md says how), then make check LAB=" + l.number + " after each edit"};
  } else if (step_missing) {
    correctness.status = grade::Status::kFail;
    correctness.details = {"not done: " + file + " does not define " + l.step.launcher + "(), this step's launcher " +
                           "(harness/launchers.h declares it): the step is not graded, the lab's other steps are"};
  } else if (built) {
    std::function<void()> start_safety;
    if (g.safety_beside && l.points_safety > 0) {
      start_safety = [&ctx, &g, &l] {
        g.safety = std::async(std::launch::async, [&ctx, &g, &l] { return grade::check_safety(ctx, l, g.programs); });
      };
    }
    correctness = grade::check_correctness(ctx, l, g.programs, &main_correct, start_safety);
  }
  if (correctness.points > 0) *g.some_correct = true;
  if (g.grades_build) {
    // The build's points count once the lab computes something: a skeleton compiles too.
    if (built && !*g.some_correct && g.build.max_points > 0) {
      g.build.points = 0;
      g.build.details.push_back("it compiles; its points count once a shape is computed correctly" +
                                std::string(l.step.count > 1 ? " by any step" : ""));
    }
    g.record(g.build);
  }
  if (!built) {
    g.why_skipped = "skipped: nothing was built";
  } else if (not_started) {
    g.record(correctness);
    g.why_skipped = "skipped: the lab is not started";
  } else if (step_missing) {
    g.record(correctness);
    g.why_skipped = "skipped: the step is not done";
  } else {
    g.record(correctness);
    if (!main_correct) g.why_skipped = "skipped: these run once the main shapes (" + main_shapes_text(l) + ") are correct";
  }
  if (!built) g.skipped("correctness", l.points_correctness);
}

// G's safety and technique checks, once correctness let them run.
void grade_later_checks(const grade::Context& ctx, LabGrading& g) {
  const grade::LabRubric& l = *g.rubric;
  if (g.why_skipped.empty()) {
    // Nsight Compute profiles one process at a time (grading/core/turns.h's ProfilerTurn). On a
    // GPU the technique check waits for its turn beside the safety check, not after it: the
    // labs' profiles, one after another, then start as soon as each lab is correct.
    std::future<grade::CheckResult> technique;
    if (!ctx.quick && l.points_technique > 0) {
      technique = std::async(ctx.backend == "gpu" ? std::launch::async : std::launch::deferred,
                             [&] { return grade::check_technique(ctx, l, g.programs); });
    }
    if (l.points_safety == 0) {
      g.off("safety");
    } else {
      g.record(g.safety.valid() ? g.safety.get() : grade::check_safety(ctx, l, g.programs));
    }
    if (technique.valid()) g.record(technique.get());
    if (!ctx.quick && l.points_technique == 0) g.off("technique");
    // make check grades no technique; on the CPU backend it still shows the estimate make grade's
    // technique check shows (a run at its shape: a fraction of a second).
    const std::string estimate = ctx.quick ? grade::technique_estimate(ctx, l, g.programs) : "";
    if (!estimate.empty()) g.log.add("  " + estimate + "\n");
  } else {
    if (g.safety.valid()) g.safety.wait();  // started, though the verdicts then went another way
    g.skipped("safety", l.points_safety);
    if (!ctx.quick) g.skipped("technique", l.points_technique);
  }
}

// Every check of G's lab but performance.
void grade_checks(const grade::Context& ctx, LabGrading& g) {
  const grade::LabRubric& l = *g.rubric;
  g.result = grade::LabResult{l.step.id, l.file(), {}, l.step.title};
  grade_correctness(ctx, g);
  grade_later_checks(ctx, g);
}

// G's performance check, and its lab's score. TIMED_OVER: check_performance's.
void grade_performance(const grade::Context& ctx, LabGrading& g, const std::function<void()>& timed_over = {}) {
  const grade::LabRubric& l = *g.rubric;
  // On the CPU backend the performance check is waived (and runs nothing), whatever came before.
  if (!ctx.quick && l.points_performance == 0) {
    g.off("performance");
  } else if (!ctx.quick && (g.why_skipped.empty() || ctx.backend == "cpu")) {
    g.record(grade::check_performance(ctx, l, g.programs, timed_over));
  } else if (!ctx.quick) {
    g.skipped("performance", l.points_performance);
  }
  g.log.add("lab " + l.number + (l.step.count > 1 ? ", step " + std::to_string(l.step.number) : "") + ": " +
            grade::points_text(g.result.points()) + "/" +
            grade::points_text(g.result.max_points()) + "\n");
}

// Whether a grading times its labs after all their other checks, in a round (time_labs,
// grading/core/turns.h): on a GPU, but for make check, which times nothing.
bool times_last(const grade::Context& ctx) { return ctx.backend == "gpu" && !ctx.quick; }

// Calls WORK(i) for i < COUNT, JOBS at a time; the first exception any call threw, once all ended.
void run_at_once(size_t count, int jobs, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(count);
  std::vector<std::thread> threads;
  for (int t = 0; t < jobs; ++t) {
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < count;) {
        try {
          work(i);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

// Every lab built, before any student code runs, so that each program's fingerprint is taken
// before any can: first what the labs' builds share, then each lab's own build, side by side
// when the shared part built. A lab in steps is built once, with its first step; the later
// steps run what it made. On a GPU every lab builds at once, whatever JOBS: graders that share
// the build folder build one at a time (BuildLock), and a class's grader, given two labs at a
// time, built them two by two, 8 s of builds a student at the median, so at least 4 s under the
// lock; at once, a student's longest build took 3.0 to 3.2 s (classes of 20 on the H200:
// docs/results/grade-class-gpu-work-h200.log).
std::vector<LabGrading> build_labs(const grade::Context& ctx, const std::vector<const grade::LabRubric*>& labs,
                                   const std::string& build_stamp, int jobs) {
  std::vector<LabGrading> gradings;
  {
    const grade::BuildLock lock(ctx.build_dir);
    std::string error;
    if (!grade::prepare_build_folder(ctx.build_dir, build_stamp, &error)) throw grade::CannotGrade(error);
    std::vector<grade::LabPrograms> programs(labs.size());
    const bool shared = grade::build_shared(ctx, labs, &programs);
    std::vector<size_t> first_steps;
    for (size_t i = 0; i < labs.size(); ++i) {
      if (i == 0 || labs[i]->folder != labs[i - 1]->folder) first_steps.push_back(i);
    }
    std::vector<grade::CheckResult> builds(labs.size(), grade::CheckResult("build", grade::Status::kSkip, 0));
    const int build_jobs = !shared ? 1 : ctx.backend == "gpu" ? int(first_steps.size()) : jobs;
    run_at_once(first_steps.size(), build_jobs, [&](size_t k) {
      builds[first_steps[k]] = grade::check_build(ctx, *labs[first_steps[k]], &programs[first_steps[k]]);
    });
    for (size_t i = 0; i < labs.size(); ++i) {
      const grade::LabRubric* l = labs[i];
      const bool first = std::find(first_steps.begin(), first_steps.end(), i) != first_steps.end();
      if (!first) {
        programs[i] = programs[i - 1];
        builds[i] = builds[i - 1];
      }
      for (grade::Program* p : {&programs[i].main, &programs[i].asan, &programs[i].tsan, &programs[i].watched, &programs[i].solution,
                              &programs[i].solution_watched}) {
        p->step = l->step.count > 1 ? std::to_string(l->step.number) : "";
      }
      gradings.push_back(LabGrading{l, programs[i], builds[i], LabLog(jobs == 1 && !times_last(ctx)), {}, {}});
      if (!first) {
        gradings[i - 1].grades_build = false;
        gradings[i].some_correct = gradings[i - 1].some_correct;
      }
    }
    // The ceilings' program, where a performance target comes from a ceiling (grading/core/targets.h):
    // a lab without its solution here, or make bench's record of the solutions' shares.
    const bool without_solution = std::any_of(gradings.begin(), gradings.end(),
                                              [](const LabGrading& g) { return g.programs.solution.path.empty(); });
    if (ctx.backend == "gpu" && !ctx.quick && (without_solution || ctx.record_targets)) {
      const grade::Program ceilings = grade::build_ceilings(ctx);
      for (LabGrading& g : gradings) g.programs.ceilings = ceilings;
    }
  }
  return gradings;
}

// Each lab's lines as soon as the labs before it are done: the first lab's as they come, the
// others' kept until then (LabLog).
class InOrder {
 public:
  explicit InOrder(std::vector<LabGrading>& gradings) : gradings_(gradings), done_(gradings.size()) {
    gradings_.front().log.go_live();
  }
  void done(size_t i) {
    const std::lock_guard<std::mutex> hold(mutex_);
    done_[i] = true;
    for (; printed_ < gradings_.size() && done_[printed_]; ++printed_) gradings_[printed_].log.go_live();
  }

 private:
  std::vector<LabGrading>& gradings_;
  std::mutex mutex_;
  std::vector<bool> done_;
  size_t printed_ = 0;
};

// The performance checks of GRADINGS, once all their other checks are over, all at once: a round
// of timed passes (grading/core/turns.h's KeptAlone), which has the GPU alone: its programs set
// their cases up side by side, then time their calls one after another.
void time_labs(const grade::Context& ctx, std::vector<LabGrading>& gradings, InOrder& in_order) {
  // No round where nothing is timed (every lab stopped before its performance check): taking the
  // GPU's timer and saying it wants the GPU alone would still make the other graders' runs drain.
  const bool times = std::any_of(gradings.begin(), gradings.end(), [](const LabGrading& g) {
    return g.why_skipped.empty() && g.rubric->points_performance > 0;
  });
  std::optional<grade::KeptAlone> kept;
  if (times) kept.emplace(grade::gpu_turns(ctx));
  std::atomic<size_t> to_time{gradings.size()};
  run_at_once(gradings.size(), int(gradings.size()), [&](size_t i) {
    bool counted = false;
    const auto timed_over = [&] {
      if (!std::exchange(counted, true) && --to_time == 0 && kept) kept->end();
    };
    grade_performance(ctx, gradings[i], timed_over);
    timed_over();
    in_order.done(i);
  });
}

// Labs graded at once, JOBS at a time: they share the GPU for every check but their timed calls,
// which take it alone (grading/core/case_runs.cpp); on a GPU they are timed last (time_labs). A
// lab's steps go through their other checks in order, one after another (LabGrading::grades_build).
void grade_at_once(const grade::Context& ctx, std::vector<LabGrading>& gradings, int jobs) {
  const bool last = times_last(ctx);
  InOrder in_order(gradings);
  std::vector<size_t> lab_starts;
  for (size_t i = 0; i < gradings.size(); ++i) {
    if (i == 0 || gradings[i].rubric->folder != gradings[i - 1].rubric->folder) lab_starts.push_back(i);
  }
  run_at_once(lab_starts.size(), jobs, [&](size_t k) {
    const size_t end = k + 1 < lab_starts.size() ? lab_starts[k + 1] : gradings.size();
    for (size_t i = lab_starts[k]; i < end; ++i) {
      grade_checks(ctx, gradings[i]);
      if (last) continue;
      grade_performance(ctx, gradings[i]);
      in_order.done(i);
    }
  });
  if (last) time_labs(ctx, gradings, in_order);
}

}  // namespace

std::vector<LabResult> grade_labs(const grade::Context& ctx, const std::vector<const grade::LabRubric*>& labs,
                                  const std::string& build_stamp, int jobs) {
  std::vector<LabGrading> gradings = build_labs(ctx, labs, build_stamp, jobs);
  // On the CPU backend a lab's safety runs (ThreadSanitizer's on one OS thread, about 2 s) leave
  // a core idle; beside the once shapes, the longest of the correctness runs, they use it
  // (docs/grading-speed.md measures it). Only where the machine has a core and the memory to
  // spare for it (ThreadSanitizer's run of lab 02 takes 0.9 GB, the tall shape's 0.13 GB), and
  // labs are graded one at a time, as on the CPU backend by default.
  const bool safety_beside = ctx.backend == "cpu" && jobs == 1 && grade::usable_cores() >= 2 &&
                             grade::memory_to_spare_mib() >= kSafetyBesideMib;
  for (LabGrading& g : gradings) g.safety_beside = safety_beside;
  if (jobs == 1 && !times_last(ctx)) {
    for (LabGrading& g : gradings) {
      grade_checks(ctx, g);
      grade_performance(ctx, g);
    }
  } else {
    grade_at_once(ctx, gradings, jobs);
  }
  std::vector<grade::LabResult> results;
  for (LabGrading& g : gradings) results.push_back(std::move(g.result));
  return results;
}

}  // namespace grade
