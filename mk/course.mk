# The instructors' targets: grading a class (make grade-class, make similarity), the students'
# copy (make release), and the course platforms' autograders (docs/instructor/platforms.md, "Gradescope",
# "PrairieLearn" and "Classroom 50"): each platform's own program grades one submission with
# the grader and writes the platform's results (grading/course/gradescope/, prairielearn/,
# classroom50/; what they share: grading/course/autograde.h). Included by the Makefile, after
# mk/labs.mk; `make help-all` lists them.

.PHONY: grade-class similarity release

# Grades each student of SUBMISSIONS (a folder per student, or a .zip or .tar of one; or a Canvas
# or Gradescope download of the class, its .zip or the folder it unzips to, imported first into
# OUT/download/students) with the grader, JOBS at a time, into OUT (default build/class):
# gradebook.csv, class.html and each student's report. ROSTER=file.csv (id, name, nickname) gives every student of the class a row;
# SEED=N the class's seed; LAB=, RUBRIC= as for make grade. A rerun grades only what changed, and the
# students REGRADE=alice,bob names again. OUT/overrides.csv (or OVERRIDES=file: id, lab, points,
# comment), the instructor's changes, is applied every run; canvas.csv and moodle.csv are the
# gradebook for those LMSs' imports.
# SCHEDULER=slurm submits the students to grade as a Slurm job array instead, BATCH=N students a
# task (default 1), PARTITION= and ACCOUNT= as the cluster wants, and a job that merges the results.
# On a GPU the technique check counts with the CPU backend's model (the same verdicts as Nsight
# Compute's, and the GPU left to the timed passes); COUNTS=ncu counts with Nsight Compute.
# TRACE_RUNS=1: each student's folder gets runs.tsv, a line per lab program run, its wait for the
# GPU and its run (grading/core/run_trace.h); scripts/trace-summary OUT reads them.
## grade a class: SUBMISSIONS=dir (a folder or archive per student) or a Canvas or Gradescope download .zip; OUT=dir, ROSTER=file.csv, JOBS=N, OVERRIDES=file.csv, SCHEDULER=slurm, TRACE_RUNS=1, COUNTS=ncu
grade-class: deps-backend
	@$(call build_in_parallel,$(GRADER) $(GRADE_CLASS))
	@[ -n "$(SUBMISSIONS)" ] || { echo "make grade-class: say which folder or download, e.g. make grade-class SUBMISSIONS=submissions" >&2; exit 2; }
	@$(GRADE_CLASS) --submissions $(call shell_quote,$(SUBMISSIONS)) $(if $(OUT),--out $(call shell_quote,$(OUT))) \
	  $(if $(ROSTER),--roster $(call shell_quote,$(ROSTER))) $(if $(JOBS),--jobs $(JOBS)) --backend $(BACKEND) $(if $(LAB),--lab $(LAB)) \
	  $(if $(SCHEDULER),--scheduler $(SCHEDULER)) $(if $(PARTITION),--partition $(call shell_quote,$(PARTITION))) \
	  $(if $(ACCOUNT),--account $(call shell_quote,$(ACCOUNT))) $(if $(BATCH),--batch $(BATCH)) \
	  $(if $(SEED),--seed $(SEED)) $(if $(RUBRIC),--rubric "$(RUBRIC)") $(if $(REGRADE),--regrade $(call shell_quote,$(REGRADE))) \
	  $(if $(OVERRIDES),--overrides $(call shell_quote,$(OVERRIDES))) $(if $(filter 1 yes,$(TRACE_RUNS)),--trace-runs) \
	  $(if $(COUNTS),--counts $(COUNTS)) \
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
# commit. docs/instructor/hand-out.md.
## the students' copy of the workbook, without solutions: make release OUT=dir
release:
	@[ -n "$(OUT)" ] || { echo "make release: say where, e.g. make release OUT=../workbook-students" >&2; exit 2; }
	@scripts/make-release $(call shell_quote,$(OUT))

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
	@[ -z "$(LAB)" ] || [ -n "$(LAB_NAME)" ] || { echo "make gradescope: no lab '$(LAB)' here (labs: $(LABS))" >&2; exit 2; }
	@scripts/make-gradescope "$(or $(GRADESCOPE_OUT),$(BUILD)/gradescope)" "$(if $(LAB),$(LAB_NAME))" "$(or $(RUBRIC),grading/rubric.txt)" \
	  "$(or $(VISIBILITY),visible)" "$(or $(STDOUT_VISIBILITY),hidden)" "$(or $(TIMEOUT),540)"

# PrairieLearn's grading image folder and a question per lab (scripts/make-prairielearn): IMAGE=
# the name the image is pushed under (info.json names it); LAB=01 for one question; RUBRIC=file;
# TIMEOUT=seconds the grader may take (10 to 540); PRAIRIELEARN_OUT=dir.
## a grading image and a question per lab for PrairieLearn: IMAGE=org/name:tag, LAB=01, RUBRIC=, TIMEOUT=540; into build/prairielearn
prairielearn:
	@[ -n "$(IMAGE)" ] || { echo "make prairielearn: say which Docker image the questions name, e.g. IMAGE=myorg/cuda-workbook-grader:2026" >&2; exit 2; }
	@[ -z "$(LAB)" ] || [ -n "$(LAB_NAME)" ] || { echo "make prairielearn: no lab '$(LAB)' here (labs: $(LABS))" >&2; exit 2; }
	@scripts/make-prairielearn "$(or $(PRAIRIELEARN_OUT),$(BUILD)/prairielearn)" "$(IMAGE)" "$(if $(LAB),$(LAB_NAME))" \
	  "$(or $(RUBRIC),grading/rubric.txt)" "$(or $(TIMEOUT),540)"

# Classroom 50's autograders (scripts/make-classroom50), one per lab, to copy into a classroom's
# config repository: LAB=01 for one; LAB=all for one assignment of the whole workbook, every lab
# graded at each push; RUBRIC=file; TIMEOUT=seconds the grader may take; CLASSROOM50_OUT=dir.
## an autograder per lab for Classroom 50 (GitHub): LAB=01, LAB=all (one for every lab), RUBRIC=, TIMEOUT=540; into build/classroom50
classroom50:
	@[ -z "$(LAB)" ] || [ "$(LAB)" = all ] || [ -n "$(LAB_NAME)" ] || \
	  { echo "make classroom50: no lab '$(LAB)' here (labs: $(LABS), or all)" >&2; exit 2; }
	@scripts/make-classroom50 "$(or $(CLASSROOM50_OUT),$(BUILD)/classroom50)" "$(if $(filter all,$(LAB)),all,$(if $(LAB),$(LAB_NAME)))" \
	  "$(or $(RUBRIC),grading/rubric.txt)" "$(or $(TIMEOUT),540)"
