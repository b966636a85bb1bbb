# ibsm: InfiniBand subnet manager and routing engines.
#   make          build deps + build everything into build/
#   make check    test deps + -Werror build + ASan/UBSan build + every test
#   make demo     test deps + build + ibsim fat-tree brought up by ibsm, verified
#   make bench    benchmarks against OpenSM (not tests: nothing asserts time)
# Build deps are headers and a compiler; test deps add ibsim, the diag tools
# and OpenSM, installed with their services left disabled (scripts/deps.sh).
# Sources are picked up by directory: files named *_main.c become programs
# (tools/ibsm_main.c -> ibsm, tools/ibsm_route_main.c -> ibsm-route, ...),
# everything else goes into libraries.

BUILD ?= build
SAN ?= 0
CC ?= cc

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-missing-field-initializers
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -D_GNU_SOURCE -fPIC $(WARN) -MMD -MP -I.
LDLIBS_MAD := -libmad -libumad
LDLIBS := $(LDLIBS_MAD) -lyaml -lmicrohttpd -ldl -lm -lpthread
ifeq ($(SAN),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

# Libraries: the core graph + discovery + routing + generators (libibsm.a),
# and the daemon's parts: sm/, sa/, multicast/, partition/, standby/, perfmgr/,
# with ibsm-route's parts (tools/route/, which use qos/) (libibsm-sm.a).
# A folder's sources include those of its sub-folders (routing/ftree/, sm/program/).
srcs_in = $(foreach d,$(1),$(wildcard $(d)/*.c $(d)/*/*.c))
LIB_SRCS := $(filter-out %_main.c,$(call srcs_in,core mad discovery formats topogen routing sim))
SM_SRCS := $(filter-out %_main.c,$(call srcs_in,sm sa multicast partition standby perfmgr qos tools/route))
MAIN_SRCS := $(wildcard tools/*_main.c tests/tools/*_main.c)
PROGS := $(foreach m,$(MAIN_SRCS),$(BUILD)/bin/$(subst _,-,$(notdir $(m:_main.c=))))
# Test tools (tests/tools: sa-client, sa-fuzz, sa-load, sa-table, sm-rogue)
# are built with everything else but never installed.
TEST_PROGS := $(foreach m,$(wildcard tests/tools/*_main.c),$(BUILD)/bin/$(subst _,-,$(notdir $(m:_main.c=))))
# ... and share tests/tools' other sources (tool_util.c), linked into them only.
TOOL_HELPER_SRCS := $(filter-out %_main.c,$(wildcard tests/tools/*.c))
INSTALL_PROGS := $(filter-out $(BUILD)/bin/ibsm $(TEST_PROGS),$(PROGS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
TEST_HELPER_SRCS := $(filter-out tests/unit/test_%.c,$(wildcard tests/unit/*.c))
ENGINE_SRCS := $(wildcard plugins/engines/*.c)
ENGINE_SOS := $(patsubst plugins/engines/%.c,$(BUILD)/lib/libibsm-engine-%.so,$(ENGINE_SRCS))
# Engines for tests only (tests/engines/X.c -> build/tests/libibsm-engine-X.so):
# built with the tests, never installed.
TEST_ENGINE_SRCS := $(wildcard tests/engines/*.c)
TEST_ENGINE_SOS := $(patsubst tests/engines/%.c,$(BUILD)/tests/libibsm-engine-%.so,$(TEST_ENGINE_SRCS))
OSM_PLUGIN_SRCS := $(wildcard plugins/opensm/*.c)
OSM_PLUGIN := $(if $(OSM_PLUGIN_SRCS),$(BUILD)/lib/libibsm-opensm.so)

LIB := $(BUILD)/libibsm.a
SMLIB := $(if $(SM_SRCS),$(BUILD)/libibsm-sm.a)
obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

.PHONY: all deps deps-test check check-build unit integration demo bench clean tests
.DEFAULT_GOAL := all

all: deps
	@$(MAKE) --no-print-directory build-all

.PHONY: build-all
build-all: $(PROGS) $(ENGINE_SOS) $(OSM_PLUGIN)

deps:
	@sh scripts/deps.sh build

deps-test:
	@sh scripts/deps.sh test

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(call obj,$(LIB_SRCS))
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^

$(SMLIB): $(call obj,$(SM_SRCS))
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^

# prog_rule MAIN.c [OBJS]: the program, with OBJS linked in too.
define prog_rule
$(BUILD)/bin/$(subst _,-,$(notdir $(1:_main.c=))): $(call obj,$(1)) $(2) $(SMLIB) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) -o $$@ $(call obj,$(1)) $(2) $(SMLIB) $(LIB) $$(LDLIBS)
endef
$(foreach m,$(MAIN_SRCS),$(eval $(call prog_rule,$(m),$(if $(filter tests/tools/%,$(m)),$(call obj,$(TOOL_HELPER_SRCS))))))

$(BUILD)/lib/libibsm-engine-%.so: $(BUILD)/obj/plugins/engines/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -o $@ $< $(LIB) -lm

$(BUILD)/tests/libibsm-engine-%.so: $(BUILD)/obj/tests/engines/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -o $@ $< $(LIB) -lm

$(OSM_PLUGIN): $(call obj,$(OSM_PLUGIN_SRCS)) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -o $@ $(call obj,$(OSM_PLUGIN_SRCS)) $(LIB) -lm -lpthread

# OpenSM's headers need their own include path and are not -Wstrict clean.
$(BUILD)/obj/plugins/opensm/%.o: CFLAGS += -I/usr/include/infiniband -Wno-strict-prototypes -Wno-shadow

$(BUILD)/tests/%: tests/unit/%.c $(call obj,$(TEST_HELPER_SRCS)) $(SMLIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(call obj,$(TEST_HELPER_SRCS)) $(SMLIB) $(LIB) -lcmocka $(LDLIBS)

# The SA answer-hash harness (tests/campaign/sa_hashes.sh, test_sa_hashes):
# a program beside the unit tests, on their fake fabric (tests/unit/fake_*).
SA_HASHES := $(BUILD)/tests/sa_answer_hashes
SA_HASHES_OBJS := $(call obj,tests/campaign/sa_answer_hashes.c tests/campaign/sa_hash_sha256.c $(TEST_HELPER_SRCS))
$(SA_HASHES): $(SA_HASHES_OBJS) $(SMLIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(SA_HASHES_OBJS) $(SMLIB) $(LIB) -lcmocka $(LDLIBS)

# test_sa_hashes runs it (twice): built first.
$(BUILD)/tests/test_sa_hashes: $(SA_HASHES)

tests: $(UNIT_BINS) $(TEST_ENGINE_SOS) $(SA_HASHES)

# make check: both builds, then every test against the sanitized one.
check: deps-test
	@$(MAKE) --no-print-directory build-all tests
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 build-all tests
	@sh tests/run_all.sh build-asan build-asan

unit: deps-test
	@$(MAKE) --no-print-directory build-all tests
	@sh tests/run_all.sh --unit-only $(BUILD) $(BUILD)

integration: deps-test
	@$(MAKE) --no-print-directory build-all
	@sh tests/run_all.sh --integration-only $(BUILD) $(BUILD)

demo: deps-test
	@$(MAKE) --no-print-directory build-all
	@sh sim/demo.sh $(BUILD)

bench: deps-test
	@$(MAKE) --no-print-directory build-all
	@sh bench/run_all.sh $(BUILD)

# make install (docs/install.md): DESTDIR for packaging, PREFIX for /usr/local.
PREFIX ?= /usr
DESTDIR ?=
LIBARCH ?= $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
.PHONY: install
# An existing /etc/ibsm/ibsm.yaml is kept (it is the operator's).
install: build-all
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/lib/ibsm/engines $(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)/etc/ibsm $(DESTDIR)/lib/systemd/system \
		$(DESTDIR)$(PREFIX)/share/doc/ibsm
	install -m 0755 $(BUILD)/bin/ibsm $(DESTDIR)$(PREFIX)/sbin/
	install -m 0755 $(INSTALL_PROGS) $(DESTDIR)$(PREFIX)/bin/
	$(if $(ENGINE_SOS),install -m 0644 $(ENGINE_SOS) $(DESTDIR)$(PREFIX)/lib/ibsm/engines/)
	$(if $(OSM_PLUGIN),install -D -m 0644 $(OSM_PLUGIN) $(DESTDIR)$(PREFIX)/lib/$(LIBARCH)/libibsm-opensm.so)
	install -m 0644 $(wildcard docs/*.8) $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 0644 $(wildcard docs/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(wildcard docs/*.md) README.md $(DESTDIR)$(PREFIX)/share/doc/ibsm/
	test -e $(DESTDIR)/etc/ibsm/ibsm.yaml || install -m 0644 contrib/ibsm.yaml $(DESTDIR)/etc/ibsm/
	install -m 0644 contrib/ibsm.service $(DESTDIR)/lib/systemd/system/
	test -e $(DESTDIR)/etc/logrotate.d/ibsm || install -D -m 0644 contrib/ibsm.logrotate $(DESTDIR)/etc/logrotate.d/ibsm

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
