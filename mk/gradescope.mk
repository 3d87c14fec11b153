# Gradescope (docs/instructor.md, "Gradescope"): the autograder's own program, which
# run_autograder runs on each submission (grading/gradescope/), and what its test needs.
# `make gradescope` (the Makefile) writes the zip with scripts/make-gradescope. Included by the
# Makefile, after mk/labs.mk and mk/tests.mk.

# It reads archives and JSON with grade-class's libraries (mk/labs.mk): setup.sh installs them
# on Gradescope; here, without them, building it fails saying so.
GRADESCOPE := $(BUILD)/host/gradescope
GRADESCOPE_OBJS := $(patsubst %.cpp,$(BUILD)/host/%.o,$(wildcard grading/gradescope/*.cpp))
ifeq ($(GRADE_CLASS_MISSING),)
$(GRADESCOPE): $(GRADESCOPE_OBJS) $(CLASS_OBJS) $(filter-out %/grade.o,$(GRADER_OBJS)) $(HOST_OBJS)
	$(CXX) $(CXXFLAGS) $^ -larchive -o $@
else
$(GRADESCOPE): gradescope-libraries-missing
gradescope-libraries-missing:
	@echo "build/host/gradescope needs the Debian packages $(GRADE_CLASS_MISSING): run scripts/install-deps grade-class" >&2; exit 2
endif

# The test runs setup.sh and run_autograder in a copy of the zip's folder against a fake
# /autograder, with this checkout's grader and the grader tests' build folder (lab 01).
ifeq ($(GRADE_CLASS_MISSING),)
$(BUILD)/test/grading/test_gradescope: TEST_LIBS := -larchive
$(BUILD)/test/grading/test_gradescope: $(GRADER) $(GRADESCOPE) $(TEST_SKELETONS)/01_matmul_naive/matmul_naive.cu \
  $(CORPUS)/no_guard_01/01_matmul_naive/matmul_naive.cu
else
$(BUILD)/test/grading/test_gradescope: TEST_DEFINES := -DGRADE_CLASS_MISSING='"$(GRADE_CLASS_MISSING)"'
endif
