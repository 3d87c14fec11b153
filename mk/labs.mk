# The labs and their programs: the table of labs, the shared library, each lab's program in
# each flavor from any source folder, the comparison programs, the grader. Included by the
# Makefile.

# The labs, from their table (labs.txt): each row starts with a lab's folder, NN_stem, which
# holds one student file, stem.cu, and may end with the lab's steps before the last (1d,2d).
# Read by make itself, without a shell: each line becomes one word (its blanks ^), its fields
# are what comes before any #, and a line's first field is a lab when it starts with a digit,
# so that a comment (# ...), even one that names a lab, names none.
empty :=
space := $(empty) $(empty)
tab := $(empty)	$(empty)
comma := ,
hash := \#
define newline


endef
TABLE_LINES := $(subst $(newline),$(space),$(subst $(tab),^,$(subst $(space),^,$(file <labs.txt))))
line_fields = $(subst ^, ,$(patsubst x%,%,$(firstword $(subst $(hash), ,x$(1)))))
lab_of_line = $(filter 0% 1% 2% 3% 4% 5% 6% 7% 8% 9%,$(firstword $(call line_fields,$(1))))
LABS := $(strip $(foreach l,$(TABLE_LINES),$(call lab_of_line,$(l))))
# The steps of lab $(1) before its last (1d 2d: the launchers stem_1d, stem_2d); the last is
# stem() itself. lab_step_names: every step as --step names it, the last by its number.
$(foreach l,$(TABLE_LINES),$(if $(call lab_of_line,$(l)),$(eval STEPS_$(call lab_of_line,$(l)) := $(subst $(comma), ,$(word 3,$(call line_fields,$(l)))))))
lab_steps = $(STEPS_$(1))
lab_step_names = $(if $(STEPS_$(1)),$(STEPS_$(1)) $(words x $(STEPS_$(1))))
# 05_dot_reduction -> dot_reduction, dot_reduction.cu
lab_stem = $(patsubst $(firstword $(subst _, ,$(1)))_%,%,$(1))
lab_file = $(call lab_stem,$(1)).cu
SOLUTION_LABS := $(filter $(LABS),$(notdir $(wildcard solutions/[0-9][0-9]_*)))

SRC ?= labs
# Where the made variants go (mk/variants.mk): wrong submissions, and the READMEs' variants.
CORPUS := $(BUILD)/corpus
VARIANTS := $(BUILD)/variants
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
# A word for bash, whatever it holds: in single quotes, a quote as '\'', and a newline as '$'\n''
# (make runs each line of an expanded recipe in a shell of its own, so a newline left in would
# end the command inside the quotes).
shell_quote = '$(subst $(newline),'$$'\n'',$(subst ','\'',$(1)))'
# LAB=01 or LAB=01_matmul_naive -> 01_matmul_naive
lab_name = $(firstword $(filter $(1)%,$(LABS)))
# A source folder's name inside build/: labs, solutions, or its path with / as _.
src_tag = $(subst /,_,$(patsubst $(CURDIR)/%,%,$(abspath $(1))))
# The lab program of lab $(1) built from folder $(2) in flavor $(3).
lab_program = $(BUILD)/$(3)/bin/$(call src_tag,$(2))/$(1)

# ---- the shared library ----

# The host tools (tools/: running commands, the processes they leave, text), which the lab
# programs, the grader and the tests link, and the CPU backend's tests alone.
TOOLS_SRCS := tools/subprocess.cpp tools/descendants.cpp
TOOLS_OBJS := $(TOOLS_SRCS:%.cpp=$(BUILD)/host/%.o)
HOST_SRCS := common/fill.cpp common/reference.cpp common/compare.cpp common/cli.cpp \
             common/timing_stats.cpp common/labs.cpp common/problems.cpp common/protocol.cpp \
             common/rep_check.cpp common/targets.cpp $(TOOLS_SRCS)
RUNTIME_SRCS := common/device_info.cpp common/timing.cpp harness/device_case.cpp harness/serve.cpp \
                harness/lab_main.cpp harness/launcher.cpp harness/host_copies.cpp harness/lost_updates.cpp harness/thread_order.cpp harness/output_scan.cu
# The objects of RUNTIME_SRCS in flavor $(1).
runtime_objs = $(patsubst %,$(BUILD)/$(1)/obj/%.o,$(basename $(RUNTIME_SRCS)))
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

# Each lab's main: harness/lab_program.cpp, naming lab $(1) of the table and its steps, in
# flavor $(2).
define lab_main_rule
$(BUILD)/$(2)/obj/harness/$(1).o: harness/lab_program.cpp $(DEPS_$(2))
	@mkdir -p $$(@D)
	$(CPP_$(2)) -DLAB_NUMBER='"$(firstword $(subst _, ,$(1)))"' -DLAB_STEM=$(call lab_stem,$(1)) \
	  -DLAB_STEPS='$(foreach s,$(call lab_steps,$(1)),LAB_STEP($(s)))' -c $$< -o $$@
endef
$(foreach f,$(FLAVORS),$(foreach l,$(LABS),$(eval $(call lab_main_rule,$(l),$(f)))))

# A lab program: the lab's main, the student file from one source folder, the library. The
# student's object comes last, so that where both define the same inline function or template
# instance, the linker keeps the harness's (the grader refuses any other shared name).
# The student's file is compiled from a copy beside its object, as the grader compiles a copy of
# its own: a header put beside the file is found by neither `make run` nor `make grade`, so the
# two agree. The #line keeps messages, sanitizer reports and line info naming the student's file.
# $(1) lab, $(2) source folder, $(3) flavor
define lab_program_rules
$(BUILD)/$(3)/obj/$(call src_tag,$(2))/$(1)/$(call lab_file,$(1)): $(2)/$(1)/$(call lab_file,$(1))
	@mkdir -p $$(@D)
	@{ printf '#line 1 "%s"\n' '$$<' && cat '$$<'; } > $$@
$(BUILD)/$(3)/obj/$(call src_tag,$(2))/$(1)/$(call lab_stem,$(1)).o: $(BUILD)/$(3)/obj/$(call src_tag,$(2))/$(1)/$(call lab_file,$(1)) \
    $(PUBLIC_HEADERS) $(DEPS_$(3))
	@mkdir -p $$(@D)
	$(STUDENT_CU_$(3)) -c $$< -o $$@
$(call lab_program,$(1),$(2),$(3)): $(call lab_program_parts,$(1),$(3)) \
    $(BUILD)/$(3)/obj/$(call src_tag,$(2))/$(1)/$(call lab_stem,$(1)).o
	@mkdir -p $$(@D)
	$(LINK_$(3)) $$(filter-out %.a,$$^) -o $$@
endef
# What a lab program of lab $(1) in flavor $(2) links besides the student's object: the grader
# builds these itself, before the student's build.
lab_program_parts = $(BUILD)/$(2)/obj/harness/$(1).o $(call runtime_objs,$(2)) $(HOST_OBJS) \
  $(RUNTIME_LIB_$(2))
SRC_DIRS := $(filter-out $(CORPUS)/% $(VARIANTS)/%,$(sort labs $(if $(SOLUTION_LABS),solutions $(BUILD)/skeletons) $(if $(call plain_name,$(SRC)),$(SRC))))
$(foreach f,$(FLAVORS),$(foreach s,$(SRC_DIRS),$(foreach l,$(LABS),$(eval $(call lab_program_rules,$(l),$(s),$(f))))))

# The comparison of `make run` on a GPU, and `make bench`: they measure the ceilings of
# harness/vendor.h, and link cuBLAS (the lab programs do not). The bench's reports are host
# code of their own (tested without a GPU), its CUB dot product a .cu file.
VENDOR_OBJS = $(BUILD)/$(1)/obj/harness/vendor.o $(call runtime_objs,$(1)) $(HOST_OBJS)
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

# The CPU backend's yardstick: the labs' arithmetic as plain loops (scripts/bench-backend).
$(BUILD)/host/plain_loops: $(BUILD)/host/harness/plain_loops.o $(HOST_OBJS)
	$(CXX) $(CXXFLAGS) $^ -o $@

# ---- the grader and its tools ----

# grading/ holds three products, a folder each: core/ (make grade), course/ (make grade-class,
# make gradescope) and student/ (make status, make profile). Each folder is a library, an
# archive of its objects but the mains; a program links its main and the archives it may use,
# and the linker takes from them what the program calls: no list of objects is kept by hand.
GRADING_MAINS := grading/core/grade.cpp grading/core/fence.cpp grading/course/grade_class.cpp \
  grading/course/gradescope/autograder.cpp grading/course/prairielearn/autograder.cpp \
  grading/course/classroom50/autograder.cpp grading/student/status.cpp grading/student/profile.cpp
grading_objs = $(patsubst %.cpp,$(BUILD)/host/%.o,$(filter-out $(GRADING_MAINS),$(1)))
CORE_LIB := $(BUILD)/host/libgrading-core.a
STUDENT_LIB := $(BUILD)/host/libgrading-student.a
COURSE_LIB := $(BUILD)/host/libgrading-course.a
# The grader reads the CPU backend's launch log with the backend's own reader.
$(CORE_LIB): $(call grading_objs,$(wildcard grading/core/*.cpp)) $(BUILD)/host/cpusim/launch_log.o
$(STUDENT_LIB): $(call grading_objs,$(wildcard grading/student/*.cpp))
$(COURSE_LIB): $(call grading_objs,$(wildcard grading/course/*/*.cpp grading/course/*.cpp))
$(CORE_LIB) $(STUDENT_LIB) $(COURSE_LIB):
	@rm -f $@
	ar rcs $@ $^

GRADER := $(BUILD)/host/grade
# The mounts of a student process's fences (grading/core/fence.cpp), beside the grader.
FENCE := $(BUILD)/host/fence
$(GRADER): $(BUILD)/host/grading/core/grade.o $(CORE_LIB) $(HOST_OBJS) | $(FENCE)
	$(CXX) $(CXXFLAGS) $(filter-out $(FENCE),$^) -o $@
$(FENCE): $(BUILD)/host/grading/core/fence.o
	$(CXX) $(CXXFLAGS) $^ -o $@

# make status: reads the history the grader writes, with the grader's own code for it.
STATUS := $(BUILD)/host/status
$(STATUS): $(BUILD)/host/grading/student/status.o $(STUDENT_LIB) $(CORE_LIB) $(HOST_OBJS)
	$(CXX) $(CXXFLAGS) $^ -o $@

# make profile's report (grading/student/profile.cpp): either backend's counts, read with the technique
# check's own code, in one table.
PROFILE := $(BUILD)/host/profile
$(PROFILE): $(BUILD)/host/grading/student/profile.o $(STUDENT_LIB) $(CORE_LIB) $(HOST_OBJS)
	$(CXX) $(CXXFLAGS) $^ -o $@

# make grade-class: runs the grader on each student of a class (grading/course/grade_class.cpp);
# its parts are in grading/course/class/, its Slurm half in grade_class_slurm.cpp (which only
# this main calls, and which calls it back: the linker takes it from the course library). It
# alone needs two libraries beyond the grader's (which needs none): libarchive unpacks the
# students' zips and tars, nlohmann/json reads the grader's results.json; `scripts/install-deps
# grade-class` installs both. Found by make itself (no shell); without them, building it fails
# saying so, and its test is skipped saying so.
GRADE_CLASS := $(BUILD)/host/grade-class
GRADE_CLASS_MISSING := $(strip $(if $(wildcard /usr/include/archive.h),,libarchive-dev) \
  $(if $(wildcard /usr/include/nlohmann/json.hpp),,nlohmann-json3-dev))
ifeq ($(GRADE_CLASS_MISSING),)
$(GRADE_CLASS): $(BUILD)/host/grading/course/grade_class.o $(COURSE_LIB) $(CORE_LIB) $(HOST_OBJS)
	$(CXX) $(CXXFLAGS) $^ -larchive -o $@
else
# Said even where an older build of it is left (a target without a file is never up to date).
$(GRADE_CLASS): grade-class-libraries-missing
grade-class-libraries-missing:
	@echo "make grade-class needs the Debian packages $(GRADE_CLASS_MISSING) (libarchive unpacks the" \
	  "students' archives, nlohmann/json reads the grader's results.json): run scripts/install-deps grade-class" >&2; exit 2
endif
