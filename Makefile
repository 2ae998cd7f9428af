# git-session: build, test, install, demo, bench, fuzz.
#
#   make                 build ./git-session
#   make test            the layer check, unit tests, end-to-end tests, and both again under ASan+UBSan
#   make SANITIZE=address,undefined   build with sanitizers into build/sanitize/
#   make install         PREFIX=/usr/local DESTDIR= (binary, man page, completion)
#   make deps            install what the build and the tests need (Debian packages, the agent CLIs from npm)
#   make demo            what the build needs, build, and a walk through sessions in a throw-away repository
#                        (KEEP=1 keeps the repository); it needs no agent CLI and downloads none
#   make bench           the performance figures, as ratios against anchors measured in the same run
#   make bench-hooks     only what the git hooks and the agent hooks cost (BENCH_ARGS=--quick: fewer runs)
#   make bench-sync      only push and pull with 10,000 and 100,000 sessions (--quick: 10,000)
#   make screenshot      doc/html-page.png, README's picture of a page (needs make deps: chromium, puppeteer-core)
#   make fuzz            the libFuzzer targets, FUZZ_SECONDS each (make test runs them 5 s each)

PREFIX ?= /usr/local
prefix ?= $(PREFIX)
bindir ?= $(prefix)/bin
mandir ?= $(prefix)/share/man
bashcompdir ?= $(prefix)/share/bash-completion/completions
zshcompdir ?= $(prefix)/share/zsh/site-functions
DESTDIR ?=

PKG_CONFIG ?= pkg-config
PKGS = libgit2 yaml-0.1 libcjson zlib

# git's DEVELOPER=1 set, or close to it; warnings are errors
WARNINGS = -Wall -Wextra -Werror -Wformat-security -Wold-style-definition \
	-Wpointer-arith -Wstrict-prototypes -Wvla -Wmissing-prototypes -Wshadow \
	-Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare
CFLAGS ?= -O2 -g
# pkg-config and the compiler are asked once per make, not once per object
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# mbed TLS's crypto: libgit2's, for the SHA-256 that names an agent's project folder
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lmbedcrypto -lm
ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(WARNINGS) $(CFLAGS) -Iinclude $(PKG_CFLAGS)
LIBS = $(PKG_LIBS)

# Link libgit2 and what it needs statically when every archive that
# `pkg-config --static` names for it is here and the linker is GNU ld
# (STATIC=0 or 1 to choose): a hook runs git-session on every commit, and
# resolving ~5,000 symbols across 22 shared libraries is a third of a short
# command's time. Libraries with no archive stay shared; libgit2's Negotiate
# authentication, and with it libgssapi (which Debian's libgit2.pc leaves
# out), is replaced. The --wrap flags keep libgit2 from loading the CA
# certificates at init (src/store/store_tls.c).
GNU_LD := $(shell $(CC) -Wl,--version 2>&1 | grep -q 'GNU ld' && echo 1)
STATIC_CORE := $(patsubst -l%,%,$(filter -l%,$(shell $(PKG_CONFIG) --static --libs libgit2 yaml-0.1 2>/dev/null)))
STATIC_ALL := $(patsubst -l%,%,$(filter -l%,$(shell $(PKG_CONFIG) --static --libs libgit2 libssh2 yaml-0.1 2>/dev/null)))
have_archive = $(filter /%,$(shell $(CC) -print-file-name=lib$(1).a))
have_shared = $(filter /%,$(shell $(CC) -print-file-name=lib$(1).so))
STATIC_HAVE := $(foreach l,$(sort $(STATIC_ALL)),$(if $(call have_archive,$(l)),$(l)))
STATIC ?= $(if $(GNU_LD),$(if $(filter-out $(STATIC_HAVE),$(STATIC_CORE)),0,1),0)
ifeq ($(STATIC),1)
ALL_CFLAGS += -DGS_STATIC_LIBGIT2
LIBS = -Wl,--wrap=git_mbedtls_stream_global_init -Wl,--wrap=libssh2_init \
	-Wl,-Bstatic $(addprefix -l,$(filter $(STATIC_HAVE),$(STATIC_ALL))) \
	-Wl,-Bdynamic $(addprefix -l,$(filter-out $(STATIC_HAVE),$(STATIC_ALL))) \
	$(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null) -lm -pthread
endif

ifdef SANITIZE
BUILD = build/sanitize
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
else
BUILD = build/default
endif

# the folders of src/ are the layers (README.md, "Layout")
LAYERS = cli engine model format agent store util
SRC = $(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c))
HOOKS = $(sort $(wildcard hooks/*))
LIB_OBJ = $(patsubst src/%.c,$(BUILD)/%.o,$(filter-out src/cli/main.c,$(SRC))) $(BUILD)/hook_scripts.o
MAIN_OBJ = $(BUILD)/cli/main.o
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

all: git-session

ifdef SANITIZE
git-session: $(BUILD)/git-session
else
git-session: $(BUILD)/git-session
	cp $< $@
endif

# the man page where an installed one would be, ../share/man from the
# binary: `git session help` finds it there in the build tree too
all e2e: build/share/man/man1/git-session.1
build/share/man/man1/git-session.1: doc/git-session.1
	@mkdir -p $(@D) && cp $< $@

$(BUILD)/git-session: $(MAIN_OBJ) $(BUILD)/libgit-session.a $(BUILD)/FLAGS
	$(QUIET_LD)$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(BUILD)/libgit-session.a $(LIBS)

# made afresh: ar keeps the members of files since renamed or removed
$(BUILD)/libgit-session.a: $(LIB_OBJ)
	@rm -f $@ && $(AR) rcs $@ $^

QUIET_CC = @echo "    CC $@";
QUIET_LD = @echo "    LINK $@";
ifdef V
QUIET_CC =
QUIET_LD =
endif

# Objects depend on the headers they include (-MMD -MP, as tig does) and on
# the flags they were built with (as git's GIT-CFLAGS): a changed flag or
# STATIC rebuilds, a touched header rebuilds only what includes it.
$(BUILD)/%.o: src/%.c $(BUILD)/FLAGS | $(BUILD)
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

TRACK_FLAGS = $(CC) $(ALL_CFLAGS) $(LDFLAGS) $(LIBS)
$(BUILD)/FLAGS: FORCE | $(BUILD)
	@flags='$(subst ','\'',$(TRACK_FLAGS))'; \
	if test x"$$flags" != x"$$(cat $@ 2>/dev/null)"; then echo "$$flags" >$@; fi

-include $(wildcard $(BUILD)/*.d $(BUILD)/*/*.d)

# the hook scripts, built into the binary
$(BUILD)/hook_scripts.c: $(HOOKS) tools/embed-hooks.sh | $(BUILD)
	@sh tools/embed-hooks.sh $(HOOKS) >$@

$(BUILD)/hook_scripts.o: $(BUILD)/hook_scripts.c $(BUILD)/FLAGS
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libgit-session.a $(BUILD)/FLAGS | $(BUILD)
	@mkdir -p $(BUILD)/tests
	$(QUIET_LD)$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -Isrc -MMD -MP -MF $@.d -o $@ $< \
		$(BUILD)/libgit-session.a $(LIBS) $(LDFLAGS) $(CMOCKA_LIBS)

-include $(wildcard $(BUILD)/tests/*.d)

$(BUILD):
	@mkdir -p $@

# libFuzzer targets for every parser of untrusted input (clang)
# the formats' names, from their rows in GS_FORMATS (format.h)
FUZZ_FORMATS := $(shell sed -n '/^\#define GS_FORMATS(X)/,/[^\\]$$/p' include/git-session/format.h | grep -o 'X([A-Z_]*, *[a-z_]*[,)]' | sed 's/.*, *\([a-z_]*\).$$/\1/')
FUZZ_TARGETS = session_json op trailer mcp list_cache transcript $(patsubst %,import_%,$(FUZZ_FORMATS))
# the parsers are the pure layers: the model, the formats, the agents and util
FUZZ_SRC = $(foreach l,model format agent util,$(wildcard src/$(l)/*.c))
FUZZ_TARGETS += redact
FUZZ_FLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -Iinclude -Isrc $(shell $(PKG_CONFIG) --cflags libcjson yaml-0.1 2>/dev/null)
FUZZ_LIBS := $(shell $(PKG_CONFIG) --libs libcjson yaml-0.1 2>/dev/null) -lmbedcrypto -lm
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_TARGETS += manifest

# one import target per format: the same program, told which format to read
build/fuzz/fuzz_import_%: fuzz/fuzz_import.c $(FUZZ_SRC) $(wildcard include/git-session/*.h src/*/*.h)
	@mkdir -p build/fuzz
	$(QUIET_LD)$(FUZZ_CC) $(FUZZ_FLAGS) -DFORMAT='"$(subst _,-,$*)"' -o $@ $< $(FUZZ_SRC) $(FUZZ_LIBS)

build/fuzz/fuzz_%: fuzz/fuzz_%.c $(FUZZ_SRC) $(wildcard include/git-session/*.h src/*/*.h)
	@mkdir -p build/fuzz
	$(QUIET_LD)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_SRC) $(FUZZ_LIBS)

fuzz: $(patsubst %,build/fuzz/fuzz_%,$(FUZZ_TARGETS))
	@test -n "$(FUZZ_FORMATS)" || { echo "fuzz: no format read from GS_FORMATS (format.h)"; exit 1; }
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p build/fuzz/found-$$t; \
		build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=1 \
			-artifact_prefix=build/fuzz/ build/fuzz/found-$$t fuzz/corpus/$$t >build/fuzz/$$t.log 2>&1; \
		ret=$$?; \
		echo "fuzz $$t: $(FUZZ_SECONDS) s, $$(sed -n 's/^stat::number_of_executed_units: *//p' build/fuzz/$$t.log | tail -1) inputs, $$(sed -n 's/^stat::new_units_added: *//p' build/fuzz/$$t.log | tail -1) new"; \
		if test $$ret != 0; then grep -E "ERROR|SUMMARY|^    #[0-9] " build/fuzz/$$t.log | head -20; \
			echo "fuzz $$t: FAILED (the input is in build/fuzz/)"; exit 1; fi; \
	done

# the end-to-end suite with every git-session run under valgrind (slow: minutes)
valgrind: build/default/git-session
	@mkdir -p build/valgrind
	@printf '#!/bin/sh\nexec valgrind -q --error-exitcode=200 --leak-check=full --errors-for-leak-kinds=definite \\\n\t--suppressions=$(CURDIR)/tests/valgrind.supp $(CURDIR)/build/default/git-session "$$@"\n' \
		>build/valgrind/git-session && chmod +x build/valgrind/git-session
	@GIT_SESSION_BIN=$(CURDIR)/build/valgrind GIT_SESSION_VALGRIND=1 TEST_JOBS=2 sh tests/e2e/run.sh $(VALGRIND_TESTS)

fuzz-smoke:
	@if $(FUZZ_CC) --version >/dev/null 2>&1; then $(MAKE) fuzz FUZZ_SECONDS=5; \
	else echo "fuzz: skipped ($(FUZZ_CC) is not installed; make deps installs it)"; fi

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "# $$t"; $$t; done

e2e: $(BUILD)/git-session
	@GIT_SESSION_BIN=$(CURDIR)/$(BUILD) sh tests/e2e/run.sh

# libgit2 1.5 leaks a regex when it refuses to open a repository (tests/lsan.supp)
check-sanitize:
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 GIT_SESSION_SANITIZED=1 \
		$(MAKE) SANITIZE=address,undefined unit e2e

# the layers of README.md's "Layout", as the build checks them
check-layers:
	@sh tools/check-layers.sh

# README.md's picture of src/, drawn again from the tree (t0094 checks it)
layout:
	@sh tools/layout.sh --update

test: git-session
	$(MAKE) check-layers
	$(MAKE) unit e2e
	$(MAKE) check-sanitize
	$(MAKE) fuzz-smoke

deps:
	@sh tools/deps.sh

demo:
	@sh tools/deps.sh --build
	$(MAKE) git-session
	@sh tools/demo.sh

screenshot: git-session
	@sh tools/screenshot.sh doc/html-page.png

bench: git-session
	@sh bench/run.sh $(BENCH_ARGS)

bench-hooks: git-session
	@sh bench/hooks.sh $(BENCH_ARGS)

bench-sync: git-session
	@sh bench/sync.sh $(BENCH_ARGS)

install: git-session
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(bashcompdir) $(DESTDIR)$(zshcompdir)
	install -m 755 git-session $(DESTDIR)$(bindir)/git-session
	install -m 644 doc/git-session.1 $(DESTDIR)$(mandir)/man1/git-session.1
	install -m 644 contrib/completion/git-session.bash $(DESTDIR)$(bashcompdir)/git-session
	install -m 644 contrib/completion/_git-session $(DESTDIR)$(zshcompdir)/_git-session

uninstall:
	rm -f $(DESTDIR)$(bindir)/git-session $(DESTDIR)$(mandir)/man1/git-session.1 \
		$(DESTDIR)$(bashcompdir)/git-session $(DESTDIR)$(zshcompdir)/_git-session

clean:
	rm -rf build git-session

.PHONY: FORCE check-layers layout all unit e2e check-sanitize test deps demo screenshot bench bench-hooks bench-sync install uninstall clean fuzz fuzz-smoke valgrind
