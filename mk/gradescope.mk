# Gradescope (docs/instructor.md, "Gradescope"): the autograder's own program, which
# run_autograder runs on each submission (grading/course/gradescope/). `make gradescope` (the
# Makefile) writes the zip with scripts/make-gradescope. Included by the Makefile, after mk/labs.mk.

# It reads archives and JSON with grade-class's libraries (mk/labs.mk): setup.sh installs them
# on Gradescope; here, without them, building it fails saying so.
GRADESCOPE := $(BUILD)/host/gradescope
ifeq ($(GRADE_CLASS_MISSING),)
$(GRADESCOPE): $(BUILD)/host/grading/course/gradescope/autograder.o $(COURSE_LIB) $(CORE_LIB) $(HOST_OBJS)
	$(CXX) $(CXXFLAGS) $^ -larchive -o $@
else
$(GRADESCOPE): gradescope-libraries-missing
gradescope-libraries-missing:
	@echo "build/host/gradescope needs the Debian packages $(GRADE_CLASS_MISSING): run scripts/install-deps grade-class" >&2; exit 2
endif
