# slurmlink — `make` builds the three programs (and the demo's MPI program) into build/;
# `make asan` builds the same with ASan/UBSan into build-asan/;
# `make tsan` builds it with ThreadSanitizer into build-tsan/ (t/57-tsan.t);
# `make test` installs dependencies (idempotent), builds all three and runs every test;
# `make SLURM=PREFIX test` builds against and tests with the Slurm installed in PREFIX.

CC      ?= cc
BUILD   ?= build
CSTD    := -std=c17
WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
OPT     ?= -O2 -g
SAN     ?=
DEFS    ?=
CPPFLAGS += -D_GNU_SOURCE -Isrc -MMD -MP $(DEFS)
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(SAN) -fno-strict-aliasing
LDFLAGS += $(SAN) -Wl,--as-needed
LIBS    := -lslurm -lmunge -ljansson -lmicrohttpd -lsqlite3 -lgnutls -lcurl -lyaml -lwslay -lz -licui18n -licuuc -lpthread -lm

# SLURM=PREFIX builds against the Slurm installed in PREFIX (PREFIX/include,
# PREFIX/lib, a run path to it, PREFIX/etc/slurm.conf as the default
# configuration, PREFIX/bin as slurm.bin_dir's last resort) instead of the
# system's (Debian's libslurm-dev, /usr).
# src/slurmif/compat.h adapts to the release of the headers (22.05 to 26.05).
# The build folder's slurm.stamp records prefix and release: a change of
# either rebuilds every object.
SLURM ?=
SLURM_INC := $(if $(SLURM),$(SLURM)/include,/usr/include)
SLURM_SYSCONFDIR ?= $(SLURM)/etc
ifneq ($(SLURM),)
CPPFLAGS += -I$(SLURM)/include -DSL_SLURM_DEFAULT_CONF='"$(SLURM_SYSCONFDIR)/slurm.conf"' \
            -DSL_SLURM_BIN_DIR='"$(SLURM)/bin"'
LDFLAGS  += -L$(SLURM)/lib -Wl,-rpath,$(SLURM)/lib
endif
# "25.11.7" from the headers' SLURM_VERSION_NUMBER (0x190b07); empty when absent
SLURM_RELEASE := $(shell n=$$(sed -n 's/^\#define SLURM_VERSION_NUMBER *//p' \
    $(SLURM_INC)/slurm/slurm_version.h 2>/dev/null) && [ -n "$$n" ] && \
    printf '%d.%02d.%d' $$((n >> 16)) $$(((n >> 8) & 255)) $$((n & 255)))

# Every .c below src/ is library code except the programs' own folders and tests.
ALL_SRCS  := $(shell find src -name '*.c' | sort)
TEST_SRCS := $(shell find src -path '*/test/*.c' | sort)
CMD_SRCS  := $(wildcard src/cmd/*.c)
DAEMON_MAIN := src/daemon/main.c
SHIM_SRCS := $(wildcard src/shim/*.c)
MPIRSH_SRCS := $(wildcard src/mpirsh/*.c)
FUZZ_SRCS := $(shell find src -path 'src/fuzz/*.c' | sort)
LIB_SRCS  := $(filter-out $(TEST_SRCS) $(CMD_SRCS) $(DAEMON_MAIN) $(SHIM_SRCS) $(MPIRSH_SRCS) $(FUZZ_SRCS),$(ALL_SRCS))

obj = $(patsubst src/%.c,$(BUILD)/obj/%.o,$(1))

LIB      := $(BUILD)/libslurmlink.a
PROGS    := $(BUILD)/slurmlinkd $(BUILD)/slurmlink $(BUILD)/slurmlink-shim $(BUILD)/slurmlink-mpi-rsh
UNIT_BINS := $(foreach t,$(TEST_SRCS),$(BUILD)/test/$(subst /,_,$(patsubst src/%.c,%,$(subst /test/,/,$(t)))))

.PHONY: all asan tsan test unit check-deps clean format demo print-unit-bins schema openapi openapi-check crds \
        install uninstall
all: $(PROGS) $(UNIT_BINS) $(BUILD)/mpi-stencil

V ?= 0
Q := $(if $(filter 1,$(V)),,@)

$(BUILD)/obj/%.o: src/%.c $(BUILD)/slurm.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIB): $(call obj,$(LIB_SRCS))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# programs are linked to a temporary name and renamed: a job or daemon that
# starts during a rebuild runs the old or the new binary, never half of one
$(BUILD)/slurmlinkd: $(call obj,$(DAEMON_MAIN)) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@.tmp $^ $(LIBS) && mv -f $@.tmp $@
$(BUILD)/slurmlink: $(call obj,$(CMD_SRCS)) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@.tmp $^ $(LIBS) && mv -f $@.tmp $@
$(BUILD)/slurmlink-shim: $(call obj,$(SHIM_SRCS)) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@.tmp $^ $(LIBS) && mv -f $@.tmp $@

# an MPIJob Launcher's rsh agent (src/mpirsh): it runs inside the
# Launcher's container, whose libc is the image's, so it is linked
# statically, against libc alone, without sanitizers
$(BUILD)/slurmlink-mpi-rsh: $(MPIRSH_SRCS) src/mpirsh/proto.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CSTD) $(WARN) -D_GNU_SOURCE -O2 -Isrc -static -o $@.tmp $(MPIRSH_SRCS) && mv -f $@.tmp $@

# the demo's MPI program (examples/mpi, docs/cluster.md): OpenMPI's compiler
# wrapper, no sanitizers (it runs under srun --mpi=pmix, not in the daemon)
MPICC ?= mpicc
$(BUILD)/mpi-stencil: examples/mpi/mpi_stencil.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MPICC   $<")
	$(Q)$(MPICC) $(CSTD) $(WARN) -O2 -g -o $@.tmp $< -lm && mv -f $@.tmp $@

# unit test src/<mod>/test/<name>.c -> build/test/<mod>_<name>
define unit_rule
$(BUILD)/test/$(subst /,_,$(patsubst src/%.c,%,$(subst /test/,/,$(1)))): $(call obj,$(1)) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LIBS)
endef
$(foreach t,$(TEST_SRCS),$(eval $(call unit_rule,$(t))))

# the unit test binaries a build folder must hold, one per line, relative to
# it (t/run-tests reports a missing one as a failure)
print-unit-bins:
	@printf '%s\n' $(patsubst $(BUILD)/%,%,$(UNIT_BINS))

# the test build also compiles the fault-injection points (src/common/fault.h)
asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" DEFS=-DSL_FAULT_INJECTION \
	    SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined" all

# ThreadSanitizer (t/57-tsan.t runs the daemon of this tree): the same
# fault points as the ASan build; -O1 keeps the reports' stacks readable
tsan:
	$(MAKE) BUILD=build-tsan OPT="-O1 -g -fno-omit-frame-pointer" DEFS=-DSL_FAULT_INJECTION \
	    SAN="-fsanitize=thread" all

check-deps:
	@scripts/deps.sh

# SLURM=PREFIX: the three builds against that Slurm and the tests' clusters
# and clients from PREFIX/bin and PREFIX/sbin (t/run-tests --slurm)
test: check-deps
	$(MAKE) all
	$(MAKE) asan
	$(MAKE) tsan
	t/run-tests$(if $(SLURM), --slurm $(SLURM))

demo: check-deps
	$(MAKE) $(PROGS) $(BUILD)/mpi-stencil
	$(if $(SLURM),PATH=$(SLURM)/bin:$(SLURM)/sbin:$$PATH )scripts/demo.sh

unit: all
	t/run-tests --unit

format:
	clang-format -i $$(find src -name '*.[ch]')

# src/pod/schema_table.c from Kubernetes' OpenAPI: the pinned npm package
# kubernetes-models (version and SHA-256 in scripts/schema.sh), the generator
# src/pod/gen/schema-gen.mjs and clang-format; t/36-schema-gen.t checks that
# the committed file is what this writes
schema:
	scripts/schema.sh src/pod/schema_table.c

# The OpenAPI v3 schemas served at /openapi/v3 (needs npm and node; a plain
# build uses the committed src/api/openapi_schemas.c). openapi-check: the
# committed file is what a fresh generation prints.
openapi:
	src/api/gen/openapi-gen.sh > src/api/openapi_schemas.c.tmp
	mv -f src/api/openapi_schemas.c.tmp src/api/openapi_schemas.c
# The custom resources' schemas (kubeflow.org PyTorchJob) from their pinned
# CRDs in src/api/gen/crds/ (python3-yaml); t/87-pytorchjob-api.t checks
# the committed file is what this generates.
crds:
	src/api/gen/crd-gen.py > src/api/crd_schemas.c.tmp
	mv -f src/api/crd_schemas.c.tmp src/api/crd_schemas.c
openapi-check:
	src/api/gen/openapi-gen.sh | cmp - src/api/openapi_schemas.c

clean:
	rm -rf build build-asan build-tsan

# make install / uninstall (docs/deploy.md), the GNU directory variables:
# slurmlinkd in SBINDIR, slurmlink in BINDIR, the shim in LIBEXECDIR/slurmlink
# (slurmlinkd looks for it at SBINDIR/../libexec/slurmlink when shim.path is
# not set), man pages, the systemd unit and an example configuration.
# SYSCONFDIR is /etc, not $(PREFIX)/etc: the configuration of a host's
# daemon lives there whatever the prefix (FHS; Debian's --sysconfdir=/etc);
# the build compiles it in as the default --config path.
PREFIX      ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
BINDIR      ?= $(EXEC_PREFIX)/bin
SBINDIR     ?= $(EXEC_PREFIX)/sbin
LIBEXECDIR  ?= $(EXEC_PREFIX)/libexec
SYSCONFDIR  ?= /etc
DATAROOTDIR ?= $(PREFIX)/share
MANDIR      ?= $(DATAROOTDIR)/man
UNITDIR     ?= $(PREFIX)/lib/systemd/system
LOCALSTATEDIR ?= /var
INSTALL     ?= install
MANPAGES    := man/slurmlinkd.8 man/slurmlink.1 man/slurmlinkd.conf.5

# the compiled-in default configuration path follows SYSCONFDIR: the stamp
# changes (and config.o is rebuilt) only when the value does
$(BUILD)/sysconfdir.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(SYSCONFDIR)' | cmp -s - $@ || echo '$(SYSCONFDIR)' > $@
$(BUILD)/obj/config/config.o: $(BUILD)/sysconfdir.stamp
$(BUILD)/obj/config/config.o: CPPFLAGS += -DSL_SYSCONFDIR='"$(SYSCONFDIR)"'
# `slurmlink up` looks for slurmlinkd in SBINDIR when it is neither beside
# it nor in ../sbin (src/cluster/up.c): the same stamp rule
$(BUILD)/sbindir.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(SBINDIR)' | cmp -s - $@ || echo '$(SBINDIR)' > $@
$(BUILD)/obj/cluster/up.o: $(BUILD)/sbindir.stamp
$(BUILD)/obj/cluster/up.o: CPPFLAGS += -DSL_SBINDIR='"$(SBINDIR)"'
# the Slurm built against (SLURM= above), printed by every build; the stamp
# changes (and every object is rebuilt) only when prefix or release does
$(BUILD)/slurm.stamp: FORCE
	@[ -n '$(SLURM_RELEASE)' ] || { echo "no Slurm headers: $(SLURM_INC)/slurm/slurm_version.h" \
	    "(install libslurm-dev, or make SLURM=PREFIX of an installed Slurm)" >&2; exit 1; }
	@echo "  SLURM   $(SLURM_RELEASE) ($(if $(SLURM),$(SLURM),system))"
	@mkdir -p $(dir $@)
	@echo '$(SLURM) $(SLURM_RELEASE)' | cmp -s - $@ || echo '$(SLURM) $(SLURM_RELEASE)' > $@
.PHONY: FORCE
FORCE:

# @NAME@ in dist/ files -> the install's directories
DIST_SED = sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
	-e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	-e 's|@LOCALSTATEDIR@|$(LOCALSTATEDIR)|g'

install: $(PROGS)
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/slurmlink \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
	    $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/slurmlink
	$(INSTALL) -m 0755 $(BUILD)/slurmlinkd $(DESTDIR)$(SBINDIR)/slurmlinkd
	$(INSTALL) -m 0755 $(BUILD)/slurmlink $(DESTDIR)$(BINDIR)/slurmlink
	$(INSTALL) -m 0755 $(BUILD)/slurmlink-shim $(DESTDIR)$(LIBEXECDIR)/slurmlink/slurmlink-shim
	$(INSTALL) -m 0755 $(BUILD)/slurmlink-mpi-rsh $(DESTDIR)$(LIBEXECDIR)/slurmlink/slurmlink-mpi-rsh
	$(INSTALL) -m 0644 man/slurmlink.1 $(DESTDIR)$(MANDIR)/man1/slurmlink.1
	$(INSTALL) -m 0644 man/slurmlinkd.conf.5 $(DESTDIR)$(MANDIR)/man5/slurmlinkd.conf.5
	$(INSTALL) -m 0644 man/slurmlinkd.8 $(DESTDIR)$(MANDIR)/man8/slurmlinkd.8
	$(DIST_SED) dist/slurmlinkd.service > $(DESTDIR)$(UNITDIR)/slurmlinkd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/slurmlinkd.service
	$(DIST_SED) dist/slurmlinkd.conf.example > $(DESTDIR)$(SYSCONFDIR)/slurmlink/slurmlinkd.conf.example
	chmod 0644 $(DESTDIR)$(SYSCONFDIR)/slurmlink/slurmlinkd.conf.example

# removes what install wrote (a slurmlinkd.conf of the admin's stays) and
# the folders of slurmlink's own that are then empty
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/slurmlinkd $(DESTDIR)$(BINDIR)/slurmlink \
	    $(DESTDIR)$(LIBEXECDIR)/slurmlink/slurmlink-shim \
	    $(DESTDIR)$(LIBEXECDIR)/slurmlink/slurmlink-mpi-rsh \
	    $(DESTDIR)$(MANDIR)/man1/slurmlink.1 $(DESTDIR)$(MANDIR)/man5/slurmlinkd.conf.5 \
	    $(DESTDIR)$(MANDIR)/man8/slurmlinkd.8 $(DESTDIR)$(UNITDIR)/slurmlinkd.service \
	    $(DESTDIR)$(SYSCONFDIR)/slurmlink/slurmlinkd.conf.example
	-rmdir $(DESTDIR)$(LIBEXECDIR)/slurmlink $(DESTDIR)$(SYSCONFDIR)/slurmlink 2>/dev/null

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# libFuzzer harnesses (src/fuzz/*.c) against the library built with clang and
# ASan/UBSan into build-fuzz/; each runs FUZZ_SECONDS (default 10).
FUZZ_SECONDS ?= 10
FUZZ_BINS := $(patsubst src/fuzz/%.c,build-fuzz/%,$(FUZZ_SRCS))
# fuzz-build holds a lock: test files that run at once (t/run-tests -j) may
# each ask for it, and two builds into one folder would break each other;
# harnesses are linked to a temporary name and renamed, as the programs are,
# so a harness another test is starting is never half written
.PHONY: fuzz fuzz-build fuzz-build-locked
fuzz-build:
	@mkdir -p build-fuzz
	@flock build-fuzz/.lock $(MAKE) --no-print-directory fuzz-build-locked
fuzz-build-locked:
	$(MAKE) BUILD=build-fuzz CC=clang OPT="-O1 -g -fno-omit-frame-pointer" \
	    SAN="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined" \
	    build-fuzz/libslurmlink.a
	@for f in $(FUZZ_SRCS); do \
	    b=build-fuzz/$$(basename $$f .c); \
	    echo "clang $$f -> $$b"; \
	    clang -D_GNU_SOURCE -Isrc -std=c17 -O1 -g -fsanitize=fuzzer,address,undefined \
	        $$f build-fuzz/libslurmlink.a -o $$b.tmp $(LIBS) && mv -f $$b.tmp $$b || exit 1; \
	done
fuzz: fuzz-build
	@mkdir -p build-fuzz/corpus
	@for b in $(FUZZ_BINS); do \
	    n=$$(basename $$b); mkdir -p build-fuzz/corpus/$$n; \
	    echo "== $$n ($(FUZZ_SECONDS) s)"; \
	    $$b -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	        build-fuzz/corpus/$$n > build-fuzz/$$n.log 2>&1; rc=$$?; tail -3 build-fuzz/$$n.log; \
	    [ $$rc -eq 0 ] || { echo "$$n failed (build-fuzz/$$n.log)"; exit 1; }; \
	done
