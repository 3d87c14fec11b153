# The toolchain: the backend (a GPU, or the CPU backend without one), the architecture, and how
# each flavor of a build compiles and links. Included by the Makefile.

CUDA_HOME ?= /usr/local/cuda
# nvcc from PATH, else CUDA's usual home (found by make itself: no shell).
NVCC ?= $(firstword $(wildcard $(addsuffix /nvcc,$(subst :, ,$(PATH)))) $(CUDA_HOME)/bin/nvcc)
CXX := g++
# How host code (the grader, the harness's host parts) is optimized. HOST_OPT=-O1 halves the
# compiler's time where a build runs once and must be quick: a platform's autograder that builds
# the grader from nothing for each submission (grading/course/classroom50/autograder.py).
HOST_OPT ?= -O2 -g
# Where every build looks for the workbook's headers: the checkout, and public/, the folder of
# the headers a student file may include, laid out by the names it includes them by
# (public/common/cuda_check.h is "common/cuda_check.h"). A student file's build looks in public/
# alone (STUDENT_CU below).
PUBLIC := public
INCLUDES := -I. -I$(PUBLIC)
CXXFLAGS := -std=c++17 $(HOST_OPT) -Wall -Wextra $(INCLUDES)


# One question to the driver, the only process a parse starts: each GPU's compute capability
# ("9.0"), or nothing without a GPU.
GPU_CAPS := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null)
HAVE_GPU := $(if $(GPU_CAPS),yes)
BACKEND ?= $(if $(HAVE_GPU),gpu,cpu)
ifeq ($(filter $(BACKEND),gpu cpu),)
$(error BACKEND must be gpu or cpu, not '$(BACKEND)')
endif
ARCH ?= $(if $(GPU_CAPS),sm_$(subst .,,$(firstword $(GPU_CAPS))),sm_90)
FLAVOR := $(BACKEND)$(if $(DEBUG),-debug)

include cpusim/cpusim.mk

# How each flavor compiles a student file (.cu) and host code that calls the CUDA runtime
# (.cpp), and links. GPU: nvcc, and g++ against the toolkit's headers. CPU backend: cpucc.
NVCC_BASE := $(NVCC) -std=c++17 -arch=$(ARCH) -Xptxas=--warn-on-spills,--warn-on-local-memory-usage $(INCLUDES)
CU_gpu := $(NVCC_BASE) -O3 -lineinfo
CU_gpu-debug := $(NVCC_BASE) -G -O0 -DLAB_DEBUG_SYNC
CPP_gpu := $(CXX) $(CXXFLAGS) -I$(CUDA_HOME)/include
CPP_gpu-debug := $(CPP_gpu) -DLAB_DEBUG_SYNC
# Every copy between host and device passes through harness/host_copies.cpp, which counts them.
WRAP_COPIES := $(foreach f,cudaMemcpy cudaMemcpyAsync cudaMemcpy2D cudaMemcpy2DAsync cudaMemcpyToSymbol \
  cudaMemcpyFromSymbol cudaMemcpyToSymbolAsync cudaMemcpyFromSymbolAsync,-Xlinker --wrap=$(f))
LINK_gpu := $(NVCC) -arch=$(ARCH) $(WRAP_COPIES)
LINK_gpu-debug := $(LINK_gpu)
CU_cpu := $(CPUCC) -O2 $(INCLUDES)
CU_cpu-debug := $(CPUCC) -O0 -g -D LAB_DEBUG_SYNC $(INCLUDES)
CU_cpu-asan := $(CPUCC) -O1 -g -fsanitize=address $(INCLUDES)
CU_cpu-tsan := $(CPUCC) -O1 -g -fsanitize=thread $(INCLUDES)
# Counts each kernel's global loads, stores and atomics (the grader's technique check).
CU_cpu-count := $(CPUCC) -O2 --count-accesses $(INCLUDES)
$(foreach f,cpu cpu-debug cpu-asan cpu-tsan cpu-count,$(eval LINK_$(f) := $(CU_$(f))))
$(foreach f,cpu cpu-debug cpu-asan cpu-tsan cpu-count,$(eval CU_$(f) += -MMD))
$(foreach f,cpu cpu-debug cpu-asan cpu-tsan cpu-count,$(eval CPP_$(f) := $(CU_$(f))))
CU_gpu += -MMD -MP
CU_gpu-debug += -MMD -MP
CPP_gpu += -MMD -MP
CPP_gpu-debug += -MMD -MP
FLAVORS := gpu gpu-debug cpu cpu-debug cpu-asan cpu-tsan cpu-count
# A student file sees the lab's public headers only, the folder $(PUBLIC) itself, never the rest
# of the checkout: `#include "solutions/..."` and `#include "common/problems.h"` do not resolve.
# The folder itself, not a copy of chosen files: what it holds is what a student may include,
# with no list of names to keep beside it, and no copy left in a build folder once a header
# leaves it (the grader tells a student the same folder's files: grading/core/check_build.cpp).
# -MD lists every header the build read, the compilers' own included, for the grader to check
# that nothing else was reached (grading/core/submission.h). A student's object is built again
# when one of the folder's headers changes (each lies in the folder its name starts with).
PUBLIC_HEADERS := $(wildcard $(PUBLIC)/*/*.h)
$(foreach f,$(FLAVORS),$(eval STUDENT_CU_$(f) := $(filter-out $(INCLUDES) -MMD,$(CU_$(f))) -I$(PUBLIC) -MD))
# The CPU flavors compile once the backend's runtime is built, and link against its library.
$(foreach f,$(FLAVORS),$(eval DEPS_$(f) := $(if $(filter cpu%,$(f)),| cpusim-runtime)))
RUNTIME_LIB_cpu := $(call cpusim_runtime_lib,plain)
RUNTIME_LIB_cpu-debug := $(call cpusim_runtime_lib,debug)
RUNTIME_LIB_cpu-asan := $(call cpusim_runtime_lib,asan)
RUNTIME_LIB_cpu-tsan := $(call cpusim_runtime_lib,tsan)
RUNTIME_LIB_cpu-count := $(call cpusim_runtime_lib,count)


.PHONY: deps deps-backend
# The Debian packages the build needs, installed when missing (scripts/install-deps): doctest
# for the tests, universal-ctags for the maintainers' checks of undefined functions and of sizes
# (not in the students' copy), Boost.Context wherever the CPU backend is used.
## install the Debian packages the tests need, when missing
deps:
	@scripts/install-deps doctest $(if $(wildcard scripts/undefined-functions scripts/size-limits),ctags) $(if $(filter cpu,$(BACKEND) $(TEST_BACKENDS)),boost)
## install the Debian packages the CPU backend needs, when missing
deps-backend:
	@$(if $(filter cpu,$(BACKEND)),scripts/install-deps boost,true)
