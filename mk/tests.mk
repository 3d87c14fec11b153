# The workbook's own tests (doctest), and what they run. Included by the Makefile, whose
# `make test` builds these and runs every test binary.

.PHONY: test-programs

# What the tests run: the lab programs of the solutions and of fresh skeletons, on the CPU
# backend and, when there is one, on the GPU. TEST_BACKENDS=gpu skips the CPU backend.
TEST_BACKENDS ?= cpu $(if $(HAVE_GPU),gpu)
# The CPU backend keeps its tests in its own folder (cpusim/tests/): they build into build/test/cpusim/.
CPUSIM_TEST_BINS := $(patsubst cpusim/tests/%.cpp,$(BUILD)/test/cpusim/%,$(wildcard cpusim/tests/test_*.cpp))
TEST_BINS := $(patsubst tests/%.cpp,$(BUILD)/test/%,$(wildcard tests/*/test_*.cpp)) \
  $(if $(filter cpu,$(TEST_BACKENDS)),$(CPUSIM_TEST_BINS))
TEST_PROGRAMS := $(foreach f,$(TEST_BACKENDS),$(foreach s,solutions $(TEST_SKELETONS),\
                   $(foreach l,$(SOLUTION_LABS),$(call lab_program,$(l),$(s),$(f)))))
# The wrong submissions the lab tests run themselves (tests/harness/test_lab*.cpp, test_rep_check.cpp):
# plain builds, a ThreadSanitizer build of the race between blocks (a plain run rarely loses
# an update) and an AddressSanitizer build of a read past the input (a plain run passes). The
# grader's tests grade the rest, and the grader builds what it grades.
TESTED_CORPUS := no_guard_01 no_store_guard_02 off_by_one_tiles_02 no_first_sync_02 no_second_sync_02 swapped_indices_04 \
  untransposed_04 no_store_guard_04 grid_floor_04 no_first_sync_04 no_load_guard_04 no_sync_05 no_memset_05 no_tail_05 \
  misaligned_05 cached_result_01 skip_when_done_01 writes_input_01
TEST_PROGRAMS += $(if $(SOLUTION_LABS),$(foreach f,$(TEST_BACKENDS),$(foreach n,$(TESTED_CORPUS),$(call corpus_program,$(n),$(f)))))
# Lab 03's stretch kernel (the variant strassen, made from the solution and
# solutions/variants/strassen.cu: make bench times it) on the CPU backend, where its test checks
# both of its paths.
TEST_PROGRAMS += $(if $(and $(SOLUTION_LABS),$(filter cpu,$(TEST_BACKENDS))),$(call lab_program,03_matmul_register,$(VARIANTS)/strassen,cpu))
TEST_PROGRAMS += $(if $(and $(SOLUTION_LABS),$(filter cpu,$(TEST_BACKENDS))),$(call corpus_program,no_atomics_05,cpu-tsan) \
  $(call corpus_program,no_load_guard_04,cpu-asan))

# A test links its own file, doctest's main and the libraries of grading/ (mk/labs.mk), from
# which the linker takes what the test calls; without grade-class's libraries, the tests that
# need them are built to say so and be skipped. What the tests run (the grader, make status, the
# lab programs...) is test-programs', which make test builds first.
TEST_LIBS := $(if $(GRADE_CLASS_MISSING),,$(COURSE_LIB)) $(STUDENT_LIB) $(CORE_LIB)
TEST_LDLIBS := $(if $(GRADE_CLASS_MISSING),,-larchive)
TEST_DEFINES := $(if $(GRADE_CLASS_MISSING),-DGRADE_CLASS_MISSING='"$(GRADE_CLASS_MISSING)"')
# The test programs start other programs and check what they print: unoptimized, they run as
# fast and compile in a third of the time (-O2 -g took 4.8 s of CPU for test_grade.cpp, -O0 -g
# 1.6 s; CI compiles four dozen of them).
TEST_CXXFLAGS := $(filter-out -O2,$(CXXFLAGS)) -O0
$(BUILD)/test/doctest_main.o: tests/doctest_main.cpp | deps
	@mkdir -p $(@D)
	$(CXX) $(TEST_CXXFLAGS) -c $< -o $@
$(BUILD)/test/%: tests/%.cpp $(BUILD)/test/doctest_main.o $(TEST_LIBS) $(HOST_OBJS) | deps
	@mkdir -p $(@D)
	$(CXX) $(TEST_CXXFLAGS) $(TEST_DEFINES) -MMD -MP $< $(filter %.o %.a,$^) $(TEST_LDLIBS) -o $@
# The bench's tests check its reports, which only the bench links.
$(BUILD)/test/harness/test_bench: $(BENCH_HOST_OBJS)
# The check of declared but undefined functions (scripts/undefined-functions) reads what the build
# made: the tools, the lab programs' parts and the CPU backend's runtimes, which make test builds
# anyway; made first when its test is built alone too (order-only: the test links none of them).
$(BUILD)/test/scripts/test_undefined_functions: | $(TEST_TOOLS) $(BENCH_HOST_OBJS) $(BUILD)/host/plain_loops \
  $(call runtime_objs,$(firstword $(TEST_BACKENDS))) $(if $(filter cpu,$(TEST_BACKENDS)),$(CPUSIM_RUNTIME_LIBS))
# The CPU backend's tests stand alone: its own launch-log reader, and the host tools (tools/: the
# runner of programs).
$(CPUSIM_TEST_BINS): $(BUILD)/test/cpusim/%: cpusim/tests/%.cpp $(BUILD)/test/doctest_main.o $(BUILD)/host/cpusim/launch_log.o \
    $(TOOLS_OBJS) | deps
	@mkdir -p $(@D)
	$(CXX) $(TEST_CXXFLAGS) -MMD -MP $< $(filter %.o %.a,$^) -o $@

# The grader's tests grade the solutions, fresh skeletons and the corpus of wrong submissions.
GRADE_TEST_SOURCES := $(if $(SOLUTION_LABS),$(foreach l,$(SOLUTION_LABS),$(TEST_SKELETONS)/$(l)/$(call lab_file,$(l))) \
  $(VARIANT_FILES))
# The tools the tests run, and the files of the corpus and the skeletons that tests hand to them.
TEST_TOOLS := $(GRADER) $(FENCE) $(STATUS) $(PROFILE) $(if $(GRADE_CLASS_MISSING),,$(GRADE_CLASS) $(GRADESCOPE) $(PRAIRIELEARN) $(CLASSROOM50))
## build what the tests run
test-programs: $(TEST_PROGRAMS) $(if $(filter cpu,$(TEST_BACKENDS)),cpusim-suite cpusim-samples) $(TEST_TOOLS) $(GRADE_TEST_SOURCES)
	$(if $(and $(SOLUTION_LABS),$(filter cpu,$(TEST_BACKENDS))),@$(call warm_grader_builds))

# The grader's build folder of the tests (build/grade-tests), made ready before they start: the
# fresh skeletons graded once with make check's checks. An untouched skeleton is graded "not
# started" once it is built, so this builds every lab program's parts in each CPU flavor and the
# solutions' programs, and runs none of them. The tests that grade a copy of the checkout copy
# these builds (tests/lab_programs.h: reuse_builds) rather than build them again each.
define warm_grader_builds
out=$$(mktemp -d) && $(GRADER) --quick --src $(TEST_SKELETONS) --backend cpu --build-dir $(BUILD)/grade-tests \
  --out "$$out/report" >"$$out/log" 2>&1 || { cat "$$out/log" >&2; rm -rf "$$out"; \
  echo "make test-programs: the grader could not prepare $(BUILD)/grade-tests" >&2; exit 1; }; rm -rf "$$out"
endef

# make test prepares that folder first (test-grader-builds), then takes from it what the lab
# programs of the tests share with it, where this build/ has none yet: the harness's objects in
# the plain and the sanitizers' flavors, the solutions' programs, the counting flavor's, so that
# test-programs compiles each of them once (they took about 40 compiles twice). Copies, times
# kept; their dependency files then name their targets here.
GRADER_SHARED_PARTS := $(foreach f,cpu cpu-asan cpu-tsan cpu-count,$(f)/obj/harness $(f)/obj/common) \
  $(foreach f,cpu cpu-count,$(f)/obj/solutions $(f)/bin/solutions)
define reuse_grader_parts
for part in $(GRADER_SHARED_PARTS); do \
  [ -e "$(BUILD)/$$part" ] || [ ! -d "$(BUILD)/grade-tests/$$part" ] || { mkdir -p "$(BUILD)/$${part%/*}" && \
    cp -a "$(BUILD)/grade-tests/$$part" "$(BUILD)/$$part" && \
    find "$(BUILD)/$$part" -name '*.d' -exec sed -i 's|$(BUILD)/grade-tests/|$(BUILD)/|g' {} +; } || exit 1; \
done
endef
.PHONY: test-grader-builds
## prepare the grader's build folder of the tests, and take the builds it shares (make test runs it first)
test-grader-builds: $(GRADER) $(GRADE_TEST_SOURCES)
	$(if $(and $(SOLUTION_LABS),$(filter cpu,$(TEST_BACKENDS))),@$(call warm_grader_builds) && $(reuse_grader_parts))

