# The workbook's build: the targets a student uses. `make help` lists them, from the comments
# above each (a line starting with ##); `make help-all` also the instructors' (mk/course.mk:
# grading a class, the students' copy, the course platforms) and the maintainers' (mk/).
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
include mk/course.mk
include mk/tests.mk

.PHONY: all help help-all run check grade profile debug status test doctor clean

# make run and make profile build SRC with make's own rules, which need a plain folder name (make
# grade takes any): $(1) the target, in the message.
require_plain_src = $(if $(call plain_name,$(SRC)),:,echo "make $(1): SRC=\""$(call shell_quote,$(SRC))"\" is not a name make can build from (a space, a quote," \
  "or one of $$ ( ) : ; % * ? [ ] and the others make treats specially): rename the folder; make grade takes any name" >&2; exit 2)

## build every lab program for this backend (labs/ and solutions/)
all: $(foreach s,labs $(if $(SOLUTION_LABS),solutions),$(foreach l,$(LABS),$(call lab_program,$(l),$(s),$(FLAVOR))))

# Each target with a line starting with ## above its rule, from the makefiles $(1) names.
list_targets = awk '/^\#\# / { doc = substr($$0, 4); next } \
  doc != "" && /^[a-z][a-z0-9-]*:/ { if (FILENAME != last) { print (last == "" ? "" : "\n") title(FILENAME); last = FILENAME } \
    printf "  make %-16s %s\n", substr($$0, 1, index($$0, ":") - 1), doc } { doc = "" } \
  function title(f) { return f == "Makefile" ? "For students:" : "From " f ":" }' $(1)

## this list; make help-all adds the instructors' targets (grading a class, the platforms) and the maintainers'
help:
	@$(call list_targets,Makefile)
	@echo
	@echo "Variables: LAB=01 (check and grade: or a list, 01,04), STEP=1 (a lab in steps), SRC=folder, ARGS=\"--m 512\"," \
	  "BACKEND=gpu|cpu, DEBUG=1 (device debug info, a sync after every launch), SEED=, JOBS=N labs at once (make grade)."

## every target: the students', the instructors' (mk/course.mk) and the maintainers' (mk/)
help-all:
	@$(call list_targets,$(MAKEFILE_LIST))
	@echo
	@echo "Variables: LAB=01 (make check, grade and grade-class: or a list, 01,04), STEP=1 (a lab in steps: make run, check," \
	  "grade and profile take every step, or this one), SRC=folder, ARGS=\"--m 512\", BACKEND=gpu|cpu, ARCH=sm_90, DEBUG=1" \
	  "(device debug info, a sync after every launch), SEED=, RUBRIC=file, JOBS=N labs at once (make grade)," \
	  "GRADE_BUILD=folder (the grader's build folder, default build/grade-build)."

# A made SRC (a variant, or a wrong submission of the corpus: build/corpus/NAME) is made before
# make run, make check and make grade read it: its files, then && the command. Only such a
# folder itself: SRC=build/corpus names no entry and makes nothing.
made_src = $(filter $(SRC:%/=%),$(patsubst %/,%,$(dir $(patsubst %/,%,$(dir $(VARIANT_FILES))))))
make_src_files = $(if $(made_src),{ $(MAKE) --no-print-directory -s $(filter $(made_src)/%,$(VARIANT_FILES)) >/dev/null || \
  { echo "make: could not make $(SRC) (its list: tests/corpus/corpus.txt or solutions/variants/variants.txt)" >&2; exit 2; }; } &&)

# LAB's folder name (01 -> 01_matmul_naive; "" for no such lab), and its file in SRC.
LAB_NAME = $(call lab_name,$(LAB))
LAB_SOURCE = $(SRC)/$(LAB_NAME)/$(call lab_file,$(LAB_NAME))

# The lab, and the step of a lab in steps, that make check and make grade grade (the grader says
# what is wrong with them).
grade_lab_args = $(if $(LAB),--lab $(LAB)) $(if $(STEP),--step $(call shell_quote,$(STEP)))

# GRADE_BUILD=folder: the grader's build folder, kept between runs (default build/grade-build).
# Checkouts with the same grader may share one; another grader empties it first (its stamp).
grade_build_arg = $(if $(GRADE_BUILD),--build-dir $(call shell_quote,$(GRADE_BUILD)))

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
	@[ -n "$(LAB_NAME)" ] || { echo "make run: no lab '$(LAB)' here (labs: $(LABS))" >&2; exit 2; }
	@$(make_src_files) [ -f "$(LAB_SOURCE)" ] || \
	  { echo "make run: $(LAB_SOURCE) does not exist" >&2; exit 2; }
	@$(MAKE) --no-print-directory -s $(call lab_program,$(LAB_NAME),$(SRC),$(FLAVOR)) \
	  $(if $(filter gpu,$(BACKEND)),$(if $(filter $(LAB_NAME),$(SOLUTION_LABS)),$(call lab_program,$(LAB_NAME),solutions,$(FLAVOR))) $(BUILD)/$(FLAVOR)/bin/ceilings)
	@$(call for_each_step,$(LAB_NAME),scripts/run-lab "$(BACKEND)" "$(call lab_program,$(LAB_NAME),$(SRC),$(FLAVOR))" \
	  "$(if $(filter gpu,$(BACKEND)),$(if $(filter $(LAB_NAME),$(SOLUTION_LABS)),$(call lab_program,$(LAB_NAME),solutions,$(FLAVOR))))" \
	  "$(if $(filter gpu,$(BACKEND)),$(BUILD)/$(FLAVOR)/bin/ceilings)" $(ARGS))

# gdb (cuda-gdb on a GPU) on the lab program built for debugging, stopped in the kernel at one
# CUDA thread (scripts/debug-lab): BLOCK=x,y THREAD=x,y (default 0,0), LINE= a line of the lab
# file (default: each kernel's entry), ARGS= the program's (e.g. --m 64 --n 64 --k 64),
# GDB_COMMANDS=file to run in batch mode once stopped. A lab in steps needs STEP=.
## stop your kernel at one thread in gdb: make debug LAB=02 BLOCK=1,0 THREAD=3,2 (LINE=81, STEP=1, ARGS=)
debug:
	@$(call require_plain_src,debug)
	@[ -n "$(LAB)" ] || { echo "make debug: say which lab, e.g. make debug LAB=02 BLOCK=1,0 THREAD=3,2 (labs: $(LABS))" >&2; exit 2; }
	@[ -n "$(LAB_NAME)" ] || { echo "make debug: no lab '$(LAB)' here (labs: $(LABS))" >&2; exit 2; }
	@[ -z "$(call lab_steps,$(LAB_NAME))" ] || [ -n "$(STEP)" ] || \
	  { echo "make debug: lab $(LAB) is in steps: say which, e.g. STEP=1 (steps: $(call lab_step_names,$(LAB_NAME)))" >&2; exit 2; }
	@$(make_src_files) [ -f "$(LAB_SOURCE)" ] || \
	  { echo "make debug: $(LAB_SOURCE) does not exist" >&2; exit 2; }
	@$(MAKE) --no-print-directory -s $(call lab_program,$(LAB_NAME),$(SRC),$(BACKEND)-debug)
	@scripts/debug-lab "$(BACKEND)" "$(call lab_program,$(LAB_NAME),$(SRC),$(BACKEND)-debug)" \
	  "$(LAB_SOURCE)" "$(BLOCK)" "$(THREAD)" "$(LINE)" "$(GDB_COMMANDS)" -- \
	  $(if $(STEP),--step $(STEP)) --no-edges --no-time $(ARGS)

# The program is built in the flavor that measures: the plain GPU build under Nsight Compute,
# the CPU backend's counting build (cpu-count) without a GPU; both give one report
# (scripts/profile-lab, build/host/profile) and the access page, build/profile/LAB.html (a
# step's: LAB-stepS.html). On a GPU the page's lanes come from the counting build too, when the
# CPU backend can be built there. COMPARE=solution (the instructor's copy) draws the solution's
# lines after the student's. GPU=H200: on the CPU backend, the estimates for an H200 rather
# than an H100; on a GPU they are for the GPU it runs on.
## where a lab's kernels spend their memory traffic, per kernel and source line, and a page that draws a warp's lanes per line: Nsight Compute on a GPU, the CPU backend's model without (LAB=02, STEP=1, ARGS=, GPU=H200, COMPARE=solution)
profile:
	@$(call require_plain_src,profile)
	@[ -n "$(LAB)" ] && [ -n "$(LAB_NAME)" ] || { echo "make profile: say which lab, e.g. make profile LAB=02 (labs: $(LABS))" >&2; exit 2; }
	@[ -z "$(COMPARE)" ] || { [ "$(COMPARE)" = solution ] && [ -d solutions/$(LAB_NAME) ]; } || \
	  { echo "make profile: COMPARE=solution draws the solution's lines beside yours, in the instructor's copy (it has solutions/$(LAB_NAME))" >&2; exit 2; }
	@$(make_src_files) $(MAKE) --no-print-directory -s $(call lab_program,$(LAB_NAME),$(SRC),$(PROFILE_FLAVOR)) $(PROFILE) \
	  $(if $(COMPARE),$(call lab_program,$(LAB_NAME),solutions,cpu-count))
	@[ "$(BACKEND)" != gpu ] || ! cpusim/cpucc --check-deps >/dev/null 2>&1 || \
	  $(MAKE) --no-print-directory -s $(call lab_program,$(LAB_NAME),$(SRC),cpu-count) >/dev/null 2>&1 || true
	@mkdir -p $(BUILD)/profile
	@$(call for_each_step,$(LAB_NAME),PROFILE_GPU="$(GPU)" PAGE="$(BUILD)/profile/$(LAB_NAME)$$([ "$$step" = - ] || echo "-step$$step").html" \
	  MODEL_PROGRAM="$(if $(filter gpu,$(BACKEND)),$$(p=$(call lab_program,$(LAB_NAME),$(SRC),cpu-count); [ ! -x $$p ] || echo $$p))" \
	  SOLUTION_PROGRAM="$(if $(COMPARE),$(call lab_program,$(LAB_NAME),solutions,cpu-count))" \
	  scripts/profile-lab "$(BACKEND)" $(PROFILE) "$(call lab_program,$(LAB_NAME),$(SRC),$(PROFILE_FLAVOR))" $(ARGS))
PROFILE_FLAVOR = $(if $(filter gpu,$(BACKEND)),gpu,cpu-count)

# The grader's quick pass: the same build, correctness and safety checks and hints as make grade,
# on the rubric's edge shapes, without technique and performance (nothing is timed); its reports
# go to build/check, and make status shows its runs as make check's. Like a test, it exits 1
# below full marks (the grader's --strict), so that `make check && ...` goes on only when it passed.
## after each edit: build, correctness and safety as make grade checks them, in seconds (LAB=03)
check: deps-backend
	@$(call build_in_parallel,$(GRADER))
	@$(make_src_files) $(GRADER) --quick --strict --src $(call shell_quote,$(SRC)) --backend $(BACKEND) $(grade_lab_args) $(grade_build_arg) $(if $(SEED),--seed $(SEED)) \
	  $(if $(RUBRIC),--rubric "$(RUBRIC)") $(if $(JOBS),--jobs $(JOBS)); status=$$?; \
	  [ $$status -eq 0 ] || echo "(the grader exited with status $$status)"; exit $$status

# Grades SRC (default labs/): every lab, or LAB=NN; SEED=N reproduces a run's inputs; RUBRIC=file.
# On a GPU, COUNTS=model takes the technique check's counts from the CPU backend's model rather
# than Nsight Compute (the grader's --counts).
# The grader's own exit status (0 full marks, 1 below full marks, 2 could not run) is printed:
# make reports any failure as its own status 2.
## grade your labs: every lab, or LAB=03, or LAB=01,04; SRC=folder a submission; SEED=, RUBRIC=file
grade: deps-backend
	@$(call build_in_parallel,$(GRADER))
	@$(make_src_files) $(GRADER) --src $(call shell_quote,$(SRC)) --backend $(BACKEND) $(grade_lab_args) $(grade_build_arg) $(if $(SEED),--seed $(SEED)) \
	  --strict $(if $(RUBRIC),--rubric "$(RUBRIC)") $(if $(JOBS),--jobs $(JOBS)) $(if $(COUNTS),--counts $(COUNTS)); status=$$?; \
	  [ $$status -eq 0 ] || echo "(the grader exited with status $$status)"; exit $$status

# Every make grade and make check run adds its labs' results to the history of the folder it
# graded (build/progress/<folder>-<hash>/history.tsv, grading/core/progress.h); this reads it.
## each lab's best and latest result, what still fails, the lab to do next (SRC=folder)
status: $(STATUS)
	@$(STATUS) --src $(call shell_quote,$(SRC))

# Runs every test binary, each with its own log, and ends with "N passed, N failed".
## the workbook's own tests (on the CPU backend, and the GPU if there is one)
test: deps
	@$(MAKE) --no-print-directory test-grader-builds
	@$(MAKE) --no-print-directory test-programs $(TEST_BINS)
	@LAB_TEST_BACKENDS="$(TEST_BACKENDS)" scripts/run-tests $(TEST_BINS)

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
