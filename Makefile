# schedlint — plain Makefile; dependencies through pkg-config.
#   make            build ./schedlint
#   make check      the whole suite, under AddressSanitizer + UndefinedBehaviorSanitizer
#   make demo       the seed's GPU rollout deadlock, proven
#   make install PREFIX=/usr/local DESTDIR=
# `make check` and `make demo` install missing build dependencies first (tests/deps.sh).

CC      ?= cc
PKGS    := yaml-0.1 libpcre2-8 libcjson
PREFIX  ?= /usr/local
DESTDIR ?=
SHARED  ?= ../shared
CFLAGS  ?= -O2 -g
STD     := -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -pthread
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -pthread
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

SRC      := $(sort $(wildcard linter/*.c) $(wildcard rules/*.c))
LIBSRC   := $(filter-out linter/main.c,$(SRC))
OBJ      := $(SRC:%.c=build/rel/%.o)
ASANOBJ  := $(SRC:%.c=build/asan/%.o)
ASANLIB  := $(LIBSRC:%.c=build/asan/%.o)
HDR      := $(wildcard linter/*.h rules/*.h)

.PHONY: all check check-run check-valgrind demo install uninstall clean deps format bench fuzz fuzz-build
all: schedlint

schedlint: $(OBJ)
	$(CC) $(CFLAGS) -o $@ $(OBJ) $(PKG_LIBS)

build/rel/%.o: %.c $(HDR)
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

build/asan/%.o: %.c $(HDR)
	@mkdir -p $(dir $@)
	$(CC) $(STD) -O1 -g $(SAN) $(PKG_CFLAGS) -c -o $@ $<

build/asan/schedlint: $(ASANOBJ)
	$(CC) $(SAN) -o $@ $(ASANOBJ) $(PKG_LIBS)

build/asan/unit: tests/unit.c $(ASANLIB)
	$(CC) $(STD) -O1 -g $(SAN) $(PKG_CFLAGS) -o $@ $< $(ASANLIB) $(PKG_LIBS)

build/asan/conformance: tests/conformance.c $(ASANLIB)
	$(CC) $(STD) -O1 -g $(SAN) $(PKG_CFLAGS) -o $@ $< $(ASANLIB) $(PKG_LIBS)

deps:
	@sh tests/deps.sh

demo: deps
	@$(MAKE) --no-print-directory schedlint
	@echo '$$ ./schedlint --nodes fixtures/rollout-deadlock/seed-gpu-tracker/nodes.yaml fixtures/rollout-deadlock/seed-gpu-tracker/manifest.yaml'
	@./schedlint --nodes fixtures/rollout-deadlock/seed-gpu-tracker/nodes.yaml \
		fixtures/rollout-deadlock/seed-gpu-tracker/manifest.yaml; \
		rc=$$?; echo "(exit status $$rc: 1 means findings)"; test $$rc -eq 1

check: deps
	@$(MAKE) --no-print-directory check-run

check-run: schedlint build/asan/schedlint build/asan/unit build/asan/conformance
	@SHARED=$(SHARED) sh tests/run-all.sh

# libFuzzer harnesses (clang; Debian: clang libclang-rt-dev). make fuzz FUZZ_SECONDS=600
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := $(STD) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZOBJ      := $(LIBSRC:%.c=build/fuzz/obj/%.o) build/fuzz/obj/tests/fuzz/fuzz_file.o
FUZZERS      := manifests nodes pods pipeline config quantity

build/fuzz/obj/%.o: %.c $(HDR) tests/fuzz/fuzz.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(PKG_CFLAGS) -c -o $@ $<

build/fuzz/fuzz-manifests: tests/fuzz/fuzz_model.c $(FUZZOBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -o $@ $< $(FUZZOBJ) $(PKG_LIBS)
build/fuzz/fuzz-nodes: tests/fuzz/fuzz_model.c $(FUZZOBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -DFUZZ_ROLE=SL_ROLE_NODES -o $@ $< $(FUZZOBJ) $(PKG_LIBS)
build/fuzz/fuzz-pods: tests/fuzz/fuzz_model.c $(FUZZOBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -DFUZZ_ROLE=SL_ROLE_PODS -o $@ $< $(FUZZOBJ) $(PKG_LIBS)
build/fuzz/fuzz-%: tests/fuzz/fuzz_%.c $(FUZZOBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -o $@ $< $(FUZZOBJ) $(PKG_LIBS)

fuzz-build: $(FUZZERS:%=build/fuzz/fuzz-%)

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(SHARED)

check-valgrind: schedlint
	@sh tests/run-valgrind.sh ./schedlint

bench: schedlint
	@SHARED=$(SHARED) sh tests/bench.sh

install: schedlint
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 schedlint $(DESTDIR)$(PREFIX)/bin/schedlint
	install -m 644 docs/schedlint.1 $(DESTDIR)$(PREFIX)/share/man/man1/schedlint.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/schedlint $(DESTDIR)$(PREFIX)/share/man/man1/schedlint.1

format:
	clang-format -i $(SRC) $(HDR) tests/*.c

clean:
	rm -rf build schedlint
