# The workbook's build. `make help` lists what it does.
#
# Variables: LAB=01..05, SRC=labs|solutions|any folder with the labs' layout,
# ARGS="--m 512 --n 512 --k 512", BACKEND=gpu|cpu (default: gpu when nvidia-smi sees one),
# ARCH=sm_90 (default: the GPU's), DEBUG=1 (device debug info, a sync after every launch).

SHELL := bash
.SUFFIXES:
.DELETE_ON_ERROR:
.DEFAULT_GOAL := all

BUILD := build
CORPUS := $(BUILD)/corpus
VARIANTS := $(BUILD)/variants
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(shell command -v nvcc 2>/dev/null || echo $(CUDA_HOME)/bin/nvcc)
CXX := g++
CXXFLAGS := -std=c++17 -O2 -g -Wall -Wextra -I.

# ---- backend and architecture ----

HAVE_GPU := $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU' && echo yes)
BACKEND ?= $(if $(HAVE_GPU),gpu,cpu)
ifeq ($(filter $(BACKEND),gpu cpu),)
$(error BACKEND must be gpu or cpu, not '$(BACKEND)')
endif
GPU_ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
ARCH ?= $(if $(GPU_ARCH),sm_$(GPU_ARCH),sm_90)
FLAVOR := $(BACKEND)$(if $(DEBUG),-debug)

include common/cpu/cpu.mk

# How each flavor compiles a student file (.cu) and host code that calls the CUDA runtime
# (.cpp), and links. GPU: nvcc, and g++ against the toolkit's headers. CPU backend: cpucc.
NVCC_BASE := $(NVCC) -std=c++17 -arch=$(ARCH) -Xptxas=--warn-on-spills,--warn-on-local-memory-usage -I.
CU_gpu := $(NVCC_BASE) -O3 -lineinfo
CU_gpu-debug := $(NVCC_BASE) -G -O0 -DLAB_DEBUG_SYNC
CPP_gpu := $(CXX) $(CXXFLAGS) -I$(CUDA_HOME)/include
CPP_gpu-debug := $(CPP_gpu) -DLAB_DEBUG_SYNC
# Every copy between host and device passes through harness/host_copies.cpp, which counts them.
WRAP_COPIES := $(foreach f,cudaMemcpy cudaMemcpyAsync cudaMemcpy2D cudaMemcpy2DAsync cudaMemcpyToSymbol \
  cudaMemcpyFromSymbol cudaMemcpyToSymbolAsync cudaMemcpyFromSymbolAsync,-Xlinker --wrap=$(f))
LINK_gpu := $(NVCC) -arch=$(ARCH) $(WRAP_COPIES)
LINK_gpu-debug := $(LINK_gpu)
CU_cpu := $(CPUCC) -O2 -I.
CU_cpu-debug := $(CPUCC) -O0 -g -D LAB_DEBUG_SYNC -I.
CU_cpu-asan := $(CPUCC) -O1 -g -fsanitize=address -I.
CU_cpu-tsan := $(CPUCC) -O1 -g -fsanitize=thread -I.
# Counts each kernel's global loads, stores and atomics (the grader's technique check).
CU_cpu-count := $(CPUCC) -O2 --count-accesses -I.
$(foreach f,cpu cpu-debug cpu-asan cpu-tsan cpu-count,$(eval LINK_$(f) := $(CU_$(f))))
$(foreach f,cpu cpu-debug cpu-asan cpu-tsan cpu-count,$(eval CU_$(f) += -MMD))
$(foreach f,cpu cpu-debug cpu-asan cpu-tsan cpu-count,$(eval CPP_$(f) := $(CU_$(f))))
CU_gpu += -MMD -MP
CU_gpu-debug += -MMD -MP
CPP_gpu += -MMD -MP
CPP_gpu-debug += -MMD -MP
FLAVORS := gpu gpu-debug cpu cpu-debug cpu-asan cpu-tsan cpu-count
# A student file sees the lab's public headers only, copied into $(PUBLIC), never the checkout:
# `#include "solutions/..."` does not resolve. -MD lists every header it read, the compilers'
# own included, for the grader to check that nothing else was reached (grading/submission.h).
PUBLIC := $(BUILD)/public
PUBLIC_HEADERS := $(addprefix $(PUBLIC)/,common/ceil_div.h common/cuda_check.h common/exit_codes.h \
  common/grid_limits.h harness/launchers.h)
$(foreach f,$(FLAVORS),$(eval STUDENT_CU_$(f) := $(filter-out -I. -MMD,$(CU_$(f))) -I$(PUBLIC) -MD))
# The CPU flavors compile once the backend's runtime is built, and link against its library.
$(foreach f,$(FLAVORS),$(eval DEPS_$(f) := $(if $(filter cpu%,$(f)),| cpusim-runtime)))
RUNTIME_LIB_cpu := $(CPUSIM_CACHE)/plain/libcpusim.a
RUNTIME_LIB_cpu-debug := $(CPUSIM_CACHE)/debug/libcpusim.a
RUNTIME_LIB_cpu-asan := $(CPUSIM_CACHE)/asan/libcpusim.a
RUNTIME_LIB_cpu-tsan := $(CPUSIM_CACHE)/tsan/libcpusim.a
RUNTIME_LIB_cpu-count := $(CPUSIM_CACHE)/count/libcpusim.a

# ---- labs ----

# The labs, from their table (labs.txt): each row starts with a lab's folder, NN_stem, which
# holds one student file, stem.cu. Read by make itself, without a shell.
LABS := $(foreach w,$(file <labs.txt),$(if $(and $(filter 0% 1% 2% 3% 4% 5% 6% 7% 8% 9%,$(w)),$(findstring _,$(w))),$(w)))
# 05_dot_reduction -> dot_reduction, dot_reduction.cu
lab_stem = $(patsubst $(firstword $(subst _, ,$(1)))_%,%,$(1))
lab_file = $(call lab_stem,$(1)).cu
SOLUTION_LABS := $(filter $(LABS),$(notdir $(wildcard solutions/[0-9][0-9]_*)))

SRC ?= labs
LAB ?=
# VARIANT=name: a variant of the solutions, for the READMEs' measurements: a folder of
# solutions/variants/, or a line of solutions/variants/variants.txt (made in build/variants/).
ifdef VARIANT
SRC := $(if $(wildcard solutions/variants/$(VARIANT)/.),solutions/variants/$(VARIANT),$(VARIANTS)/$(VARIANT))
endif
# SRC as typed, expanded never again: make expands a variable's value each time it is used, and
# a submission folder named `x$(shell ...)` must not run anything. It reaches the grader quoted
# (the grader builds a private copy whatever the name); only a plain name gets rules of its own
# (make run, make program).
override SRC := $(value SRC)
make_special_chars := $$ ( ) : ; \# ' " ` \ % * ? [ ]
plain_name = $(and $(filter 1,$(words $(1))),$(if $(strip $(foreach c,$(make_special_chars),$(findstring $(c),$(1)))),,yes))
shell_quote = '$(subst ','\'',$(1))'
# LAB=01 or LAB=01_matmul_naive -> 01_matmul_naive
lab_name = $(firstword $(filter $(1)%,$(LABS)))
# A source folder's name inside build/: labs, solutions, or its path with / as _.
src_tag = $(subst /,_,$(patsubst $(CURDIR)/%,%,$(abspath $(1))))
# The lab program of lab $(1) built from folder $(2) in flavor $(3).
lab_program = $(BUILD)/$(3)/bin/$(call src_tag,$(2))/$(1)

# ---- the shared library ----

$(PUBLIC)/%.h: %.h
	@mkdir -p $(@D)
	cp $< $@

HOST_SRCS := common/fill.cpp common/reference.cpp common/compare.cpp common/cli.cpp \
             common/subprocess.cpp common/descendants.cpp common/timing_stats.cpp common/labs.cpp common/problems.cpp common/protocol.cpp \
             common/rep_check.cpp
RUNTIME_SRCS := common/device_info.cpp common/timing.cpp harness/device_case.cpp harness/serve.cpp \
                harness/lab_main.cpp harness/host_copies.cpp
HOST_OBJS := $(HOST_SRCS:%.cpp=$(BUILD)/host/%.o)

$(BUILD)/host/%.o: %.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@

define flavor_rules
$(BUILD)/$(1)/obj/%.o: %.cpp $(DEPS_$(1))
	@mkdir -p $$(@D)
	$(CPP_$(1)) -c $$< -o $$@
$(BUILD)/$(1)/obj/%.o: %.cu $(DEPS_$(1))
	@mkdir -p $$(@D)
	$(CU_$(1)) -c $$< -o $$@
endef
$(foreach f,$(FLAVORS),$(eval $(call flavor_rules,$(f))))

# Each lab's main: harness/lab_program.cpp, naming lab $(1) of the table, in flavor $(2).
define lab_main_rule
$(BUILD)/$(2)/obj/harness/$(1).o: harness/lab_program.cpp $(DEPS_$(2))
	@mkdir -p $$(@D)
	$(CPP_$(2)) -DLAB_NUMBER='"$(firstword $(subst _, ,$(1)))"' -DLAB_STEM=$(call lab_stem,$(1)) -c $$< -o $$@
endef
$(foreach f,$(FLAVORS),$(foreach l,$(LABS),$(eval $(call lab_main_rule,$(l),$(f)))))

# A lab program: the lab's main, the student file from one source folder, the library. The
# student's object comes last, so that where both define the same inline function or template
# instance, the linker keeps the harness's (the grader refuses any other shared name).
# $(1) lab, $(2) source folder, $(3) flavor
define lab_program_rules
$(BUILD)/$(3)/obj/$(call src_tag,$(2))/$(1)/$(call lab_stem,$(1)).o: $(2)/$(1)/$(call lab_file,$(1)) $(PUBLIC_HEADERS) \
    $(DEPS_$(3))
	@mkdir -p $$(@D)
	$(STUDENT_CU_$(3)) -c $$< -o $$@
$(call lab_program,$(1),$(2),$(3)): $(call lab_program_parts,$(1),$(3)) \
    $(BUILD)/$(3)/obj/$(call src_tag,$(2))/$(1)/$(call lab_stem,$(1)).o
	@mkdir -p $$(@D)
	$(LINK_$(3)) $$(filter-out %.a %.h,$$^) -o $$@
endef
# What a lab program of lab $(1) in flavor $(2) links besides the student's object, and the
# headers that object is built with: the grader builds these itself, before the student's build.
lab_program_parts = $(BUILD)/$(2)/obj/harness/$(1).o $(RUNTIME_SRCS:%.cpp=$(BUILD)/$(2)/obj/%.o) $(HOST_OBJS) \
  $(RUNTIME_LIB_$(2)) $(PUBLIC_HEADERS)
SRC_DIRS := $(filter-out $(CORPUS)/% $(VARIANTS)/%,$(sort labs $(if $(SOLUTION_LABS),solutions $(BUILD)/skeletons) $(if $(call plain_name,$(SRC)),$(SRC))))
$(foreach f,$(FLAVORS),$(foreach s,$(SRC_DIRS),$(foreach l,$(LABS),$(eval $(call lab_program_rules,$(l),$(s),$(f))))))

# The comparison of `make run` on a GPU, and `make bench`: they measure the ceilings of
# harness/vendor.h, and link cuBLAS (the lab programs do not). The bench's reports are host
# code of their own (tested without a GPU), its CUB dot product a .cu file.
VENDOR_OBJS = $(BUILD)/$(1)/obj/harness/vendor.o $(RUNTIME_SRCS:%.cpp=$(BUILD)/$(1)/obj/%.o) $(HOST_OBJS)
BENCH_HOST_OBJS := $(BUILD)/host/harness/bench_report.o
define ceilings_rules
$(BUILD)/$(1)/bin/ceilings: $(BUILD)/$(1)/obj/harness/ceilings.o $(call VENDOR_OBJS,$(1))
	@mkdir -p $$(@D)
	$(LINK_$(1)) $$^ -lcublas -o $$@
endef
$(foreach f,gpu gpu-debug,$(eval $(call ceilings_rules,$(f))))
$(BUILD)/gpu/bin/bench: $(BUILD)/gpu/obj/harness/bench.o $(BUILD)/gpu/obj/harness/vendor_cub.o $(call VENDOR_OBJS,gpu) $(BENCH_HOST_OBJS)
	@mkdir -p $(@D)
	$(LINK_gpu) $^ -lcublas -o $@

# ---- skeletons ----

# labs/NN_name/<file> is generated from solutions/NN_name/<file> (scripts/make-skeleton).
SKELETONS := $(foreach l,$(SOLUTION_LABS),labs/$(l)/$(call lab_file,$(l)))
# Fresh skeletons for the tests, so that a learner's filled-in labs/ changes no test.
TEST_SKELETONS := $(BUILD)/skeletons
$(TEST_SKELETONS)/%: solutions/% scripts/make-skeleton
	@mkdir -p $(@D)
	scripts/make-skeleton $< > $@

# ---- generated variants: wrong submissions and measurement variants ----

# A list (tests/corpus/corpus.txt, solutions/variants/variants.txt) names each variant, its
# lab, its source and a sed script; scripts/make-variant makes it into $(2)/NAME/LAB/FILE.
list_names = $(shell sed -n 's/^\([a-z0-9_]*\) *|.*/\1/p' $(1))
list_field = $(strip $(shell sed -n 's/^$(2) *|\([^|]*\)|\([^|]*\)|.*/\$(3)/p' $(1)))
# $(1) list, $(2) output folder, $(3) name
define variant_rules
$(2)/$(3)/$(call list_field,$(1),$(3),1)/$(call lab_file,$(call list_field,$(1),$(3),1)): $(1) scripts/make-variant $(call list_field,$(1),$(3),2)
	@mkdir -p $$(@D)
	scripts/make-variant $(1) $(3) > $$@
endef
# $(1) list, $(2) output folder: the file rules, and the lab programs in every flavor.
variant_list_rules = $(foreach n,$(call list_names,$(1)),$(eval $(call variant_rules,$(1),$(2),$(n)))\
  $(foreach f,$(FLAVORS),$(eval $(call lab_program_rules,$(call list_field,$(1),$(n),1),$(2)/$(n),$(f)))))

CORPUS_LIST := tests/corpus/corpus.txt
CORPUS_NAMES := $(call list_names,$(CORPUS_LIST))
corpus_lab = $(call list_field,$(CORPUS_LIST),$(1),1)
# The lab program of wrong submission $(1) in flavor $(2).
corpus_program = $(call lab_program,$(call corpus_lab,$(1)),$(CORPUS)/$(1),$(2))
$(call variant_list_rules,$(CORPUS_LIST),$(CORPUS))

VARIANT_LIST := solutions/variants/variants.txt
$(if $(SOLUTION_LABS),$(call variant_list_rules,$(VARIANT_LIST),$(VARIANTS)))

# ---- the grader ----

GRADER := $(BUILD)/host/grade
GRADER_OBJS := $(patsubst %.cpp,$(BUILD)/host/%.o,$(wildcard grading/*.cpp))
$(GRADER): $(GRADER_OBJS) $(HOST_OBJS)
	$(CXX) $(CXXFLAGS) $^ -o $@

# ---- tests ----

# What the tests run: the lab programs of the solutions and of fresh skeletons, on the CPU
# backend and, when there is one, on the GPU. TEST_BACKENDS=gpu skips the CPU backend.
TEST_BACKENDS ?= cpu $(if $(HAVE_GPU),gpu)
TEST_BINS := $(patsubst tests/%.cpp,$(BUILD)/test/%,$(wildcard tests/test_*.cpp))
TEST_BINS := $(if $(filter cpu,$(TEST_BACKENDS)),$(TEST_BINS),$(filter-out %/test_cpusim,$(TEST_BINS)))
TEST_PROGRAMS := $(foreach f,$(TEST_BACKENDS),$(foreach s,solutions $(TEST_SKELETONS),\
                   $(foreach l,$(SOLUTION_LABS),$(call lab_program,$(l),$(s),$(f)))))
# The wrong submissions the lab tests run themselves (tests/test_lab*.cpp, test_rep_check.cpp):
# plain builds, and a ThreadSanitizer build of the race between blocks (a plain run rarely loses
# an update). The grader's tests grade the rest, and the grader builds what it grades.
TESTED_CORPUS := no_store_guard_02 off_by_one_tiles_02 no_first_sync_02 no_second_sync_02 swapped_indices_04 \
  no_sync_05 cached_result_01 skip_when_done_01
TEST_PROGRAMS += $(if $(SOLUTION_LABS),$(foreach f,$(TEST_BACKENDS),$(foreach n,$(TESTED_CORPUS),$(call corpus_program,$(n),$(f)))))
TEST_PROGRAMS += $(if $(and $(SOLUTION_LABS),$(filter cpu,$(TEST_BACKENDS))),$(call corpus_program,no_atomics_05,cpu-tsan))

$(BUILD)/test/doctest_main.o: tests/doctest_main.cpp | deps
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -c $< -o $@
$(BUILD)/test/%: tests/%.cpp $(BUILD)/test/doctest_main.o $(HOST_OBJS) | deps
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -MMD -MP $< $(filter %.o,$^) -o $@
# The bench's tests check its reports, which only it links; the technique's, the grader's rules.
$(BUILD)/test/test_bench: $(BENCH_HOST_OBJS)
$(BUILD)/test/test_technique $(BUILD)/test/test_sandbox: $(filter-out %/grade.o,$(GRADER_OBJS))
$(BUILD)/test/test_utf8 $(BUILD)/test/test_grade: $(BUILD)/host/grading/utf8.o

# ---- every .cu file through nvcc (CI: the GPU build must at least compile here) ----

# Left out: files meant not to compile (the grader's test of a compile error, the CPU
# backend's compile-time rejections) and the CPU backend's tests of CPU-only behavior.
ALL_CU := $(filter-out %/compile_error.cu tests/cpusim/compile_fail/% tests/cpusim/cpu_only/%,\
            $(shell find . -path ./$(BUILD) -prune -o -path ./.scratch -prune -o -name '*.cu' -print | sed 's|^\./||'))

# ---- targets ----

.PHONY: all help run grade bench status program program-parts deps-backend test test-programs skeletons check-skeletons doctor deps nvcc-all clean

help:
	@echo "make                 build every lab program for $(BACKEND) (labs/ and solutions/)"
	@echo "make run LAB=01      check and time your lab 01 (ARGS=\"--m 512\", SRC=solutions)"
	@echo "make test            the workbook's own tests (on the CPU backend, and the GPU if any)"
	@echo "make grade           grade your labs (LAB=03 one lab, SRC=folder a submission, SEED=, STRICT=1)"
	@echo "make status          your progress from the last make grade, and which lab is next"
	@echo "make bench           on a GPU: every solution against cuBLAS, a copy and CUB; writes"
	@echo "                     performance.md and .svg into $(BUILD)/bench (BENCH_OUT=docs: into docs/)"
	@echo "make doctor          what this machine has, and what works without the rest"
	@echo "make skeletons       regenerate labs/*/ student files from solutions/ (maintainers)"
	@echo "make DEBUG=1 ...     device debug info and a synchronization after every launch"

all: $(foreach s,labs $(if $(SOLUTION_LABS),solutions),$(foreach l,$(LABS),$(call lab_program,$(l),$(s),$(FLAVOR))))

# Grades SRC (default labs/): every lab, or LAB=NN; SEED=N reproduces a run's inputs; STRICT=1
# fails below full marks; RUBRIC=file. The grader's own exit status (0 ran, 1 below full marks
# with STRICT=1, 2 could not run) is printed: make reports any failure as its own status 2.
grade: deps-backend $(GRADER)
	@$(GRADER) --src $(call shell_quote,$(SRC)) --backend $(BACKEND) $(if $(LAB),--lab $(LAB)) $(if $(SEED),--seed $(SEED)) \
	  $(if $(STRICT),--strict) $(if $(RUBRIC),--rubric "$(RUBRIC)"); status=$$?; \
	  [ $$status -eq 0 ] || echo "(the grader exited with status $$status)"; exit $$status

# Every lab's solution next to its ceiling, in one run on the GPU (harness/bench.cpp): a table,
# and performance.md with its chart performance.svg in BENCH_OUT. LAB=01,05 some labs only,
# ARGS="--reps 5" the bench's options (build/gpu/bin/bench --help). The bench's own exit status
# (0 all timed, 1 something wrong or not run, 2 could not run) is printed: make's is 2 for any.
BENCH_OUT ?= $(BUILD)/bench
# The stretch kernels the bench times beside the solutions (harness/bench.cpp names them too).
BENCH_STRETCH := solutions/variants/coarsened/02_matmul_tiled
$(foreach v,$(BENCH_STRETCH),$(if $(filter $(patsubst %/,%,$(dir $(v))),$(SRC_DIRS)),,\
  $(eval $(call lab_program_rules,$(notdir $(v)),$(patsubst %/,%,$(dir $(v))),gpu))))
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
	  [ $$status -eq 0 ] || echo "(the bench exited with status $$status)"; exit $$status

# A learner's progress, from the last `make grade`.
status:
	@scripts/status

# One lab program, in any flavor: make program LAB=02 SRC=some/folder FLAVOR=cpu-asan
# (flavors: $(FLAVORS)). Prints its path.
program:
	@[ -n "$(call lab_name,$(LAB))" ] || { echo "make program: LAB= must name a lab (labs: $(LABS))" >&2; exit 2; }
	@$(MAKE) --no-print-directory $(call lab_program,$(call lab_name,$(LAB)),$(SRC),$(FLAVOR)) >&2
	@echo $(call lab_program,$(call lab_name,$(LAB)),$(SRC),$(FLAVOR))
# What those programs link besides the student's object, in each of PART_FLAVORS="cpu cpu-asan":
# the grader builds these before it builds a student's file. Prints each flavor's program path.
program-parts:
	@[ -n "$(call lab_name,$(LAB))" ] || { echo "make program-parts: LAB= must name a lab (labs: $(LABS))" >&2; exit 2; }
	@$(MAKE) --no-print-directory $(foreach f,$(PART_FLAVORS),$(call lab_program_parts,$(call lab_name,$(LAB)),$(f))) >&2
	@$(foreach f,$(PART_FLAVORS),echo $(call lab_program,$(call lab_name,$(LAB)),$(SRC),$(f));)

# The Debian packages the build needs, installed when missing (scripts/install-deps): doctest
# for the tests, Boost.Context wherever the CPU backend is used.
deps:
	@scripts/install-deps doctest $(if $(filter cpu,$(BACKEND) $(TEST_BACKENDS)),boost)
deps-backend:
	@$(if $(filter cpu,$(BACKEND)),scripts/install-deps boost,true)

doctor:
	@scripts/doctor

run:
	@$(if $(call plain_name,$(SRC)),,echo "make run: SRC=\""$(call shell_quote,$(SRC))"\" is not a name make can build from (a space, or one" \
	  "of $$ ( ) : ; # ' \" \` \\ % * ? [ ]): rename the folder; make grade takes any name" >&2; exit 2)
	@[ -n "$(LAB)" ] || { echo "make run: say which lab, e.g. make run LAB=01 (labs: $(LABS))" >&2; exit 2; }
	@[ -n "$(call lab_name,$(LAB))" ] || { echo "make run: no lab '$(LAB)' here (labs: $(LABS))" >&2; exit 2; }
	@$(if $(filter $(VARIANTS)/%,$(SRC)),$(MAKE) --no-print-directory -s $(SRC)/$(call lab_name,$(LAB))/$(call lab_file,$(call lab_name,$(LAB))) >/dev/null &&) \
	[ -f "$(SRC)/$(call lab_name,$(LAB))/$(call lab_file,$(call lab_name,$(LAB)))" ] || \
	  { echo "make run: $(SRC)/$(call lab_name,$(LAB))/$(call lab_file,$(call lab_name,$(LAB))) does not exist" >&2; exit 2; }
	@$(MAKE) --no-print-directory -s $(call lab_program,$(call lab_name,$(LAB)),$(SRC),$(FLAVOR)) \
	  $(if $(filter gpu,$(BACKEND)),$(if $(filter $(call lab_name,$(LAB)),$(SOLUTION_LABS)),$(call lab_program,$(call lab_name,$(LAB)),solutions,$(FLAVOR))) $(BUILD)/$(FLAVOR)/bin/ceilings)
	@scripts/run-lab "$(BACKEND)" "$(call lab_program,$(call lab_name,$(LAB)),$(SRC),$(FLAVOR))" \
	  "$(if $(filter gpu,$(BACKEND)),$(if $(filter $(call lab_name,$(LAB)),$(SOLUTION_LABS)),$(call lab_program,$(call lab_name,$(LAB)),solutions,$(FLAVOR))))" \
	  "$(if $(filter gpu,$(BACKEND)),$(BUILD)/$(FLAVOR)/bin/ceilings)" $(ARGS)

# The grader's tests grade the solutions, fresh skeletons and the corpus of wrong submissions.
GRADE_TEST_SOURCES := $(if $(SOLUTION_LABS),$(foreach l,$(SOLUTION_LABS),$(TEST_SKELETONS)/$(l)/$(call lab_file,$(l))) \
  $(foreach n,$(CORPUS_NAMES),$(CORPUS)/$(n)/$(call corpus_lab,$(n))/$(call lab_file,$(call corpus_lab,$(n)))) \
  $(foreach n,$(call list_names,$(VARIANT_LIST)),$(VARIANTS)/$(n)/$(call list_field,$(VARIANT_LIST),$(n),1)/$(call lab_file,$(call list_field,$(VARIANT_LIST),$(n),1))))
test-programs: $(TEST_PROGRAMS) $(if $(filter cpu,$(TEST_BACKENDS)),cpusim-suite) $(GRADER) $(GRADE_TEST_SOURCES)

# Runs every test binary, each with its own log, and ends with "N passed, N failed".
test: deps
	@$(MAKE) --no-print-directory test-programs $(TEST_BINS)
	@LAB_TEST_BACKENDS="$(TEST_BACKENDS)" scripts/run-tests $(TEST_BINS)

skeletons:
	@for f in $(SKELETONS); do \
	  mkdir -p "$$(dirname "$$f")" && scripts/make-skeleton "solutions/$${f#labs/}" > "$$f.tmp" && \
	    mv "$$f.tmp" "$$f" && echo "wrote $$f" || exit 1; \
	done

# The committed skeletons must be what generation gives. Maintainers only: a checkout
# without solutions/ (a student's copy) has nothing to compare and skips.
check-skeletons:
	@if [ -z "$(SOLUTION_LABS)" ]; then echo "check-skeletons: no solutions/ here, skipped"; exit 0; fi; \
	status=0; \
	for f in $(SKELETONS); do \
	  if ! scripts/make-skeleton "solutions/$${f#labs/}" | diff -u "$$f" - ; then \
	    echo "check-skeletons: $$f differs from what solutions/$${f#labs/} generates: run make skeletons" >&2; status=1; \
	  fi; \
	done; \
	[ $$status -eq 0 ] && echo "check-skeletons: $(words $(SKELETONS)) skeletons match their solutions"; exit $$status

nvcc-all: $(patsubst %.cu,$(BUILD)/gpu/obj/%.o,$(ALL_CU)) \
          $(foreach s,labs $(if $(SOLUTION_LABS),solutions),$(foreach l,$(LABS),$(call lab_program,$(l),$(s),gpu))) \
          $(BUILD)/gpu/bin/ceilings $(BUILD)/gpu/bin/bench

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
