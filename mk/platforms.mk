# The course platforms' autograders (docs/instructor.md, "Gradescope", "PrairieLearn" and
# "Classroom 50"): each platform's own program grades one submission with the grader and writes
# the platform's results (grading/course/gradescope/, prairielearn/, classroom50/; what they
# share: grading/course/autograde.h). `make gradescope`, `make prairielearn` and `make
# classroom50` write what an instructor installs, with scripts/make-gradescope, ... .
# Included by the Makefile, after mk/labs.mk.

# They read archives and JSON with grade-class's libraries (mk/labs.mk): the image's setup
# (grading/course/setup-image.sh) installs them; here, without them, building fails saying so.
GRADESCOPE := $(BUILD)/host/gradescope
PRAIRIELEARN := $(BUILD)/host/prairielearn
CLASSROOM50 := $(BUILD)/host/classroom50
ifeq ($(GRADE_CLASS_MISSING),)
$(GRADESCOPE): $(BUILD)/host/grading/course/gradescope/autograder.o $(COURSE_LIB) $(CORE_LIB) $(HOST_OBJS)
	$(CXX) $(CXXFLAGS) $^ -larchive -o $@
$(PRAIRIELEARN): $(BUILD)/host/grading/course/prairielearn/autograder.o $(COURSE_LIB) $(CORE_LIB) $(HOST_OBJS)
	$(CXX) $(CXXFLAGS) $^ -larchive -o $@
$(CLASSROOM50): $(BUILD)/host/grading/course/classroom50/autograder.o $(COURSE_LIB) $(CORE_LIB) $(HOST_OBJS)
	$(CXX) $(CXXFLAGS) $^ -larchive -o $@
else
$(GRADESCOPE) $(PRAIRIELEARN) $(CLASSROOM50): platform-libraries-missing
platform-libraries-missing:
	@echo "the platforms' programs (build/host/gradescope, prairielearn, classroom50) need the Debian packages $(GRADE_CLASS_MISSING):" \
	  "run scripts/install-deps grade-class" >&2; exit 2
endif

.PHONY: gradescope prairielearn classroom50

# The Gradescope autograder zip (scripts/make-gradescope): setup.sh, run_autograder and what the
# grader needs, no solutions; it grades on the CPU backend. LAB=01 for an assignment per lab;
# RUBRIC=file; VISIBILITY (the tests) and STDOUT_VISIBILITY (the console): visible, hidden,
# after_due_date, after_published; TIMEOUT=seconds the grader may take; GRADESCOPE_OUT=dir.
## the Gradescope autograder zip: LAB=01, RUBRIC=, VISIBILITY=after_due_date, TIMEOUT=540; into build/gradescope
gradescope:
	@[ -z "$(LAB)" ] || [ -n "$(call lab_name,$(LAB))" ] || { echo "make gradescope: no lab '$(LAB)' here (labs: $(LABS))" >&2; exit 2; }
	@scripts/make-gradescope "$(or $(GRADESCOPE_OUT),$(BUILD)/gradescope)" "$(if $(LAB),$(call lab_name,$(LAB)))" "$(or $(RUBRIC),grading/rubric.txt)" \
	  "$(or $(VISIBILITY),visible)" "$(or $(STDOUT_VISIBILITY),hidden)" "$(or $(TIMEOUT),540)"

# PrairieLearn's grading image folder and a question per lab (scripts/make-prairielearn): IMAGE=
# the name the image is pushed under (info.json names it); LAB=01 for one question; RUBRIC=file;
# TIMEOUT=seconds the grader may take (10 to 540); PRAIRIELEARN_OUT=dir.
## a grading image and a question per lab for PrairieLearn: IMAGE=org/name:tag, LAB=01, RUBRIC=, TIMEOUT=540; into build/prairielearn
prairielearn:
	@[ -n "$(IMAGE)" ] || { echo "make prairielearn: say which Docker image the questions name, e.g. IMAGE=myorg/cuda-workbook-grader:2026" >&2; exit 2; }
	@[ -z "$(LAB)" ] || [ -n "$(call lab_name,$(LAB))" ] || { echo "make prairielearn: no lab '$(LAB)' here (labs: $(LABS))" >&2; exit 2; }
	@scripts/make-prairielearn "$(or $(PRAIRIELEARN_OUT),$(BUILD)/prairielearn)" "$(IMAGE)" "$(if $(LAB),$(call lab_name,$(LAB)))" \
	  "$(or $(RUBRIC),grading/rubric.txt)" "$(or $(TIMEOUT),540)"

# Classroom 50's autograders (scripts/make-classroom50), one per lab, to copy into a classroom's
# config repository: LAB=01 for one; RUBRIC=file; TIMEOUT=seconds the grader may take;
# CLASSROOM50_OUT=dir.
## an autograder per lab for Classroom 50 (GitHub): LAB=01, RUBRIC=, TIMEOUT=540; into build/classroom50
classroom50:
	@[ -z "$(LAB)" ] || [ -n "$(call lab_name,$(LAB))" ] || { echo "make classroom50: no lab '$(LAB)' here (labs: $(LABS))" >&2; exit 2; }
	@scripts/make-classroom50 "$(or $(CLASSROOM50_OUT),$(BUILD)/classroom50)" "$(if $(LAB),$(call lab_name,$(LAB)))" \
	  "$(or $(RUBRIC),grading/rubric.txt)" "$(or $(TIMEOUT),540)"
