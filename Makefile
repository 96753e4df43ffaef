# rocm-vla-doctor - see README.md. `make` builds, `make test` runs every test
# layer that needs no GPU, `make asan-test` the same under ASan+UBSan.
CC      ?= gcc
PKGS    := yaml-0.1 ncursesw libpci zlib
BUILD   ?= build
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
CPPFLAGS_ALL = -std=c11 -D_GNU_SOURCE $(WARN) $(shell pkg-config --cflags $(PKGS) 2>/dev/null) \
               -I. -MMD -MP
LDLIBS_ALL   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -ldl -lm

# quiet by default; `make V=1` prints every command
Q = $(if $(V),,@)
say = $(if $(V),,@echo "  $(1) $(2)")

SRCS    := $(wildcard src/*.c) $(wildcard src/*/*.c) $(wildcard probes/*.c)
KERNELS := $(wildcard kernels/*.hip)
OBJS    := $(SRCS:%.c=$(BUILD)/%.o) $(BUILD)/src/embed.o $(BUILD)/src/vla/embed_models.o
OBJS    += $(BUILD)/kernels.o
LIBOBJS := $(filter-out $(BUILD)/src/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# fake vendor libraries (tests/fake/): a libamdhip64, a libhsa-runtime64 and a
# librocm_smi64 whose devices come from the environment, loaded by test_gpu_pairing
FAKE_LIBS := $(BUILD)/tests/fake/libamdhip64.so $(BUILD)/tests/fake/libhsa-runtime64.so \
             $(BUILD)/tests/fake/librocm_smi64.so

BIN     := $(BUILD)/rocm-vla-doctor

# fuzz harnesses (tests/fuzz/fuzz_<parser>.c): built with libFuzzer by `make
# fuzz`, and with tests/fuzz/replay_main.c (no fuzzing) for the replay of
# every corpus file and crash reproducer that `make test` runs
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAYS := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/replay_%)
FUZZ_HDRS    := $(wildcard tests/fuzz/*.h)

all: $(BUILD)/.deps rocm-vla-doctor

$(BUILD)/.deps:
	@mkdir -p $(BUILD)
	@tools/ensure-deps.sh build
	@touch $@

$(BIN): $(OBJS)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS_ALL)

rocm-vla-doctor: $(BIN)
	cp $(BIN) $@

$(BUILD)/%.o: %.c | $(BUILD)/.deps
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS) -c -o $@ $<

$(BUILD)/src/embed.o: src/embed.S checks.yaml | $(BUILD)/.deps
	@mkdir -p $(dir $@)
	$(CC) -c -I. -o $@ src/embed.S

$(BUILD)/src/vla/embed_models.o: src/vla/embed_models.S $(wildcard models/*.yaml) | $(BUILD)/.deps
	@mkdir -p $(dir $@)
	$(CC) -c -I. -o $@ src/vla/embed_models.S

# every kernels/*.hip built in as a string (src/gpu/kcache.c): a table of
# {name, start, end} with .incbin, so no xxd is needed
$(BUILD)/kernels.S: $(KERNELS) Makefile
	@mkdir -p $(dir $@)
	@{ echo '.section .rodata'; i=0; for k in $(KERNELS); do \
	   echo "rvd_kn$$i: .asciz \"$$(basename $$k .hip)\""; \
	   echo "rvd_ks$$i: .incbin \"$$k\""; echo "rvd_ke$$i: .byte 0"; i=$$((i+1)); done; \
	   echo '.section .data.rel.ro'; echo '.balign 8'; echo '.global rvd_kernels'; \
	   echo 'rvd_kernels:'; i=0; for k in $(KERNELS); do \
	   echo ".quad rvd_kn$$i, rvd_ks$$i, rvd_ke$$i"; i=$$((i+1)); done; \
	   echo '.quad 0, 0, 0'; echo '.section .note.GNU-stack,"",@progbits'; } > $@

$(BUILD)/kernels.o: $(BUILD)/kernels.S $(KERNELS)
	$(CC) -c -I. -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIBOBJS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS) -o $@ $< $(LIBOBJS) $(LDLIBS_ALL)

# built without the sanitizers: they are dlopen'd like the vendor's
$(BUILD)/tests/fake/libamdhip64.so: tests/fake/fake_hip.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Werror -shared -fPIC -o $@ $<
$(BUILD)/tests/fake/libhsa-runtime64.so: tests/fake/fake_hsa.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Werror -shared -fPIC -o $@ $<
$(BUILD)/tests/fake/librocm_smi64.so: tests/fake/fake_rsmi.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Werror -shared -fPIC -o $@ $<

$(BUILD)/tests/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c $(FUZZ_HDRS) $(LIBOBJS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS) -o $@ $< tests/fuzz/replay_main.c $(LIBOBJS) $(LDLIBS_ALL)

# libFuzzer binaries: only inside `make fuzz` (BUILD=build-fuzz, clang)
$(BUILD)/tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_HDRS) $(LIBOBJS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS) -DRVD_FUZZING -fsanitize=fuzzer -o $@ $< $(LIBOBJS) $(LDLIBS_ALL)

fuzz-bins: $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/fuzz_%)

# every harness for FUZZ_SECONDS (one at a time) with clang's libFuzzer,
# ASan and UBSan; new crashes go to tests/fuzz/crashes/<harness>/, the table
# of executions, seconds and findings to build-fuzz/summary.txt.
# FUZZ_ONLY="expr json" runs some harnesses only.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
fuzz:
	@tools/ensure-deps.sh fuzz
	$(MAKE) BUILD=build-fuzz CC=$(FUZZ_CC) LDFLAGS="-fsanitize=address,undefined" \
		CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -Wno-error=format-nonliteral" \
		fuzz-bins
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh build-fuzz $(FUZZ_ONLY)

# the replay alone (also part of `make test`)
fuzz-replay: $(BUILD)/.deps $(FUZZ_REPLAYS)
	@BUILD=$(BUILD) sh tests/fuzz_replay.sh

# the doctor on this machine
# the doctor's own exit status (1 = findings) is reported, not treated as a
# build failure
run: all
	@./rocm-vla-doctor; rc=$$?; echo "(rocm-vla-doctor exit status $$rc: 0 no failure, 1 findings above, 2 usage, 3 internal)"; [ $$rc -le 1 ]

test: $(BUILD)/.deps $(BIN) $(UNIT_BINS) $(FAKE_LIBS) $(FUZZ_REPLAYS)
	@tools/ensure-deps.sh test
	@BUILD=$(BUILD) RVD=$(BIN) tests/run.sh

# on a machine with a GPU: every GPU probe through the real runtime, sanity-checked
test-gpu: $(BUILD)/.deps $(BIN)
	@BUILD=$(BUILD) RVD=$(BIN) sh tests/gpu_device.sh

# on the device machine (a developer through the device tool, never CI): the VLA
# pass against PyTorch eager and one CUDA graph on the same weights, written into
# docs/PERFORMANCE.md (tools/vla_bench.sh). RVD=path uses a prebuilt binary.
# Then the dashboard's CPU share at a 100 ms refresh on the 8-GPU MI300X
# fixture (tools/tui_cost.sh; tmux, no GPU needed; TUI_COST_ONLY=1 runs it alone).
bench:
	@test -n "$$RVD" || $(MAKE) BUILD=$(BUILD) $(BIN)
	@test -n "$$TUI_COST_ONLY" || RVD=$${RVD:-$(BIN)} sh tools/vla_bench.sh
	@RVD=$${RVD:-$(BIN)} sh tools/tui_cost.sh

# the same suite built with AddressSanitizer and UndefinedBehaviorSanitizer
# handle_segv=0: the isolation tests crash children on purpose and check that
# the parent reports SIGSEGV; ASan's own handler would turn that into exit 1
asan-test:
	ASAN_OPTIONS=handle_segv=0:detect_leaks=1 $(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" test

# the code builds warning-free (-Werror) with gcc and clang at every -O level
# and with the sanitizers, each into its own tree (build-cc/); the unit tests
# run with the clang build
CC_BUILDS := gcc:-O0 gcc:-O1 gcc:-O2 gcc:-O3 clang:-O0 clang:-O1 clang:-O2 clang:-O3 \
             gcc:-O1_-fsanitize=address,undefined clang:-O1_-fsanitize=address,undefined
compilers:
	@set -e; for b in $(CC_BUILDS); do cc=$${b%%:*}; fl=$$(echo "$${b#*:}" | tr _ ' '); \
	  dir=build-cc/$$cc$$(echo "$$fl" | tr -d ' =,'); echo "  BUILD $$cc $$fl"; \
	  $(MAKE) --no-print-directory CC=$$cc BUILD=$$dir CFLAGS="$$fl -g" LDFLAGS="$$fl" \
	    $$dir/rocm-vla-doctor unit-bins >/dev/null; done
	@for t in build-cc/clang-O2/tests/test_*; do [ -x "$$t" ] || continue; \
	  "$$t" >/dev/null 2>&1 || { echo "FAIL $$t (clang -O2)"; exit 1; }; done; \
	  echo "unit tests pass with clang -O2"

unit-bins: $(BIN) $(UNIT_BINS) $(FAKE_LIBS)

format:
	clang-format -i src/*.c src/*.h src/*/*.c src/*/*.h probes/*.c probes/*.h tests/unit/*.c tests/unit/*.h

clean:
	rm -rf build build-asan build-cc build-fuzz build-clang rocm-vla-doctor tests/out

.PHONY: all run test test-gpu bench asan-test clean format compilers unit-bins fuzz fuzz-bins fuzz-replay
-include $(OBJS:.o=.d)
