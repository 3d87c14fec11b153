# The maintainers' machinery: the skeletons made from the solutions, the grader's two builds,
# and the check that every .cu file compiles with nvcc. Included by the Makefile.

.PHONY: skeletons check-skeletons program program-parts nvcc-all bench-backend

# ---- skeletons ----

# labs/NN_name/<file> is generated from solutions/NN_name/<file> (scripts/make-skeleton), and
# their hashes listed in grading/skeletons.sha256: the grader tells a lab not started by them
# (grading/core/skeletons.h).
SKELETONS := $(foreach l,$(SOLUTION_LABS),labs/$(l)/$(call lab_file,$(l)))
SKELETON_LIST := grading/skeletons.sha256
# Fresh skeletons for the tests, so that a learner's filled-in labs/ changes no test.
TEST_SKELETONS := $(BUILD)/skeletons
$(TEST_SKELETONS)/%: solutions/% scripts/make-skeleton
	@mkdir -p $(@D)
	scripts/make-skeleton $< > $@


## write the labs/*/ student files again from solutions/, and their list of hashes
skeletons:
	@for f in $(SKELETONS); do \
	  mkdir -p "$$(dirname "$$f")" && scripts/make-skeleton "solutions/$${f#labs/}" > "$$f.tmp" && \
	    mv "$$f.tmp" "$$f" && echo "wrote $$f" || exit 1; \
	done
	@sha256sum $(SKELETONS) > $(SKELETON_LIST) && echo "wrote $(SKELETON_LIST)"

# The committed skeletons must be what generation gives. Maintainers only: a checkout
# without solutions/ (a student's copy) has nothing to compare and skips.
## check that the committed skeletons are what solutions/ makes
check-skeletons:
	@if [ -z "$(SOLUTION_LABS)" ]; then echo "check-skeletons: no solutions/ here, skipped"; exit 0; fi; \
	status=0; \
	for f in $(SKELETONS); do \
	  if ! scripts/make-skeleton "solutions/$${f#labs/}" | diff -u "$$f" - ; then \
	    echo "check-skeletons: $$f differs from what solutions/$${f#labs/} generates: run make skeletons" >&2; status=1; \
	  fi; \
	done; \
	if ! sha256sum $(SKELETONS) | diff -u $(SKELETON_LIST) - ; then \
	  echo "check-skeletons: $(SKELETON_LIST) does not list the skeletons' hashes: run make skeletons" >&2; status=1; \
	fi; \
	[ $$status -eq 0 ] && echo "check-skeletons: $(words $(SKELETONS)) skeletons match their solutions and $(SKELETON_LIST)"; exit $$status


# Lab programs, in any flavor: make program LAB=02 SRC=some/folder FLAVOR=cpu-asan (flavors:
# $(FLAVORS)); LAB="01 02" builds several at once. Prints each one's path, in LAB's order.
require_labs = $(foreach l,$(or $(LAB),-),[ -n "$(call lab_name,$(l))" ] || \
  { echo "make $(1): LAB= must name labs, e.g. LAB=02 or LAB=\"01 02\" (labs: $(LABS))" >&2; exit 2; };)
## lab programs: make program LAB=02 SRC=folder FLAVOR=cpu-asan (LAB="01 02": several); prints their paths
program:
	@$(call require_labs,program)
	@$(MAKE) --no-print-directory $(foreach l,$(LAB),$(call lab_program,$(call lab_name,$(l)),$(SRC),$(FLAVOR))) >&2
	@$(foreach l,$(LAB),echo $(call lab_program,$(call lab_name,$(l)),$(SRC),$(FLAVOR));)
# What those programs link besides the student's object, in each of PART_FLAVORS="cpu cpu-asan":
# the grader builds these before it builds a student's file. Prints each program's path, per
# lab of LAB and per flavor.
PART_FLAVORS ?= $(FLAVOR)
## what the grader builds before a student file (LAB= one or several, SRC=, PART_FLAVORS=)
program-parts:
	@$(call require_labs,program-parts)
	@$(MAKE) --no-print-directory $(foreach l,$(LAB),$(foreach f,$(PART_FLAVORS),$(call lab_program_parts,$(call lab_name,$(l)),$(f)))) >&2
	@$(foreach l,$(LAB),$(foreach f,$(PART_FLAVORS),echo $(call lab_program,$(call lab_name,$(l)),$(SRC),$(f));))


# ---- every .cu file through nvcc (CI: the GPU build must at least compile here) ----

# Left out: files meant not to compile (the grader's test of a compile error, the CPU
# backend's compile-time rejections; solutions/variants/strassen.cu, a part of the variant
# strassen, which nvcc-all builds whole below) and the CPU backend's tests of CPU-only behavior.
ALL_CU := $(filter-out %/compile_error.cu cpusim/tests/suite/compile_fail/% cpusim/tests/suite/cpu_only/%,$(wildcard harness/*.cu \
  labs/*/*.cu solutions/[0-9]*/*.cu solutions/variants/*/*/*.cu tests/corpus/*/*.cu tests/corpus/*/*/*.cu cpusim/tests/suite/*.cu \
  cpusim/tests/samples/*.cu cpusim/tests/samples/*/*.cu tests/fixtures/*/*.cu))

## compile every .cu file with nvcc and link every GPU program (no GPU needed)
nvcc-all: $(patsubst %.cu,$(BUILD)/gpu/obj/%.o,$(ALL_CU)) \
          $(foreach s,labs $(if $(SOLUTION_LABS),solutions),$(foreach l,$(LABS),$(call lab_program,$(l),$(s),gpu))) \
          $(BUILD)/gpu/bin/ceilings $(BUILD)/gpu/bin/bench

# ---- the CPU backend's speed ----

## time each lab's solution on the CPU backend beside the same arithmetic as plain loops (one OS thread)
bench-backend: $(foreach l,$(SOLUTION_LABS),$(call lab_program,$(l),solutions,cpu)) $(BUILD)/host/plain_loops
	@[ -n "$(SOLUTION_LABS)" ] || { echo "make bench-backend: no solutions/ here, nothing to time" >&2; exit 2; }
	BUILD=$(BUILD) scripts/bench-backend

# ---- the solutions timed on a GPU ----

.PHONY: bench record-estimates

# Every lab's solution next to its ceiling, in one run on the GPU (harness/bench.cpp): a table,
# and performance.md with its chart performance.svg in BENCH_OUT. LAB=01,05 some labs only,
# ARGS="--reps 5" the bench's options (build/gpu/bin/bench --help). Then the grader grades the
# solutions and records, for this GPU model, each one's share of its ceiling at the rubric's
# performance shape into grading/targets.txt (grading/core/targets.h): the targets of a students' copy,
# which has no solutions to time (its reports: BENCH_OUT/grade-all, or grade-NN). The worst exit status of the two
# (0 all timed, 1 something wrong or not run, 2 could not run) is printed: make's is 2 for any.
BENCH_OUT ?= $(BUILD)/bench
# The stretch kernels the bench times beside the solutions (harness/bench.cpp names them too): a
# folder of solutions/variants/, and strassen, a row of variants.txt made into $(VARIANTS).
BENCH_STRETCH := solutions/variants/coarsened/02_matmul_tiled $(VARIANTS)/strassen/03_matmul_register
# Their programs: on the GPU for the bench, on the CPU backend for their tests (mk/tests.mk); a
# made variant has its rules from mk/variants.mk already. nvcc-all builds them too.
$(foreach v,$(BENCH_STRETCH),$(if $(filter $(SRC_DIRS) $(VARIANTS)/%,$(patsubst %/,%,$(dir $(v)))),,$(foreach f,gpu cpu,\
  $(eval $(call lab_program_rules,$(notdir $(v)),$(patsubst %/,%,$(dir $(v))),$(f))))))
nvcc-all: $(if $(SOLUTION_LABS),$(foreach v,$(BENCH_STRETCH),$(call lab_program,$(notdir $(v)),$(patsubst %/,%,$(dir $(v))),gpu)))
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

# The solutions' estimated times on the reference GPUs at the rubric's technique shapes, into
# grading/estimates.txt (grading/core/estimates.h), from the CPU backend's counts: no GPU needed.
# The technique check shows a student's estimate beside these; run it when a solution changes.
## the solutions' estimated times on an H100 and an H200, into grading/estimates.txt (the CPU backend)
record-estimates: $(GRADER)
	@[ -n "$(SOLUTION_LABS)" ] || { echo "make record-estimates: no solutions/ here" >&2; exit 2; }
	@$(GRADER) --src solutions --backend cpu --record-estimates --out $(BUILD)/record-estimates $(if $(RUBRIC),--rubric "$(RUBRIC)")
