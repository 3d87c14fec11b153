# Made variants of the solutions (maintainers): the corpus of wrong submissions the tests grade
# (tests/corpus/corpus.txt, made into $(CORPUS)) and the variants the labs' READMEs measure
# (solutions/variants/variants.txt, made into $(VARIANTS)). Each row of a list names a variant,
# its lab, its source and a sed script; scripts/make-variant makes it into
# FOLDER/NAME/LAB/FILE. Included by the Makefile.

CORPUS_LIST := tests/corpus/corpus.txt
VARIANT_LIST := solutions/variants/variants.txt

# The lists as make variables (scripts/list-rules), made again when a list changes: a parse
# reads them without a process per row. A list that is not here (a student's copy) lists nothing.
LISTS := $(wildcard $(CORPUS_LIST) $(VARIANT_LIST))
# make help and make help-all read no list, so that they write nothing.
ifneq ($(filter-out help help-all,$(or $(MAKECMDGOALS),all)),)
include $(BUILD)/lists.mk
endif
$(BUILD)/lists.mk: $(LISTS) scripts/list-rules
	@mkdir -p $(@D)
	@scripts/list-rules $(LISTS) > $@

# $(1) list stem (corpus, variants), $(2) list, $(3) output folder, $(4) name: its file.
variant_file = $(3)/$(4)/$($(1)/$(4)_LAB)/$(call lab_file,$($(1)/$(4)_LAB))
define variant_rules
$(call variant_file,$(1),$(2),$(3),$(4)): $(2) scripts/make-variant $($(1)/$(4)_SOURCES)
	@mkdir -p $$(@D)
	scripts/make-variant $(2) $(4) > $$@
endef
# The file rules of every row of list $(2), and its lab programs in every flavor.
variant_list_rules = $(foreach n,$($(1)_NAMES),$(eval $(call variant_rules,$(1),$(2),$(3),$(n)))\
  $(foreach f,$(FLAVORS),$(eval $(call lab_program_rules,$($(1)/$(n)_LAB),$(3)/$(n),$(f)))))

$(call variant_list_rules,corpus,$(CORPUS_LIST),$(CORPUS))
$(if $(SOLUTION_LABS),$(call variant_list_rules,variants,$(VARIANT_LIST),$(VARIANTS)))
CORPUS_NAMES := $(corpus_NAMES)
corpus_lab = $(corpus/$(1)_LAB)
# The lab program of wrong submission $(1) in flavor $(2).
corpus_program = $(call lab_program,$(call corpus_lab,$(1)),$(CORPUS)/$(1),$(2))
# Every made file: the corpus, and the variants where the solutions are.
VARIANT_FILES := $(foreach n,$(corpus_NAMES),$(call variant_file,corpus,$(CORPUS_LIST),$(CORPUS),$(n))) \
  $(if $(SOLUTION_LABS),$(foreach n,$(variants_NAMES),$(call variant_file,variants,$(VARIANT_LIST),$(VARIANTS),$(n))))

.PHONY: variant-files
## make every variant and corpus entry at once (scripts/lesson-verdicts grades some of them)
variant-files: $(VARIANT_FILES)
