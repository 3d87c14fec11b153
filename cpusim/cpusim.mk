# cpusim, the CPU backend: mk/config.mk includes this once BUILD is defined.
#   cpusim-runtime   the runtime library in its five flavors (build/cpusim/<flavor>/libcpusim.a)
#   cpusim-suite     the suite of small CUDA programs (cpusim/tests/suite/) in $(BUILD)/cpu/cpusim-suite/
#   cpusim-table     runs the suite and prints one line per program (compare: run-on-gpu.sh)
#   cpusim-samples   the sample-style programs (cpusim/tests/samples/), without and with the toolkit's headers
#   bench-cpusim     fiber switch cost and a 512^3 tiled matmul, on one OS thread
# cpucc keeps its own cache in build/cpusim (content stamps, flock), so these rules only say
# when to ask it; it is safe under make -j.

CPUCC := cpusim/cpucc
CPUSIM_CACHE := $(BUILD)/cpusim
export CPUSIM_CACHE_DIR := $(abspath $(CPUSIM_CACHE))
CPUSIM_FLAVORS := plain debug asan tsan count
CPUSIM_HEADERS := $(wildcard cpusim/include/*.h cpusim/include/cpusim/*.h)
CPUSIM_RUNTIME_SOURCES := $(wildcard cpusim/src/*.cpp cpusim/src/*.h) $(CPUSIM_HEADERS) \
  $(wildcard cpusim/rewrite/*.cpp cpusim/rewrite/*.h) $(CPUCC)
# The runtime library of a flavor, for the rules that link against it: $(call cpusim_runtime_lib,plain).
cpusim_runtime_lib = $(CPUSIM_CACHE)/$(1)/libcpusim.a
CPUSIM_RUNTIME_LIBS := $(foreach f,$(CPUSIM_FLAVORS),$(call cpusim_runtime_lib,$(f)))

.PHONY: cpusim-runtime cpusim-suite cpusim-table cpusim-samples bench-cpusim
## the CPU backend's runtime library, in its five flavors
cpusim-runtime: $(CPUSIM_RUNTIME_LIBS)

# When cpucc finds its stamp current it builds nothing; the touch tells make so.
$(CPUSIM_CACHE)/%/libcpusim.a: $(CPUSIM_RUNTIME_SOURCES)
	$(CPUCC) --build-runtime $*
	@touch $@

# ---- the suite ----
CPUSIM_SUITE_DIR := $(BUILD)/cpu/cpusim-suite
CPUSIM_SUITE_PROGRAMS := vector_add matmul_shared warp_reduce indexing shared_static shared_dynamic \
  sync_variants warp_ops atomics vector_types math_funcs templates runtime_api printf_kernel \
  too_many_threads error_semantics big_dynamic_smem uninitialized missing_barrier divergent_barrier \
  early_return_barrier warp_mask_exited oob_global oob_shared race_blocks assert_fail \
  crash_null host_pointer_arg misaligned_float4 stack_overflow spin_wait
CPUSIM_SUITE_ASAN := oob_global oob_shared vector_add
CPUSIM_SUITE_TSAN := race_blocks missing_barrier matmul_shared warp_reduce
CPUSIM_SUITE_COUNT := access_patterns
# Also built: host_main (a .cu and a .cpp file), and two programs that nvcc does not build:
# compile_fail/static_smem_too_big (ptxas rejects it), cpu_only/kernel_exception and cpu_only/copy_counts.
CPUSIM_SUITE_PLAIN_BINS := $(addprefix $(CPUSIM_SUITE_DIR)/,$(CPUSIM_SUITE_PROGRAMS) host_main \
  static_smem_too_big kernel_exception copy_counts)
CPUSIM_SUITE_ASAN_BINS := $(addprefix $(CPUSIM_SUITE_DIR)/,$(addsuffix .asan,$(CPUSIM_SUITE_ASAN)))
CPUSIM_SUITE_TSAN_BINS := $(addprefix $(CPUSIM_SUITE_DIR)/,$(addsuffix .tsan,$(CPUSIM_SUITE_TSAN)))
CPUSIM_SUITE_COUNT_BINS := $(addprefix $(CPUSIM_SUITE_DIR)/,$(addsuffix .count,$(CPUSIM_SUITE_COUNT)))
CPUSIM_SUITE_BINS := $(CPUSIM_SUITE_PLAIN_BINS) $(CPUSIM_SUITE_ASAN_BINS) $(CPUSIM_SUITE_TSAN_BINS) \
  $(CPUSIM_SUITE_COUNT_BINS)
CPUSIM_SUITE_DEPS := $(wildcard cpusim/tests/suite/*.cuh) $(CPUSIM_HEADERS)

## the CPU backend's suite of small CUDA programs (cpusim/tests/suite/)
cpusim-suite: $(CPUSIM_SUITE_BINS)

$(CPUSIM_SUITE_DIR):
	mkdir -p $@

$(addprefix $(CPUSIM_SUITE_DIR)/,$(CPUSIM_SUITE_PROGRAMS) bench_cpusim): $(CPUSIM_SUITE_DIR)/%: cpusim/tests/suite/%.cu \
    $(CPUSIM_SUITE_DEPS) $(CPUSIM_CACHE)/plain/libcpusim.a | $(CPUSIM_SUITE_DIR)
	$(CPUCC) -O2 $< -o $@
$(CPUSIM_SUITE_ASAN_BINS): $(CPUSIM_SUITE_DIR)/%.asan: cpusim/tests/suite/%.cu $(CPUSIM_SUITE_DEPS) \
    $(CPUSIM_CACHE)/asan/libcpusim.a | $(CPUSIM_SUITE_DIR)
	$(CPUCC) -fsanitize=address $< -o $@
$(CPUSIM_SUITE_TSAN_BINS): $(CPUSIM_SUITE_DIR)/%.tsan: cpusim/tests/suite/%.cu $(CPUSIM_SUITE_DEPS) \
    $(CPUSIM_CACHE)/tsan/libcpusim.a | $(CPUSIM_SUITE_DIR)
	$(CPUCC) -fsanitize=thread $< -o $@
$(CPUSIM_SUITE_COUNT_BINS): $(CPUSIM_SUITE_DIR)/%.count: cpusim/tests/suite/%.cu $(CPUSIM_SUITE_DEPS) \
    $(CPUSIM_CACHE)/count/libcpusim.a | $(CPUSIM_SUITE_DIR)
	$(CPUCC) -O2 --count-accesses $< -o $@
$(CPUSIM_SUITE_DIR)/copy_counts: cpusim/tests/suite/cpu_only/copy_counts.cu $(CPUSIM_HEADERS) \
    $(CPUSIM_CACHE)/plain/libcpusim.a | $(CPUSIM_SUITE_DIR)
	$(CPUCC) -O2 $< -o $@
$(CPUSIM_SUITE_DIR)/kernel_exception: cpusim/tests/suite/cpu_only/kernel_exception.cu $(CPUSIM_HEADERS) \
    $(CPUSIM_CACHE)/plain/libcpusim.a | $(CPUSIM_SUITE_DIR)
	$(CPUCC) -O2 $< -o $@
$(CPUSIM_SUITE_DIR)/static_smem_too_big: cpusim/tests/suite/compile_fail/static_smem_too_big.cu $(CPUSIM_SUITE_DEPS) \
    $(CPUSIM_CACHE)/plain/libcpusim.a | $(CPUSIM_SUITE_DIR)
	$(CPUCC) -O2 $< -o $@

# A kernel file and a host .cpp file, compiled separately and linked (cpucc -c).
$(CPUSIM_SUITE_DIR)/host_kernels.o: cpusim/tests/suite/host_kernels.cu cpusim/tests/suite/host_launcher.h $(CPUSIM_HEADERS) \
    $(CPUSIM_CACHE)/plain/libcpusim.a | $(CPUSIM_SUITE_DIR)
	$(CPUCC) -O2 -c $< -o $@
$(CPUSIM_SUITE_DIR)/host_main.o: cpusim/tests/suite/host_main.cpp cpusim/tests/suite/host_launcher.h $(CPUSIM_HEADERS) \
    $(CPUSIM_CACHE)/plain/libcpusim.a | $(CPUSIM_SUITE_DIR)
	$(CPUCC) -O2 -c $< -o $@
$(CPUSIM_SUITE_DIR)/host_main: $(CPUSIM_SUITE_DIR)/host_kernels.o $(CPUSIM_SUITE_DIR)/host_main.o
	$(CPUCC) $^ -o $@

# ---- the sample-style programs ----
# Programs written as cuda-samples and textbooks write them (cpusim/tests/samples/), built twice:
# on their own, each compiled with -MD so that the test can check that no header of the CUDA
# Toolkit was read (this machine may have them on the compiler's default path); and with the
# toolkit's include folder (beside nvcc) on the path, where there is one, which must change nothing.
CPUSIM_SAMPLES_DIR := $(BUILD)/cpu/cpusim-samples
CPUSIM_SAMPLES := error_checks device_query reduction_cg vote histogram_atomics clock_timing profiler occupancy \
  grid_sync multi_warp_tiles
CPUSIM_TOOLKIT_INCLUDE := $(patsubst %/cuda_runtime_api.h,%,$(wildcard $(abspath $(dir $(NVCC))../include)/cuda_runtime_api.h))
CPUSIM_SAMPLES_BINS := $(addprefix $(CPUSIM_SAMPLES_DIR)/,$(CPUSIM_SAMPLES)) \
  $(if $(CPUSIM_TOOLKIT_INCLUDE),$(addprefix $(CPUSIM_SAMPLES_DIR)/with-toolkit/,$(CPUSIM_SAMPLES) toolkit_headers))
CPUSIM_SAMPLES_DEPS := cpusim/tests/samples/sample_helper.h $(CPUSIM_HEADERS) $(wildcard cpusim/include/cooperative_groups/*.h) \
  $(CPUSIM_CACHE)/plain/libcpusim.a

## the sample-style programs (cpusim/tests/samples/), without and with the CUDA Toolkit's headers
cpusim-samples: $(CPUSIM_SAMPLES_BINS)

$(CPUSIM_SAMPLES_DIR)/%.o: cpusim/tests/samples/%.cu $(CPUSIM_SAMPLES_DEPS)
	@mkdir -p $(@D)
	$(CPUCC) -O2 -c -MD $< -o $@
$(addprefix $(CPUSIM_SAMPLES_DIR)/,$(CPUSIM_SAMPLES)): %: %.o
	$(CPUCC) $< -o $@
.SECONDARY: $(addprefix $(CPUSIM_SAMPLES_DIR)/,$(addsuffix .o,$(CPUSIM_SAMPLES)))  # their .d files are the test's
$(CPUSIM_SAMPLES_DIR)/with-toolkit/%: cpusim/tests/samples/%.cu $(CPUSIM_SAMPLES_DEPS)
	@mkdir -p $(@D)
	$(CPUCC) -O2 -I$(CPUSIM_TOOLKIT_INCLUDE) $< -o $@
# The toolkit's folder on the compiler's default path (CPATH) rather than -I, and headers only it has.
$(CPUSIM_SAMPLES_DIR)/with-toolkit/toolkit_headers: cpusim/tests/samples/toolkit/toolkit_headers.cu $(CPUSIM_SAMPLES_DEPS)
	@mkdir -p $(@D)
	CPATH=$(CPUSIM_TOOLKIT_INCLUDE) $(CPUCC) -O2 $< -o $@

## runs the suite, a line per program (compare: cpusim/tests/suite/run-on-gpu.sh)
cpusim-table: cpusim-suite
	CPUSIM_SUITE_DIR=$(CPUSIM_SUITE_DIR) cpusim/tests/suite/run-on-cpu.sh

## fiber switch cost and a 512^3 tiled matmul, on one OS thread
bench-cpusim: $(CPUSIM_SUITE_DIR)/bench_cpusim
	CPUSIM_THREADS=1 $<
