# The similarity report's test (tests/grading/test_similarity.cpp): it runs make grade-class
# --similarity-only on a class made from the solutions, and renders the class page's section
# itself. Without grade-class's libraries (mk/labs.mk) it is built to say so and be skipped.
# The detector, copydetect, is not a make prerequisite: scripts/install-deps similarity installs
# it (CI's .ci/run does), and without it the test says it skipped the report's cases.
ifeq ($(GRADE_CLASS_MISSING),)
$(BUILD)/test/grading/test_similarity: TEST_LIBS := -larchive
$(BUILD)/test/grading/test_similarity: $(GRADE_CLASS) $(CLASS_OBJS) $(BUILD)/host/grading/late.o $(BUILD)/host/grading/report.o $(BUILD)/host/grading/utf8.o
else
$(BUILD)/test/grading/test_similarity: TEST_DEFINES := -DGRADE_CLASS_MISSING='"$(GRADE_CLASS_MISSING)"'
endif
