# The workbook's build: the targets a student and an instructor use. `make help` lists them,
# from the comments above each (a line starting with ##); the maintainers' machinery is in mk/.
#
# Variables: LAB=01 (a lab of labs.txt), STEP=1 (a step of a lab in steps: its number or name),
# SRC=labs|solutions|any folder with the labs' layout,
# ARGS="--m 512 --n 512 --k 512", BACKEND=gpu|cpu (default: gpu when nvidia-smi sees one),
# ARCH=sm_90 (default: the GPU's), DEBUG=1 (device debug info, a sync after every launch).

SHELL := bash
.SUFFIXES:
.DELETE_ON_ERROR:
.DEFAULT_GOAL := all

BUILD := build
include mk/config.mk
include mk/labs.mk
include mk/variants.mk
include mk/maintainer.mk
include mk/platforms.mk
include mk/tests.mk

.PHONY: all help run check grade grade-class similarity release profile debug bench status test doctor clean

# make run and make profile build SRC with make's own rules, which need a plain folder name (make
# grade takes any): $(1) the target, in the message.
require_plain_src = $(if $(call plain_name,$(SRC)),:,echo "make $(1): SRC=\""$(call shell_quote,$(SRC))"\" is not a name make can build from (a space, a quote," \
  "or one of $$ ( ) : ; % * ? [ ] and the others make treats specially): rename the folder; make grade takes any name" >&2; exit 2)

## build every lab program for this backend (labs/ and solutions/)
all: $(foreach s,labs $(if $(SOLUTION_LABS),solutions),$(foreach l,$(LABS),$(call lab_program,$(l),$(s),$(FLAVOR))))

## this list: each target, from the comment above its rule
help:
	@awk '/^## / { doc = substr($$0, 4); next } \
	  doc != "" && /^[a-z][a-z0-9-]*:/ { if (FILENAME != last) { print (last == "" ? "" : "\n") title(FILENAME); last = FILENAME } \
	    printf "  make %-16s %s\n", substr($$0, 1, index($$0, ":") - 1), doc } { doc = "" } \
	  function title(f) { return f == "Makefile" ? "For students and instructors:" : "From " f ":" }' $(MAKEFILE_LIST)
	@echo
	@echo "Variables: LAB=01 (make check, grade and grade-class: or a list, 01,04), STEP=1 (a lab in steps: make run, check, grade and profile take every step, or this one)," \
	  "SRC=folder, ARGS=\"--m 512\", BACKEND=gpu|cpu, ARCH=sm_90, DEBUG=1 (device debug info," \
	  "a sync after every launch), SEED=, RUBRIC=file, JOBS=N labs at once (make grade)."

# A made SRC (a variant, or a wrong submission of the corpus: build/corpus/NAME) is made before
# make run, make check and make grade read it: its files, then && the command. Only such a
# folder itself: SRC=build/corpus names no entry and makes nothing.
made_src = $(filter $(SRC:%/=%),$(patsubst %/,%,$(dir $(patsubst %/,%,$(dir $(VARIANT_FILES))))))
make_src_files = $(if $(made_src),{ $(MAKE) --no-print-directory -s $(filter $(made_src)/%,$(VARIANT_FILES)) >/dev/null || \
  { echo "make: could not make $(SRC) (its list: tests/corpus/corpus.txt or solutions/variants/variants.txt)" >&2; exit 2; }; } &&)

# The lab, and the step of a lab in steps, that make check and make grade grade (the grader says
# what is wrong with them).
grade_lab_args = $(if $(LAB),--lab $(LAB)) $(if $(STEP),--step $(call shell_quote,$(STEP)))

# Builds $(1) with a job per core: the grader is two dozen files, and make runs one job at a
# time unless told otherwise (on the H100 box's 16 cores, its first build took a minute).
build_in_parallel = $(MAKE) --no-print-directory -j$$(nproc) $(1)

# A lab in steps (labs.txt) is run step by step: STEP=2 (or its name, 2d) runs one, and without
# STEP every step runs in turn. $(1) the lab, $(2) the command, to which --step S is added; the
# worst exit status of the runs (0 correct, 1 wrong, 2 could not run).
for_each_step = { [ -z "$(STEP)" ] || [ -n "$(call lab_steps,$(1))" ] || { echo "make: lab $(1) has no steps; STEP=$(STEP) names none" >&2; exit 2; }; }; \
  status=0 first=1; for step in $(or $(if $(STEP),$(STEP),$(call lab_step_names,$(1))),-); do \
    [ -n "$$first" ] || echo; first=; \
    $(2) $$([ "$$step" = - ] || echo --step "$$step"); s=$$?; [ $$s -le $$status ] || status=$$s; \
  done; exit $$status

## check one lab at its edges, then check and time it: make run LAB=01 (STEP=1, ARGS="--m 512", SRC=solutions, VARIANT=name)
run:
	@$(call require_plain_src,run)
	@[ -n "$(LAB)" ] || { echo "make run: say which lab, e.g. make run LAB=01 (labs: $(LABS))" >&2; exit 2; }
	@[ -n "$(call lab_name,$(LAB))" ] || { echo "make run: no lab '$(LAB)' here (labs: $(LABS))" >&2; exit 2; }
	@$(make_src_files) [ -f "$(SRC)/$(call lab_name,$(LAB))/$(call lab_file,$(call lab_name,$(LAB)))" ] || \
	  { echo "make run: $(SRC)/$(call lab_name,$(LAB))/$(call lab_file,$(call lab_name,$(LAB))) does not exist" >&2; exit 2; }
	@$(MAKE) --no-print-directory -s $(call lab_program,$(call lab_name,$(LAB)),$(SRC),$(FLAVOR)) \
	  $(if $(filter gpu,$(BACKEND)),$(if $(filter $(call lab_name,$(LAB)),$(SOLUTION_LABS)),$(call lab_program,$(call lab_name,$(LAB)),solutions,$(FLAVOR))) $(BUILD)/$(FLAVOR)/bin/ceilings)
	@$(call for_each_step,$(call lab_name,$(LAB)),scripts/run-lab "$(BACKEND)" "$(call lab_program,$(call lab_name,$(LAB)),$(SRC),$(FLAVOR))" \
	  "$(if $(filter gpu,$(BACKEND)),$(if $(filter $(call lab_name,$(LAB)),$(SOLUTION_LABS)),$(call lab_program,$(call lab_name,$(LAB)),solutions,$(FLAVOR))))" \
	  "$(if $(filter gpu,$(BACKEND)),$(BUILD)/$(FLAVOR)/bin/ceilings)" $(ARGS))

# gdb (cuda-gdb on a GPU) on the lab program built for debugging, stopped in the kernel at one
# CUDA thread (scripts/debug-lab): BLOCK=x,y THREAD=x,y (default 0,0), LINE= a line of the lab
# file (default: each kernel's entry), ARGS= the program's (e.g. --m 64 --n 64 --k 64),
# GDB_COMMANDS=file to run in batch mode once stopped. A lab in steps needs STEP=.
## stop your kernel at one thread in gdb: make debug LAB=02 BLOCK=1,0 THREAD=3,2 (LINE=81, STEP=1, ARGS=)
debug:
	@$(call require_plain_src,debug)
	@[ -n "$(LAB)" ] || { echo "make debug: say which lab, e.g. make debug LAB=02 BLOCK=1,0 THREAD=3,2 (labs: $(LABS))" >&2; exit 2; }
	@[ -n "$(call lab_name,$(LAB))" ] || { echo "make debug: no lab '$(LAB)' here (labs: $(LABS))" >&2; exit 2; }
	@[ -z "$(call lab_steps,$(call lab_name,$(LAB)))" ] || [ -n "$(STEP)" ] || \
	  { echo "make debug: lab $(LAB) is in steps: say which, e.g. STEP=1 (steps: $(call lab_step_names,$(call lab_name,$(LAB))))" >&2; exit 2; }
	@$(make_src_files) [ -f "$(SRC)/$(call lab_name,$(LAB))/$(call lab_file,$(call lab_name,$(LAB)))" ] || \
	  { echo "make debug: $(SRC)/$(call lab_name,$(LAB))/$(call lab_file,$(call lab_name,$(LAB))) does not exist" >&2; exit 2; }
	@$(MAKE) --no-print-directory -s $(call lab_program,$(call lab_name,$(LAB)),$(SRC),$(BACKEND)-debug)
	@scripts/debug-lab "$(BACKEND)" "$(call lab_program,$(call lab_name,$(LAB)),$(SRC),$(BACKEND)-debug)" \
	  "$(SRC)/$(call lab_name,$(LAB))/$(call lab_file,$(call lab_name,$(LAB)))" "$(BLOCK)" "$(THREAD)" "$(LINE)" "$(GDB_COMMANDS)" -- \
	  $(if $(STEP),--step $(STEP)) --no-edges --no-time $(ARGS)

# The program is built in the flavor that measures: the plain GPU build under Nsight Compute,
# the CPU backend's counting build (cpu-count) without a GPU; both give one report
# (scripts/profile-lab, build/host/profile). GPU=H200: on the CPU backend, the estimates for
# an H200 rather than an H100; on a GPU they are for the GPU it runs on.
## where a lab's kernels spend their memory traffic, per kernel and source line: Nsight Compute on a GPU, the CPU backend's model without (LAB=02, STEP=1, ARGS=, GPU=H200)
profile:
	@$(call require_plain_src,profile)
	@[ -n "$(LAB)" ] && [ -n "$(call lab_name,$(LAB))" ] || { echo "make profile: say which lab, e.g. make profile LAB=02 (labs: $(LABS))" >&2; exit 2; }
	@$(make_src_files) $(MAKE) --no-print-directory -s $(call lab_program,$(call lab_name,$(LAB)),$(SRC),$(PROFILE_FLAVOR)) $(PROFILE)
	@$(call for_each_step,$(call lab_name,$(LAB)),PROFILE_GPU="$(GPU)" scripts/profile-lab "$(BACKEND)" $(PROFILE) \
	  "$(call lab_program,$(call lab_name,$(LAB)),$(SRC),$(PROFILE_FLAVOR))" $(ARGS))
PROFILE_FLAVOR = $(if $(filter gpu,$(BACKEND)),gpu,cpu-count)

# The grader's quick pass: the same build, correctness and safety checks and hints as make grade,
# on the rubric's edge shapes, without technique and performance (nothing is timed); its reports
# go to build/check, and make status shows its runs as make check's. Like a test, it exits 1
# below full marks (the grader's --strict), so that `make check && ...` goes on only when it passed.
## after each edit: build, correctness and safety as make grade checks them, in seconds (LAB=03)
check: deps-backend
	@$(call build_in_parallel,$(GRADER))
	@$(make_src_files) $(GRADER) --quick --strict --src $(call shell_quote,$(SRC)) --backend $(BACKEND) $(grade_lab_args) $(if $(SEED),--seed $(SEED)) \
	  $(if $(RUBRIC),--rubric "$(RUBRIC)") $(if $(JOBS),--jobs $(JOBS)); status=$$?; \
	  [ $$status -eq 0 ] || echo "(the grader exited with status $$status)"; exit $$status

# Grades SRC (default labs/): every lab, or LAB=NN; SEED=N reproduces a run's inputs; RUBRIC=file.
# The grader's own exit status (0 full marks, 1 below full marks, 2 could not run) is printed:
# make reports any failure as its own status 2.
## grade your labs: every lab, or LAB=03, or LAB=01,04; SRC=folder a submission; SEED=, RUBRIC=file
grade: deps-backend
	@$(call build_in_parallel,$(GRADER))
	@$(make_src_files) $(GRADER) --src $(call shell_quote,$(SRC)) --backend $(BACKEND) $(grade_lab_args) $(if $(SEED),--seed $(SEED)) \
	  --strict $(if $(RUBRIC),--rubric "$(RUBRIC)") $(if $(JOBS),--jobs $(JOBS)); status=$$?; \
	  [ $$status -eq 0 ] || echo "(the grader exited with status $$status)"; exit $$status

# Grades each student of SUBMISSIONS (a folder per student, or a .zip or .tar of one) with the
# grader, JOBS at a time, into OUT (default build/class): gradebook.csv, class.html and each
# student's report. ROSTER=file.csv (id, name, nickname) gives every student of the class a row;
# SEED=N the class's seed; LAB=, RUBRIC= as for make grade. A rerun grades only what changed, and the
# students REGRADE=alice,bob names again.
# SCHEDULER=slurm submits the students to grade as a Slurm job array instead, BATCH=N students a
# task (default 1), PARTITION= and ACCOUNT= as the cluster wants, and a job that merges the results.
## grade a class: SUBMISSIONS=dir (a folder or archive per student); OUT=dir, ROSTER=file.csv, JOBS=N, SCHEDULER=slurm, SIMILARITY_THRESHOLD=80
grade-class: deps-backend
	@$(call build_in_parallel,$(GRADER) $(GRADE_CLASS))
	@[ -n "$(SUBMISSIONS)" ] || { echo "make grade-class: say which folder, e.g. make grade-class SUBMISSIONS=submissions" >&2; exit 2; }
	@$(GRADE_CLASS) --submissions $(call shell_quote,$(SUBMISSIONS)) $(if $(OUT),--out $(call shell_quote,$(OUT))) \
	  $(if $(ROSTER),--roster $(call shell_quote,$(ROSTER))) $(if $(JOBS),--jobs $(JOBS)) --backend $(BACKEND) $(if $(LAB),--lab $(LAB)) \
	  $(if $(SCHEDULER),--scheduler $(SCHEDULER)) $(if $(PARTITION),--partition $(call shell_quote,$(PARTITION))) \
	  $(if $(ACCOUNT),--account $(call shell_quote,$(ACCOUNT))) $(if $(BATCH),--batch $(BATCH)) \
	  $(if $(SEED),--seed $(SEED)) $(if $(RUBRIC),--rubric "$(RUBRIC)") $(if $(REGRADE),--regrade $(call shell_quote,$(REGRADE))) \
	  $(similarity_options); status=$$?; \
	  [ $$status -eq 0 ] || echo "(make grade-class exited with status $$status)"; exit $$status

# The similarity report alone (grade-class runs it after grading): each lab's pairs of students
# of SUBMISSIONS by the code they share beyond the skeleton (copydetect: scripts/install-deps
# similarity), into OUT/similarity (default build/class). SIMILARITY_THRESHOLD=80: the score, in
# percent, from which a pair is flagged; make grade-class takes it too, and SIMILARITY=0 skips it.
similarity_options = $(if $(SIMILARITY_THRESHOLD),--similarity-threshold $(SIMILARITY_THRESHOLD)) $(if $(filter 0 no,$(SIMILARITY)),--no-similarity)
## pairs of students whose code is alike, per lab: SUBMISSIONS=dir (OUT=dir, SIMILARITY_THRESHOLD=80, LAB=)
similarity: $(GRADE_CLASS)
	@[ -n "$(SUBMISSIONS)" ] || { echo "make similarity: say which folder, e.g. make similarity SUBMISSIONS=submissions" >&2; exit 2; }
	@$(GRADE_CLASS) --similarity-only --submissions $(call shell_quote,$(SUBMISSIONS)) $(if $(OUT),--out $(call shell_quote,$(OUT))) \
	  $(if $(ROSTER),--roster $(call shell_quote,$(ROSTER))) $(if $(LAB),--lab $(LAB)) $(similarity_options)

# The students' copy (scripts/make-release): labs/ made from the solutions, the documents without
# what only this copy runs, no solutions/, checked for solution code; a git repository of one
# commit. docs/instructor.md, "Handing out the labs".
## the students' copy of the workbook, without solutions: make release OUT=dir
release:
	@[ -n "$(OUT)" ] || { echo "make release: say where, e.g. make release OUT=../workbook-students" >&2; exit 2; }
	@scripts/make-release $(call shell_quote,$(OUT))

# Every make grade and make check run adds its labs' results to the history of the folder it
# graded (build/progress/<folder>-<hash>/history.tsv, grading/core/progress.h); this reads it.
## each lab's best and latest result, what still fails, the lab to do next (SRC=folder)
status: $(STATUS)
	@$(STATUS) --src $(call shell_quote,$(SRC))

# Runs every test binary, each with its own log, and ends with "N passed, N failed".
## the workbook's own tests (on the CPU backend, and the GPU if there is one)
test: deps
	@$(MAKE) --no-print-directory test-programs $(TEST_BINS)
	@LAB_TEST_BACKENDS="$(TEST_BACKENDS)" scripts/run-tests $(TEST_BINS)

# Every lab's solution next to its ceiling, in one run on the GPU (harness/bench.cpp): a table,
# and performance.md with its chart performance.svg in BENCH_OUT. LAB=01,05 some labs only,
# ARGS="--reps 5" the bench's options (build/gpu/bin/bench --help). Then the grader grades the
# solutions and records, for this GPU model, each one's share of its ceiling at the rubric's
# performance shape into grading/targets.txt (grading/core/targets.h): the targets of a students' copy,
# which has no solutions to time (its reports: BENCH_OUT/grade-all, or grade-NN). The worst exit status of the two
# (0 all timed, 1 something wrong or not run, 2 could not run) is printed: make's is 2 for any.
BENCH_OUT ?= $(BUILD)/bench
# The stretch kernels the bench times beside the solutions (harness/bench.cpp names them too).
BENCH_STRETCH := solutions/variants/coarsened/02_matmul_tiled solutions/variants/strassen/03_matmul_register
# Their programs: on the GPU for the bench, on the CPU backend for their tests (mk/tests.mk).
$(foreach v,$(BENCH_STRETCH),$(if $(filter $(patsubst %/,%,$(dir $(v))),$(SRC_DIRS)),,$(foreach f,gpu cpu,\
  $(eval $(call lab_program_rules,$(notdir $(v)),$(patsubst %/,%,$(dir $(v))),$(f))))))
## on a GPU: every solution against cuBLAS, a copy and CUB; writes performance.md and .svg, and grading/targets.txt
bench:
	@[ "$(BACKEND)" = gpu ] || { echo "make bench needs a GPU: it times the solutions and cuBLAS on one, and this" \
	  "machine has none (BACKEND=$(BACKEND)); the CPU backend's timings say nothing about a GPU." >&2; \
	  echo "(make bench: status 2, could not run)"; exit 2; }
	@[ -n "$(SOLUTION_LABS)" ] || { echo "make bench: no solutions/ here, nothing to time" >&2; exit 2; }
	@$(MAKE) --no-print-directory -s $(foreach l,$(SOLUTION_LABS),$(call lab_program,$(l),solutions,gpu)) \
	  $(foreach v,$(BENCH_STRETCH),$(call lab_program,$(notdir $(v)),$(patsubst %/,%,$(dir $(v))),gpu)) $(BUILD)/gpu/bin/bench
	@$(BUILD)/gpu/bin/bench --programs $(BUILD)/gpu/bin/solutions --out "$(BENCH_OUT)" $(if $(LAB),--labs $(LAB)) $(ARGS) \
	  --command 'make bench$(if $(LAB), LAB=$(LAB))$(if $(ARGS), ARGS="$(ARGS)")$(if $(filter-out $(BUILD)/bench,$(BENCH_OUT)), BENCH_OUT=$(BENCH_OUT))'; \
	  status=$$?; \
	  [ $$status -eq 0 ] || echo "(the bench exited with status $$status)"; \
	  echo; echo "make bench: the solutions' shares of their ceilings at the rubric's performance shapes, into grading/targets.txt"; \
	  $(MAKE) --no-print-directory -s $(GRADER) || exit 2; \
	  for lab in $(or $(subst $(comma), ,$(LAB)),all); do \
	    $(GRADER) --src solutions --backend gpu --record-targets --out "$(BENCH_OUT)/grade-$$lab" $$([ $$lab = all ] || echo --lab $$lab); \
	    graded=$$?; [ $$graded -eq 0 ] || echo "(the grader exited with status $$graded)"; [ $$graded -le $$status ] || status=$$graded; \
	  done; exit $$status

## what this machine has, and what works without the rest
doctor:
	@scripts/doctor

# What grading wrote stays: a class's gradebook and reports (build/class, make grade-class's
# default OUT), each run's reports (build/grade, build/check) and make status's history
# (build/progress). rm -rf build removes them too.
## remove every build, keeping the gradebooks, reports and make status's history
clean:
	@[ ! -d $(BUILD) ] || find $(BUILD) -mindepth 1 -maxdepth 1 ! -name class ! -name grade ! -name check ! -name progress \
	  -exec rm -rf {} + -exec echo "removed {}" \;

# The headers each object was built from (-MMD), found by make itself (no shell): objects lie
# at most six folders deep in a flavor's, the host's and the tests' build folders.
-include $(wildcard $(foreach f,$(FLAVORS) host test,$(foreach d,* */* */*/* */*/*/* */*/*/*/* */*/*/*/*/*,$(BUILD)/$(f)/$(d).d)))
