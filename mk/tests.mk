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
# The CPU backend's tests read its counts with make profile's code; make profile's own tests run
# its report program too.
$(BUILD)/test/cpusim/test_cpusim $(BUILD)/test/grading/test_profile_report: $(BUILD)/host/grading/kernel_counts.o \
  $(BUILD)/host/grading/profile_report.o
$(BUILD)/test/grading/test_profile_report: $(PROFILE)
TEST_PROGRAMS := $(foreach f,$(TEST_BACKENDS),$(foreach s,solutions $(TEST_SKELETONS),\
                   $(foreach l,$(SOLUTION_LABS),$(call lab_program,$(l),$(s),$(f)))))
# The wrong submissions the lab tests run themselves (tests/harness/test_lab*.cpp, test_rep_check.cpp):
# plain builds, a ThreadSanitizer build of the race between blocks (a plain run rarely loses
# an update) and an AddressSanitizer build of a read past the input (a plain run passes). The
# grader's tests grade the rest, and the grader builds what it grades.
TESTED_CORPUS := no_guard_01 no_store_guard_02 off_by_one_tiles_02 no_first_sync_02 no_second_sync_02 swapped_indices_04 \
  untransposed_04 no_store_guard_04 grid_floor_04 no_first_sync_04 no_load_guard_04 no_sync_05 no_memset_05 no_tail_05 \
  misaligned_05 cached_result_01 skip_when_done_01
TEST_PROGRAMS += $(if $(SOLUTION_LABS),$(foreach f,$(TEST_BACKENDS),$(foreach n,$(TESTED_CORPUS),$(call corpus_program,$(n),$(f)))))
# Lab 03's stretch kernel (solutions/variants/strassen: make bench times it) on the CPU backend,
# where its test checks both of its paths.
TEST_PROGRAMS += $(if $(and $(SOLUTION_LABS),$(filter cpu,$(TEST_BACKENDS))),$(call lab_program,03_matmul_register,solutions/variants/strassen,cpu))
TEST_PROGRAMS += $(if $(and $(SOLUTION_LABS),$(filter cpu,$(TEST_BACKENDS))),$(call corpus_program,no_atomics_05,cpu-tsan) \
  $(call corpus_program,no_load_guard_04,cpu-asan))

$(BUILD)/test/doctest_main.o: tests/doctest_main.cpp | deps
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -c $< -o $@
$(BUILD)/test/%: tests/%.cpp $(BUILD)/test/doctest_main.o $(HOST_OBJS) | deps
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) $(TEST_DEFINES) -MMD -MP $< $(filter %.o,$^) $(TEST_LIBS) -o $@
$(CPUSIM_TEST_BINS): $(BUILD)/test/cpusim/%: cpusim/tests/%.cpp $(BUILD)/test/doctest_main.o $(HOST_OBJS) | deps
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -MMD -MP $< $(filter %.o,$^) -o $@
# The bench's tests check its reports, which only it links; the technique's, the grader's rules.
$(BUILD)/test/harness/test_bench: $(BENCH_HOST_OBJS)
$(BUILD)/test/grading/test_technique $(BUILD)/test/grading/test_sandbox $(BUILD)/test/grading/test_submission \
  $(BUILD)/test/grading/test_build_folder: $(filter-out %/grade.o,$(GRADER_OBJS))
$(BUILD)/test/grading/test_utf8 $(BUILD)/test/grading/test_grade: $(BUILD)/host/grading/utf8.o
$(BUILD)/test/grading/test_turns: $(BUILD)/host/grading/turns.o
$(BUILD)/test/grading/test_report: $(BUILD)/host/grading/report.o $(BUILD)/host/grading/utf8.o
$(BUILD)/test/grading/test_grade: $(BUILD)/host/grading/progress.o $(BUILD)/host/grading/report.o \
  $(BUILD)/host/grading/student_uid.o
# The targets' tests record and look up targets with the grader's code, and run the grader.
$(BUILD)/test/grading/test_targets: $(filter-out %/grade.o,$(GRADER_OBJS)) $(GRADER)
# make status's tests read and write histories, and run make status and the grader in a copy.
$(BUILD)/test/grading/test_status: $(patsubst %,$(BUILD)/host/grading/%.o,progress report utf8) $(STATUS) $(GRADER)
# make grade-class's tests grade a class made of a solution, a skeleton and a corpus entry;
# without grade-class's libraries (mk/labs.mk) they are built to say so and be skipped.
$(BUILD)/test/grading/test_grade_class: $(BUILD)/host/grading/class/csv.o
ifeq ($(GRADE_CLASS_MISSING),)
$(BUILD)/test/grading/test_grade_class: TEST_LIBS := -larchive
$(BUILD)/test/grading/test_grade_class: $(BUILD)/host/grading/class/archive.o $(BUILD)/host/grading/utf8.o $(GRADE_CLASS) $(GRADER) \
  $(TEST_SKELETONS)/01_matmul_naive/matmul_naive.cu $(CORPUS)/no_guard_01/01_matmul_naive/matmul_naive.cu
else
$(BUILD)/test/grading/test_grade_class: TEST_DEFINES := -DGRADE_CLASS_MISSING='"$(GRADE_CLASS_MISSING)"'
endif

# The same, graded on a one-node Slurm cluster that the test starts (tests/grading/single-node-slurm).
$(BUILD)/test/grading/test_grade_class_slurm: $(BUILD)/host/grading/class/csv.o
ifeq ($(GRADE_CLASS_MISSING),)
$(BUILD)/test/grading/test_grade_class_slurm: $(GRADE_CLASS) $(GRADER) $(TEST_SKELETONS)/01_matmul_naive/matmul_naive.cu \
  $(CORPUS)/no_guard_01/01_matmul_naive/matmul_naive.cu
else
$(BUILD)/test/grading/test_grade_class_slurm: TEST_DEFINES := -DGRADE_CLASS_MISSING='"$(GRADE_CLASS_MISSING)"'
endif

# The late policy's tests: its arithmetic and the rubric's keys; with grade-class's libraries,
# the gradebook's late columns and a small class graded with a due time.
$(BUILD)/test/grading/test_late: $(filter-out %/grade.o,$(GRADER_OBJS))
ifeq ($(GRADE_CLASS_MISSING),)
$(BUILD)/test/grading/test_late: TEST_LIBS := -larchive
$(BUILD)/test/grading/test_late: $(patsubst %,$(BUILD)/host/grading/class/%.o,archive csv gradebook roster) $(GRADE_CLASS) $(GRADER)
else
$(BUILD)/test/grading/test_late: TEST_DEFINES := -DGRADE_CLASS_MISSING='"$(GRADE_CLASS_MISSING)"'
endif

# The grader's tests grade the solutions, fresh skeletons and the corpus of wrong submissions.
GRADE_TEST_SOURCES := $(if $(SOLUTION_LABS),$(foreach l,$(SOLUTION_LABS),$(TEST_SKELETONS)/$(l)/$(call lab_file,$(l))) \
  $(VARIANT_FILES))
## build what the tests run
test-programs: $(TEST_PROGRAMS) $(if $(filter cpu,$(TEST_BACKENDS)),cpusim-suite cpusim-samples) $(GRADER) $(STATUS) $(GRADE_TEST_SOURCES)

