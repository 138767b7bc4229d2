# schedlint — plain Makefile; dependencies through pkg-config.
#   make            build ./schedlint
#   make check      the whole suite, under AddressSanitizer + UndefinedBehaviorSanitizer
#   make demo       the seed's GPU rollout deadlock, proven
#   make install PREFIX=/usr/local DESTDIR=   the binary, the man page and the rule docs
#   make dist       build/schedlint-<VERSION>.tar.gz, the source that builds on its own
#   make deb        the Debian package (debian/), built from that tarball, copied into build/
# `make check` and `make demo` install missing build dependencies first (tests/deps.sh); a plain
# `make` says which are missing, and how to get them, before it compiles anything.

CC      ?= cc
PKGS    := yaml-0.1 libpcre2-8 libcjson
PREFIX  ?= /usr/local
DESTDIR ?=
DOCDIR  ?= $(PREFIX)/share/doc/schedlint
SHARED  ?= ../shared
# -flto: the hot paths call small functions of other files (the tree builder's per event, the
# scheduler engine's per node); optimised across files, the corpus's run takes about 14 M fewer
# instructions (1.6 %). Link-time optimisation is gcc's and clang's alike; CFLAGS=-O2 builds without.
# -O3 unrolls and inlines the per-node loops of the scheduler engine and the tree builder's per-event
# steps further (7 M fewer on the corpus); -fno-plt calls libyaml and libc through the GOT, one jump
# fewer per call (the parse makes two calls into libyaml per event: 1 M). Neither changes a result:
# no -ffast-math, the same C semantics.
# -gdwarf-4: valgrind (the instructions suite's callgrind) cannot read the DWARF 5 that clang 14
# writes for a link-time optimised binary.
CFLAGS  ?= -O3 -fno-plt -g -gdwarf-4 -flto=auto
STD     := -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -pthread
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -pthread
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

SRC      := $(sort $(wildcard linter/*.c linter/*/*.c rules/*.c))
LIBSRC   := $(filter-out linter/main.c linter/options.c,$(SRC))
OBJ      := $(SRC:%.c=build/rel/%.o)
ASANOBJ  := $(SRC:%.c=build/asan/%.o)
ASANLIB  := $(LIBSRC:%.c=build/asan/%.o)
HDR      := $(wildcard linter/*.h linter/*/*.h rules/*.h)

.PHONY: all check check-run check-valgrind demo install uninstall dist deb clean deps depcheck format bench fuzz fuzz-build FORCE
all: schedlint

# Before anything compiles: missing libraries are named, with the packages that bring them.
depcheck:
	@CC='$(CC)' sh tests/deps.sh --check
$(OBJ) $(ASANOBJ): | depcheck

# --help names where `make install` puts the rule docs: options.o (its text) is rebuilt when DOCDIR changes.
HELPOBJ := build/rel/linter/options.o build/asan/linter/options.o
$(HELPOBJ): DEFS = -DSL_DOCDIR='"$(DOCDIR)"'
$(HELPOBJ): build/docdir
build/docdir: FORCE
	@mkdir -p build
	@echo '$(DOCDIR)' | cmp -s - $@ || echo '$(DOCDIR)' >$@

# The version is the VERSION file's (a release bumps it, docs/releasing.md); a build from a git
# checkout adds `git describe` for --version alone (a tarball has no .git, and reports never show
# it, so no golden depends on the commit). Only version.o carries them, rebuilt when they change.
VERSION  := $(shell cat VERSION)
DESCRIBE := $(shell test -e .git && git describe --tags --always --dirty 2>/dev/null)
VERSIONOBJ := build/rel/linter/report/version.o build/asan/linter/report/version.o \
	build/fuzz/obj/linter/report/version.o
$(VERSIONOBJ): DEFS = -DSL_VERSION_STR='"$(VERSION)"' \
	$(if $(filter-out v$(VERSION),$(DESCRIBE)),-DSL_VERSION_LONG='"$(DESCRIBE)"')
$(VERSIONOBJ): build/version
build/version: FORCE
	@mkdir -p build
	@echo '$(VERSION) $(DESCRIBE)' | cmp -s - $@ || echo '$(VERSION) $(DESCRIBE)' >$@

# CPPFLAGS and LDFLAGS are the packager's (Debian's hardening: _FORTIFY_SOURCE, relro, now).
schedlint: $(OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJ) $(PKG_LIBS)

# Objects are rebuilt when CFLAGS change (link-time optimisation or not must not be mixed).
build/cflags: FORCE
	@mkdir -p build
	@echo '$(CC) $(CPPFLAGS) $(CFLAGS)' | cmp -s - $@ || echo '$(CC) $(CPPFLAGS) $(CFLAGS)' >$@

build/rel/%.o: %.c $(HDR) build/cflags
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(CPPFLAGS) $(CFLAGS) $(DEFS) $(PKG_CFLAGS) -c -o $@ $<

build/asan/%.o: %.c $(HDR)
	@mkdir -p $(dir $@)
	$(CC) $(STD) -O1 -g $(SAN) $(DEFS) $(PKG_CFLAGS) -c -o $@ $<

build/asan/schedlint: $(ASANOBJ)
	$(CC) $(SAN) -o $@ $(ASANOBJ) $(PKG_LIBS)

UNIT := tests/unit.c tests/unit_lsp.c tests/unit_output.c tests/unit_fix.c tests/unit_tolerations.c tests/unit_kflavor.c tests/unit_cluster.c tests/unit_placefits.c tests/unit_search.c tests/unit_release_preempt.c \
	tests/unit_source.c tests/unit_ysplit.c tests/unit_time.c tests/unit_jsonw.c tests/unit_priority.c tests/unit_nodepool.c tests/unit_job.c tests/unit_gang.c tests/unit_similar.c tests/unit_gates.c \
	tests/unit_storage.c tests/unit_dra.c tests/unit_cel.c tests/unit_postfilter.c tests/unit_relate.c
build/asan/unit: $(UNIT) tests/unit.h $(ASANLIB)
	$(CC) $(STD) -O1 -g $(SAN) $(PKG_CFLAGS) -o $@ $(UNIT) $(ASANLIB) $(PKG_LIBS)

build/asan/conformance: tests/conformance.c tests/conformance_release.c tests/conformance.h $(ASANLIB)
	$(CC) $(STD) -O1 -g $(SAN) $(PKG_CFLAGS) -o $@ tests/conformance.c tests/conformance_release.c $(ASANLIB) $(PKG_LIBS)

# The scripted language server client (tests/run-lsp.sh): its own framing, cJSON for the rest.
LSPCLIENT := tests/lspclient.c tests/lspclient_docs.c tests/lspclient_incr.c tests/lspclient_protocol.c
build/asan/lspclient: $(LSPCLIENT) tests/lspclient.h
	@mkdir -p $(dir $@)
	$(CC) $(STD) -O1 -g $(SAN) $(PKG_CFLAGS) -o $@ $(LSPCLIENT) $(PKG_LIBS)

# The floor the instruction count is held against: libyaml's event parser alone (run-instructions.sh).
build/bareparse: tests/bareparse.c
	@mkdir -p build
	$(CC) $(STD) -O2 $(PKG_CFLAGS) -o $@ $< $(PKG_LIBS)

# Time and peak memory of a command, for the tests that bound hostile input.
build/rusage: tests/rusage.c
	@mkdir -p build
	$(CC) $(STD) -O2 -o $@ $<

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

check-run: schedlint build/asan/schedlint build/asan/unit build/asan/conformance build/asan/lspclient build/rusage build/bareparse
	@SHARED=$(SHARED) sh tests/run-all.sh

# libFuzzer harnesses (clang; Debian: clang libclang-rt-dev). make fuzz FUZZ_SECONDS=600
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := $(STD) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZOBJ      := $(LIBSRC:%.c=build/fuzz/obj/%.o) build/fuzz/obj/tests/fuzz/fuzz_file.o
FUZZERS      := manifests nodes pods pipeline config quantity lsp cel

build/fuzz/obj/%.o: %.c $(HDR) tests/fuzz/fuzz.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(DEFS) $(PKG_CFLAGS) -c -o $@ $<

build/fuzz/fuzz-manifests: tests/fuzz/fuzz_model.c $(FUZZOBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -o $@ $< $(FUZZOBJ) $(PKG_LIBS)
build/fuzz/fuzz-nodes: tests/fuzz/fuzz_model.c $(FUZZOBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -DFUZZ_ROLE=SL_ROLE_NODES -o $@ $< $(FUZZOBJ) $(PKG_LIBS)
build/fuzz/fuzz-pods: tests/fuzz/fuzz_model.c $(FUZZOBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -DFUZZ_ROLE=SL_ROLE_PODS -o $@ $< $(FUZZOBJ) $(PKG_LIBS)
build/fuzz/fuzz-%: tests/fuzz/fuzz_%.c $(FUZZOBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -o $@ $< $(FUZZOBJ) $(PKG_LIBS)

$(FUZZOBJ): | depcheck

# The same harnesses without libFuzzer (tests/fuzz/replay.c calls each on the files it is given),
# built with $(CC) against the sanitizer objects: make check replays tests/fuzz/regressions/ with
# them, so an input that once crashed is tried on every check, clang or not.
REPLAYS   := $(FUZZERS:%=build/asan/replay-%)
REPLAYSRC := tests/fuzz/replay.c tests/fuzz/fuzz_file.c
REPLAYDEP := $(REPLAYSRC) tests/fuzz/fuzz.h $(ASANLIB)
REPLAYCC   = $(CC) $(STD) -O1 -g $(SAN) $(PKG_CFLAGS)
build/asan/replay-manifests: tests/fuzz/fuzz_model.c $(REPLAYDEP)
	$(REPLAYCC) -o $@ $< $(REPLAYSRC) $(ASANLIB) $(PKG_LIBS)
build/asan/replay-nodes: tests/fuzz/fuzz_model.c $(REPLAYDEP)
	$(REPLAYCC) -DFUZZ_ROLE=SL_ROLE_NODES -o $@ $< $(REPLAYSRC) $(ASANLIB) $(PKG_LIBS)
build/asan/replay-pods: tests/fuzz/fuzz_model.c $(REPLAYDEP)
	$(REPLAYCC) -DFUZZ_ROLE=SL_ROLE_PODS -o $@ $< $(REPLAYSRC) $(ASANLIB) $(PKG_LIBS)
build/asan/replay-%: tests/fuzz/fuzz_%.c $(REPLAYDEP)
	$(REPLAYCC) -o $@ $< $(REPLAYSRC) $(ASANLIB) $(PKG_LIBS)
check-run: $(REPLAYS)
fuzz-build: $(FUZZERS:%=build/fuzz/fuzz-%)

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(SHARED)

check-valgrind: schedlint
	@sh tests/run-valgrind.sh ./schedlint

bench: schedlint
	@SHARED=$(SHARED) sh tests/bench.sh

RULEDOCS := $(sort $(wildcard docs/rules/*.md))

install: schedlint
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(DOCDIR)/rules
	install -m 755 schedlint $(DESTDIR)$(PREFIX)/bin/schedlint
	install -m 644 docs/schedlint.1 $(DESTDIR)$(PREFIX)/share/man/man1/schedlint.1
	install -m 644 $(RULEDOCS) $(DESTDIR)$(DOCDIR)/rules/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/schedlint $(DESTDIR)$(PREFIX)/share/man/man1/schedlint.1
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/rules/,$(notdir $(RULEDOCS)))
	-rmdir $(DESTDIR)$(DOCDIR)/rules $(DESTDIR)$(DOCDIR) 2>/dev/null

# The source of one version, named by it, that builds on its own (tests/run-build.sh builds it):
# from a git checkout, what HEAD holds (git archive: uncommitted changes are not in it, and it says
# so); from a tree without .git (an unpacked tarball), the tree less what a build writes.
DISTNAME := schedlint-$(VERSION)
dist:
	@rm -rf build/dist build/$(DISTNAME).tar.gz
	@mkdir -p build/dist/$(DISTNAME)
	@# git archive where git can read the checkout (not, say, a clone another user owns: git then
	@# refuses it as of "dubious ownership"); else the tree as it is.
	@if test -e .git && git rev-parse --verify -q HEAD >/dev/null 2>&1; then \
		test -z "$$(git status --porcelain --untracked-files=no)" || \
			echo "make dist: uncommitted changes are not in the tarball (it is HEAD's)" >&2; \
		git archive --format=tar --prefix=$(DISTNAME)/ -o build/dist/head.tar HEAD && \
			tar -xf build/dist/head.tar -C build/dist && rm build/dist/head.tar; \
	else \
		tar -cf - --exclude=./.git --exclude=./build --exclude=./schedlint --exclude='*.schedlint-*' \
			--exclude=./debian/.debhelper --exclude=./debian/schedlint --exclude=./debian/files \
			--exclude='./debian/*.substvars' --exclude=./debian/debhelper-build-stamp \
			--exclude='./debian/*.debhelper.log' --exclude=./debian/smoke.out . | \
			tar -xf - -C build/dist/$(DISTNAME); \
	fi
	tar -czf build/$(DISTNAME).tar.gz -C build/dist --sort=name --owner=0 --group=0 --numeric-owner $(DISTNAME)
	@rm -rf build/dist

# The Debian package (debian/), built from the tarball in a directory of its own, so that the
# package's build (its flags, its `make clean`) leaves this tree's build alone. dpkg-buildpackage
# writes the .deb, .buildinfo and .changes beside the source directory, in build/deb/; the .deb
# is copied to build/.
deb: dist
	@test "$$(dpkg-parsechangelog -S Version)" = '$(VERSION)' || \
		{ echo "make deb: debian/changelog's version is not VERSION's ($(VERSION)): docs/releasing.md" >&2; exit 1; }
	rm -rf build/deb
	mkdir -p build/deb
	tar -xzf build/$(DISTNAME).tar.gz -C build/deb
	cd build/deb/$(DISTNAME) && dpkg-buildpackage -us -uc -b
	cp build/deb/schedlint_$(VERSION)_*.deb build/

format:
	clang-format -i $(SRC) $(HDR) tests/*.c

clean:
	rm -rf build schedlint
