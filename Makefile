# SPDX-License-Identifier: GPL-2.0
#
# make            module (kmod/netslice.ko), libnetslice and tools (as tested
#                 and as installed: build/bin, build/inst)
# make check      deps, everything, make check-host, KUnit and the module (W=1)
#                 on each of KERNELS (default 6.1 6.12 7.2; any subset), the
#                 guest suite on each of FULL_KERNELS (6.1 7.2; the tests of
#                 NETSLICE_ONCE_TESTS on the last only) and its smoke subset
#                 on the others (docs/testing.md)
# make check-host  every test that needs no guest, no kernel tree, no package
#                 installation and no network (packagers, a developer's loop)
# make check-newest  before a release: the module (W=1), checkpatch and KUnit
#                 against the newest kernel Debian has (sid or experimental)
# make check-debug  the sanitizer tier: KUnit and the guest suite on a 6.12
#                 kernel with KASAN, UBSAN, lockdep, kmemleak and fault
#                 injection, built once and cached (SMOKE=1: CI's short run)
# make demo       boot a guest and show netslice at work
# make install    module (+ depmod), library, headers, pkg-config file, tools,
#                 man pages, bash completion, udev rule, modprobe.d example,
#                 systemd units and the NFs' example configuration
# make uninstall  remove what install put there
# make install-lib  library, headers, tools and docs, no module or system files
#                 (then ldconfig, unless DESTDIR is set)
# make lib tools  user space only: libnetslice and the programs, no kernel tree
# make dkms-install  register the sources with DKMS (rebuilds on new kernels)
# make deb        the Debian packages (debian/) in build/deb, checked by lintian
# make bench      netslice against AF_PACKET, AF_XDP and in-kernel forwarding:
#                 instructions per forwarded frame (a QEMU plugin), then
#                 rates, latency and perf profiles (QUICK=1: instructions
#                 alone, on veth and on virtio-net NICs, 9-10 min;
#                 BASELINE=REV adds the module of commit REV, before and
#                 after in one run); results in bench/results/ and
#                 docs/benchmarks.md
# make lint       checkpatch --strict over the kernel sources
# make hooks      a git commit-msg hook checking each message as make check
#                 does (scripts/check-commits.py)
#
# KDIR selects the kernel build tree for the module; KERNEL=SERIES (6.1,
# 6.12, 7.2) builds it with scripts/kbuild.sh instead, in build/kmod/VERSION,
# fetching and preparing a kernel this machine's suite does not ship.

VERSION := 0.8.0
# The library's soname is libnetslice.so.SOVERSION; its file adds VERSION's
# minor and patch (libnetslice.so.1.8.0), and a function added in minor N
# carries the symbol version LIBNETSLICE_0.N (userlib/libnetslice.map).
SOVERSION := 1
PREFIX ?= /usr/local
# LIBDIR=$(PREFIX)/lib/x86_64-linux-gnu for a multiarch layout
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
# netslice-info (any member of group netslice); the NFs and netslicectl,
# administrators' commands with section 8 pages, in SBINDIR
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
DOCDIR ?= $(DATADIR)/doc/netslice
# The NFs' configuration (/etc/netslice with PREFIX=/usr, as a package has it)
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/systemd/system,$(PREFIX)/lib/systemd/system)
DESTDIR ?=
CC ?= cc
# pkg-config as cross builds name it (PKG_CONFIG=aarch64-linux-gnu-pkg-config)
PKG_CONFIG ?= pkg-config
# CPPFLAGS, CFLAGS and LDFLAGS as a packager sets them (dpkg-buildflags)
CFLAGS ?= -O2 -g
CPPFLAGS ?=
LDFLAGS ?=
B := build

ifeq ($(origin KDIR),undefined)
KDIR := $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1))
endif

NS_CFLAGS := -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2 -fPIC \
	-Iuapi -Iuserlib -Itools/lib -Itools/nf -D_GNU_SOURCE -DNETSLICE_VERSION='"$(VERSION)"' $(CFLAGS)
NL_CFLAGS = $(shell $(PKG_CONFIG) --cflags libnl-genl-3.0)
NL_LIBS = $(shell $(PKG_CONFIG) --libs libnl-genl-3.0)
KVER ?= $(patsubst /lib/modules/%/build,%,$(KDIR))
# The udev rule and sysusers.d file where a package ships them (PREFIX=/usr)
# or a local install adds them (/etc); the modprobe.d example is
# configuration, in /etc either way.
UDEVDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/udev/rules.d,/etc/udev/rules.d)
SYSUSERSDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/sysusers.d,/etc/sysusers.d)
MODPROBEDIR ?= /etc/modprobe.d

LIB_SRCS := $(wildcard userlib/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
LIB_A := $(B)/libnetslice.a
LIB_SO := $(B)/libnetslice.so
# The file, its soname link (what programs load) and the development link
LIB_SO_FILE := libnetslice.so.$(SOVERSION).$(word 2,$(subst ., ,$(VERSION))).$(word 3,$(subst ., ,$(VERSION)))
LIB_SO_NAME := libnetslice.so.$(SOVERSION)
PC := $(B)/netslice.pc
NFS := nf-fwd nf-firewall nf-monitor nf-nat nf-lb nf-ipsec
# tools/lib: what the NFs and netslicectl share (JSON, CLI, config files, protocol names).
TOOLS_LIB := $(patsubst %.c,$(B)/%.o,$(wildcard tools/lib/*.c))
# tools/nf/NAME.c is nf-NAME's main; tools/nf/NAME_*.c its other parts.
NF_PARTS = $(patsubst %.c,$(B)/%.o,$(wildcard tools/nf/$(1)_*.c))
NF_OWN := $(foreach n,$(NFS:nf-%=%),tools/nf/$(n).c $(wildcard tools/nf/$(n)_*.c))
# The cut's parser: one source for the module and offline mode (kmod/cut_parser.c)
CUT_PARSER := $(B)/kmod/cut_parser.o
NF_COMMON := $(patsubst %.c,$(B)/%.o,$(filter-out $(NF_OWN),$(wildcard tools/nf/*.c))) $(TOOLS_LIB) \
	$(CUT_PARSER)
NF_LIBS_ipsec := -lcrypto
# rule_nest.o: the rule encoder netslicectl shares with the library, which
# keeps it private (userlib/rule_nest.h)
CTL_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard tools/ctl/*.c)) $(TOOLS_LIB) $(B)/userlib/rule_nest.o
USER_TOOLS := $(B)/bin/netslice-info
ADMIN_TOOLS := $(B)/bin/netslicectl $(NFS:%=$(B)/bin/%)
TOOLS := $(USER_TOOLS) $(ADMIN_TOOLS)
# The same, linked for installation (see tool_rules)
INST_TOOLS := $(TOOLS:$(B)/bin/%=$(B)/inst/%)
# A page for every installed program and one for the library (docs/man/,
# with @PREFIX@-style paths filled in as they are installed)
MAN1 := $(USER_TOOLS:$(B)/bin/%=$(B)/man/%.1)
MAN8 := $(ADMIN_TOOLS:$(B)/bin/%=$(B)/man/%.8)
MAN3 := $(B)/man/libnetslice.3
MANS := $(MAN1) $(MAN8) $(MAN3)
# The NFs' systemd template and example configuration (dist/systemd/)
UNITS := netslice-nf@.service
NF_CONFS := $(notdir $(wildcard dist/netslice/*))
# What the pages and the pkg-config file say instead of @NAME@; an NF's
# page gets the options and exit status all NFs share. Filled in as they
# are installed, so the paths are always those of the install.
SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@DATADIR@|$(DATADIR)|g' \
	-e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
	-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' \
	-e 's|@VERSION@|$(VERSION)|g'
MAN_PARTS := docs/man/nf-common.inc docs/man/nf-common-see.inc
RENDER_MAN = sed -e '/^@NF_COMMON@$$/{r docs/man/nf-common.inc' -e 'd}' \
	-e '/^@NF_SEE@$$/{r docs/man/nf-common-see.inc' -e 'd}' $(1) | $(SUBST)
HOST_TESTS := $(B)/tests/test_cpulist $(B)/tests/test_cut $(B)/tests/test_pkt \
	$(B)/tests/test_run $(B)/tests/netslicectl-fake
GUEST_BINS := $(B)/tests/dev_check $(B)/tests/nstraffic $(B)/tests/io_check \
	$(B)/tests/cut_check $(B)/tests/cut_nf $(B)/tests/nfclient $(B)/tests/faultloop \
	$(B)/tests/safety_check $(B)/tests/ring_check $(B)/tests/queue_read \
	$(B)/tests/wake_check $(B)/tests/rule_api $(B)/tests/chain_check
# The device and netlink fuzzer (tests/fuzz/), run in the guest
FUZZ := $(B)/tests/nsfuzz
# make bench's load sink and peer forwarders (a guest test checks them too)
BENCH_BINS := $(B)/bench/bench-sink $(B)/bench/afp-fwd $(B)/bench/xsk-fwd $(B)/bench/nsmark \
	$(B)/bench/rule-gen $(B)/bench/conn-gen $(B)/bench/xdpgen $(B)/bench/hostgen
# make bench's instruction counter: a QEMU plugin, built on the host
# against the installed QEMU's header (scripts/fetch-qemu-plugin.sh)
BENCH_PLUGIN := $(B)/bench/nsinsn.so
# The guides installed in DOCDIR
DOCS := $(wildcard docs/*.md)
XDP_CFLAGS = $(shell $(PKG_CONFIG) --cflags libxdp libbpf)
XDP_LIBS = $(shell $(PKG_CONFIG) --libs libxdp libbpf)

.PHONY: all module lib tools man deps check hooks check-host check-newest check-debug demo demo-bins \
	install install-lib inst-tools install-units install-system uninstall dkms-install deb bench lint clean test-bins host-test-bins

all: module lib tools inst-tools man

# Kernels make check tests (KUnit on UML, module build, guest suite), and
# those of them whose KUnit runs on UML: not 6.12, whose KUnit the
# sanitizer tier runs with KASAN and lockdep (make check-debug).
KERNELS ?= 6.1 6.12 7.2
KUNIT_KERNELS ?= $(filter-out 6.12,$(KERNELS))
# Of KERNELS, those whose guest runs the whole suite; the others run its
# smoke subset (tests/guest/run_all.sh --smoke): the oldest and the newest
# find what breaks across versions, the middle one costs a quarter as much.
FULL_KERNELS ?= 6.1 7.2
# Of KERNELS, those whose guest make check leaves out (module still built).
GUEST_SKIP ?=

module:
ifneq ($(KERNEL),)
	scripts/kbuild.sh $(KERNEL)
else
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
		{ echo "netslice: no kernel build tree; install headers or set KDIR=" >&2; exit 1; }
	@echo "netslice: building the module against KDIR=$(KDIR)"
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
endif

lib: $(LIB_A) $(LIB_SO) $(PC)
tools: $(TOOLS)
test-bins: $(HOST_TESTS) $(GUEST_BINS) $(BENCH_BINS) $(FUZZ)
host-test-bins: $(HOST_TESTS)
# What scripts/demo.sh runs beyond the tools: its traffic generator and sink
demo-bins: $(B)/tests/nstraffic

# The Makefile too: it holds the flags and NETSLICE_VERSION.
$(B)/%.o: %.c Makefile $(wildcard userlib/*.h tools/lib/*.h tools/nf/*.h tools/ctl/*.h uapi/linux/*.h) \
	kmod/cut_parser.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(NS_CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJS)
	$(AR) rcs $@ $^

# Exported symbols carry their version nodes, LIBNETSLICE_0.6 on (userlib/libnetslice.map).
$(LIB_SO): $(LIB_OBJS) userlib/libnetslice.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(LIB_SO_NAME) \
		-Wl,--version-script,userlib/libnetslice.map -o $(B)/$(LIB_SO_FILE) $(LIB_OBJS) -lpthread
	ln -sf $(LIB_SO_FILE) $(B)/$(LIB_SO_NAME)
	ln -sf $(LIB_SO_NAME) $@

$(PC): userlib/netslice.pc.in Makefile
	$(SUBST) $< >$@

$(B)/man/%: docs/man/% $(MAN_PARTS) Makefile
	@mkdir -p $(dir $@)
	$(call RENDER_MAN,$<) >$@

man: $(MANS)

# The tools link libnetslice.so, as a distribution ships them; STATIC=1
# links libnetslice.a instead. Those in $(B)/bin, which the tests run, find
# $(B)'s library through their RUNPATH; install-lib installs copies from
# $(B)/inst linked without one (the loader finds LIBDIR's), as libtool
# relinks.
ifeq ($(STATIC),1)
TOOL_LIB := $(LIB_A)
TOOL_LINK = $(LIB_A)
else
TOOL_LIB := $(LIB_SO)
TOOL_LINK = -L$(B) -lnetslice $(if $(filter $(B)/bin/%,$@),-Wl$(comma)-rpath$(comma)'$$ORIGIN/..')
endif
comma := ,
LINK_TOOL = $(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(TOOL_LINK)

# $(call tool_rules,DIR): netslice-info, netslicectl and the NFs in DIR
define tool_rules
$(1)/%: $(B)/tools/%.o $(TOOL_LIB)
	@mkdir -p $$(dir $$@)
	$$(LINK_TOOL) -lpthread

$(1)/netslice-info: $(B)/tools/lib/cli.o $(B)/tools/lib/msg.o $(B)/tools/lib/json.o

$(1)/netslicectl: $(CTL_OBJS) $(TOOL_LIB)
	@mkdir -p $$(dir $$@)
	$$(LINK_TOOL) $$(NL_LIBS) -lpthread

$(1)/nf-%: $(B)/tools/nf/%.o $(NF_COMMON) $(TOOL_LIB)
	@mkdir -p $$(dir $$@)
	$$(LINK_TOOL) -lpthread $$(NF_LIBS_$$*)
endef
$(eval $(call tool_rules,$(B)/bin))
$(eval $(call tool_rules,$(B)/inst))
$(foreach n,$(NFS:nf-%=%),$(eval $(B)/bin/nf-$(n) $(B)/inst/nf-$(n): $(call NF_PARTS,$(n))))
# The mains' objects serve two links: not intermediates make would delete.
.SECONDARY: $(B)/tools/netslice-info.o $(NFS:nf-%=$(B)/tools/nf/%.o) $(NF_COMMON)

$(B)/tools/ctl/%.o: NS_CFLAGS += $(NL_CFLAGS)

# Host unit tests build the library's sources with ASan and UBSan: a read
# past a packet buffer fails the test instead of passing by luck.
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
$(B)/tests/%: tests/host/%.c $(LIB_SRCS) $(wildcard userlib/*.h uapi/linux/*.h kmod/tests/cut_vectors.h)
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) $(SAN) -Itests/host -o $@ $< $(LIB_SRCS) $(TEST_SRCS) -lpthread

# netslicectl over a made-up module: tests/host/fake_nl.c for its netlink
# side (tools/ctl/nl.c), so that test_ctl_fake.sh runs on a host what
# needs the kernel's answers.
$(B)/tests/netslicectl-fake: tests/host/fake_nl.c $(filter-out $(B)/tools/ctl/nl.o,$(CTL_OBJS)) \
		$(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) $(NL_CFLAGS) -Itools/ctl -o $@ $< $(filter %.o,$^) $(LIB_A) $(NL_LIBS) \
		-lpthread

# test_cut runs the cut's parser as the module and offline mode build it.
$(B)/tests/test_cut: TEST_SRCS := kmod/cut_parser.c
$(B)/tests/test_cut: kmod/cut_parser.c kmod/cut_parser.h

# ns_run() over eventfds: the library's calls into the device land in the test.
$(B)/tests/test_run: NS_CFLAGS += -Wl,--wrap=ns_slice_count,--wrap=ns_open,--wrap=ns_info_get

$(B)/tests/%: $(B)/tests/guest/%.o $(LIB_A)
	$(CC) $(CFLAGS) -o $@ $^ -lpthread

# faultloop's delete rounds speak raw rtnetlink and genetlink, chain_check
# sets chains with raw genetlink (not through netslicectl).
$(B)/tests/faultloop $(B)/tests/chain_check: $(B)/tests/guest/nlreq.o

$(B)/tests/host/%.o $(B)/tests/guest/%.o: NS_CFLAGS += -Itests/host

$(FUZZ): $(wildcard tests/fuzz/*.c tests/fuzz/*.h) uapi/linux/netslice.h uapi/linux/netslice_netlink.h
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) -o $@ $(filter %.c,$^) -lpthread

$(B)/bench/bench-sink: bench/sink.c
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) -o $@ $<

$(B)/bench/afp-fwd: bench/afp_fwd.c
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) -o $@ $<

$(B)/bench/nsmark: bench/nsmark.c bench/nsmark.h
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) -o $@ $<

$(B)/bench/conn-gen: bench/conn_gen.c bench/gen_frame.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) -o $@ $(filter-out %.h,$^)

$(B)/bench/hostgen: bench/hostgen.c bench/gen_frame.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) -Ibench -o $@ $(filter-out %.h,$^)

$(B)/bench/rule-gen: bench/rule_gen.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) -o $@ $^

# Callbacks take arguments they need not use: -Wno-unused-parameter.
$(BENCH_PLUGIN): bench/plugin/nsinsn.c
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) -Wno-unused-parameter -fPIC -shared \
		-I"$$(scripts/fetch-qemu-plugin.sh)" $$($(PKG_CONFIG) --cflags glib-2.0) -o $@ $<

$(B)/bench/xsk-fwd: bench/xsk_fwd.c
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) $(XDP_CFLAGS) -o $@ $< $(XDP_LIBS)

$(B)/bench/xdpgen: bench/xdpgen.c bench/xdpgen_sink.c bench/xdpgen_sink.h bench/nsmark.h bench/gen_frame.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) $$($(PKG_CONFIG) --cflags libbpf) -Ibench -o $@ $(filter-out %.h,$^) \
		$$($(PKG_CONFIG) --libs libbpf)

deps:
	NETSLICE_KERNELS="$(KERNELS)" scripts/deps.sh

# deps first, then a sub-make: KDIR is chosen after the headers exist.
# The builds go through ccache (scripts/ccache-env.sh) once deps installed it.
check: deps
	scripts/ccache-env.sh $(MAKE) all test-bins
	NETSLICE_KERNELS="$(KERNELS)" NETSLICE_KUNIT_KERNELS="$(KUNIT_KERNELS)" \
		NETSLICE_FULL_KERNELS="$(FULL_KERNELS)" NETSLICE_GUEST_SKIP="$(GUEST_SKIP)" \
		scripts/ccache-env.sh tests/check.sh

# No deps, no kernel tree: what user space needs to build (README) is enough.
check-host:
	$(MAKE) lib tools man host-test-bins
	tests/check.sh --host

# The newest kernel Debian has, often a release candidate from experimental:
# the next break is seen the week it lands (docs/testing.md).
check-newest:
	scripts/kbuild.sh newest
	scripts/lint.sh
	scripts/kunit.sh newest

check-debug: deps
	NETSLICE_DEBUG_SMOKE=$(if $(SMOKE),1,0) scripts/ccache-env.sh tests/debug/check.sh

demo: deps
	scripts/ccache-env.sh $(MAKE) all demo-bins
	scripts/demo.sh

# The module under /lib/modules/KVER/updates, then depmod (not into DESTDIR:
# a staging root is indexed when it is installed for real).
# KO: a module built for KVER elsewhere (scripts/kbuild.sh) instead of kmod/'s,
# which is (re)built first.
ifeq ($(origin KO),undefined)
KO := kmod/netslice.ko
install: module
endif
install: install-lib install-units install-system
	install -D -m 0644 $(KO) $(DESTDIR)/lib/modules/$(KVER)/updates/netslice.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

# What the module's devices need from the system: the udev rule giving
# group netslice its nodes, that group (sysusers.d; created here unless
# staging), and the modprobe.d example (a changed one is kept).
install-system:
	install -D -m 0644 dist/70-netslice.rules $(DESTDIR)$(UDEVDIR)/70-netslice.rules
	install -D -m 0644 dist/sysusers.d/netslice.conf $(DESTDIR)$(SYSUSERSDIR)/netslice.conf
	test -e $(DESTDIR)$(MODPROBEDIR)/netslice.conf || \
		install -D -m 0644 dist/modprobe.d/netslice.conf $(DESTDIR)$(MODPROBEDIR)/netslice.conf
	if [ -z "$(DESTDIR)" ]; then \
		getent group netslice >/dev/null || groupadd --system netslice; \
		! command -v udevadm >/dev/null || udevadm control --reload || true; \
	fi

# The NFs' systemd template unit and their example configuration files in
# SYSCONFDIR/netslice (one a user changed is kept; nf-ipsec's keys 0600).
install-units:
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/netslice
	for u in $(UNITS); do \
		$(SUBST) dist/systemd/$$u >$(DESTDIR)$(UNITDIR)/$$u && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	for f in $(NF_CONFS); do \
		dst=$(DESTDIR)$(SYSCONFDIR)/netslice/$$f; \
		mode=0644; case $$f in ipsec-*) mode=0600 ;; esac; \
		test -e $$dst || { $(SUBST) dist/netslice/$$f >$$dst && chmod $$mode $$dst; } || exit 1; \
	done
	if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi

# Library, headers, pkg-config file, tools, man pages, completion and docs.
# The tools as installed (tool_rules), built on their own by debian/rules
inst-tools: $(INST_TOOLS)

install-lib: lib $(INST_TOOLS)
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(INCLUDEDIR)/netslice/linux $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions \
		$(DESTDIR)$(DATADIR)/netslice $(DESTDIR)$(DOCDIR)/examples
	install -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(B)/$(LIB_SO_FILE) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIB_SO_FILE) $(DESTDIR)$(LIBDIR)/$(LIB_SO_NAME)
	ln -sf $(LIB_SO_NAME) $(DESTDIR)$(LIBDIR)/libnetslice.so
	$(SUBST) userlib/netslice.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/netslice.pc
	install -m 0644 userlib/netslice.h userlib/netslice_pkt.h $(DESTDIR)$(INCLUDEDIR)/netslice/
	install -m 0644 uapi/linux/netslice.h uapi/linux/netslice_netlink.h uapi/linux/netslice_cut.h \
		$(DESTDIR)$(INCLUDEDIR)/netslice/linux/
	install -m 0644 uapi/netslice.yaml $(DESTDIR)$(DATADIR)/netslice/
	install -m 0755 $(USER_TOOLS:$(B)/bin/%=$(B)/inst/%) $(DESTDIR)$(BINDIR)/
	install -m 0755 $(ADMIN_TOOLS:$(B)/bin/%=$(B)/inst/%) $(DESTDIR)$(SBINDIR)/
	for m in $(MANS:$(B)/man/%=%); do \
		$(call RENDER_MAN,docs/man/$$m) >$(DESTDIR)$(MANDIR)/man$${m##*.}/$$m || exit 1; \
	done
	install -m 0644 README.md $(DOCS) $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/examples/*.c $(DESTDIR)$(DOCDIR)/examples/
	install -m 0644 tools/ctl/netslicectl.bash \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/netslicectl
	install -m 0644 tools/nf/nf.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/nf-fwd
	for n in $(filter-out nf-fwd,$(NFS)); do \
		ln -sf nf-fwd $(DESTDIR)$(DATADIR)/bash-completion/completions/$$n || exit 1; \
	done
	if [ -z "$(DESTDIR)" ]; then ldconfig; fi

# Everything install put in place; a changed modprobe.d or NF configuration
# file is kept.
uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/updates/netslice.ko $(DESTDIR)$(UDEVDIR)/70-netslice.rules \
		$(DESTDIR)$(SYSUSERSDIR)/netslice.conf
	! cmp -s dist/modprobe.d/netslice.conf $(DESTDIR)$(MODPROBEDIR)/netslice.conf || \
		rm -f $(DESTDIR)$(MODPROBEDIR)/netslice.conf
	rm -f $(DESTDIR)$(LIBDIR)/libnetslice.a $(DESTDIR)$(LIBDIR)/libnetslice.so \
		$(DESTDIR)$(LIBDIR)/$(LIB_SO_NAME) $(DESTDIR)$(LIBDIR)/$(LIB_SO_FILE) \
		$(DESTDIR)$(LIBDIR)/pkgconfig/netslice.pc \
		$(MAN1:$(B)/man/%=$(DESTDIR)$(MANDIR)/man1/%) \
		$(MAN8:$(B)/man/%=$(DESTDIR)$(MANDIR)/man8/%) \
		$(MAN3:$(B)/man/%=$(DESTDIR)$(MANDIR)/man3/%) \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/netslicectl \
		$(NFS:%=$(DESTDIR)$(DATADIR)/bash-completion/completions/%)
	rm -f $(USER_TOOLS:$(B)/bin/%=$(DESTDIR)$(BINDIR)/%) \
		$(ADMIN_TOOLS:$(B)/bin/%=$(DESTDIR)$(SBINDIR)/%) \
		$(UNITS:%=$(DESTDIR)$(UNITDIR)/%)
	for f in $(NF_CONFS); do \
		$(SUBST) dist/netslice/$$f | cmp -s - $(DESTDIR)$(SYSCONFDIR)/netslice/$$f && \
			rm -f $(DESTDIR)$(SYSCONFDIR)/netslice/$$f; \
	done; rmdir $(DESTDIR)$(SYSCONFDIR)/netslice 2>/dev/null || true
	rm -rf $(DESTDIR)$(INCLUDEDIR)/netslice $(DESTDIR)$(DATADIR)/netslice $(DESTDIR)$(DOCDIR)
	@# The DKMS tree dkms-install made, not one a package (netslice-dkms) owns.
	if ! dpkg -S $(DKMS_SRC) >/dev/null 2>&1; then \
		if [ -z "$(DESTDIR)" ] && command -v dkms >/dev/null && \
			[ -n "$$(dkms status netslice/$(VERSION) 2>/dev/null)" ]; then \
			dkms remove netslice/$(VERSION) --all; \
		fi; \
		rm -rf $(DKMS_SRC); \
	fi
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); ldconfig; fi

# DKMS builds the module from /usr/src/netslice-VERSION for every kernel
# (DKMS_SRCDIR: another parent, for a staged install only).
DKMS_SRCDIR ?= /usr/src
DKMS_SRC := $(DESTDIR)$(DKMS_SRCDIR)/netslice-$(VERSION)
dkms-install:
	install -d $(DKMS_SRC)
	cp -r Kbuild kmod uapi $(DKMS_SRC)/
	sed 's/#MODULE_VERSION#/$(VERSION)/' dist/dkms.conf >$(DKMS_SRC)/dkms.conf
	find $(DKMS_SRC) \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) -delete
	if [ -z "$(DESTDIR)" ]; then dkms install netslice/$(VERSION); fi

# netslice against AF_PACKET, AF_XDP and the bridge, then the rule-update
# run; see docs/benchmarks.md. KERNEL=6.1|6.12 (default 6.12), QUICK=1,
# KVM=1, ICOUNT=1, NICS=GEN,IN,OUT,SINK (real NICs on this host, no guest),
# MEASURE=insns|cache|ticks|rules|tcp|all (instructions per frame under a QEMU
# plugin, the main measure; its cache model's pass alone; or rates and CPU
# ticks; or rule updates), TOPOLOGY=veth|nic|all (where the instruction
# count runs: veth pairs, the guest's virtio-net NICs, both), CACHE=0|1,
# ROWS=chain (the instruction count's chain rows alone).
bench: all test-bins $(BENCH_PLUGIN)
	KERNEL=$(KERNEL) QUICK=$(QUICK) KVM=$(KVM) ICOUNT=$(ICOUNT) NICS=$(NICS) BASELINE=$(BASELINE) \
		MEASURE=$(MEASURE) TOPOLOGY=$(TOPOLOGY) ROWS=$(ROWS) \
		bench/bench.sh

lint:
	scripts/lint.sh

hooks:
	python3 scripts/check-commits.py --install-hook

deb:
	scripts/deb.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null 2>&1
	rm -rf $(B)
