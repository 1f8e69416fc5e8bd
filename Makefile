# SPDX-License-Identifier: GPL-2.0
#
# make            module (kmod/netslice.ko), libnetslice and tools
# make check      deps, everything, host unit tests, guest tests on 6.1 and 6.12
# make demo       boot a guest and show netslice at work
# make install    module, library, headers, pkg-config file and tools
# make install-lib  the same without the module (DESTDIR-friendly)
# make lint       checkpatch --strict over the kernel sources
#
# KDIR selects the kernel build tree for the module.

VERSION := 0.4.0
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
B := build

ifeq ($(origin KDIR),undefined)
KDIR := $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1))
endif

NS_CFLAGS := -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2 -fPIC \
	-Iuapi -Iuserlib -Itools/nf -D_GNU_SOURCE $(CFLAGS)

LIB_SRCS := $(wildcard userlib/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
LIB_A := $(B)/libnetslice.a
LIB_SO := $(B)/libnetslice.so
PC := $(B)/netslice.pc
NFS := nf-fwd nf-firewall nf-monitor nf-nat nf-lb nf-ipsec
NF_COMMON := $(patsubst %.c,$(B)/%.o,$(filter-out $(NFS:nf-%=tools/nf/%.c),$(wildcard tools/nf/*.c)))
NF_LIBS_ipsec := -lcrypto
TOOLS := $(B)/bin/netslice-info $(NFS:%=$(B)/bin/%)
HOST_TESTS := $(B)/tests/test_cpulist $(B)/tests/test_slicing $(B)/tests/test_pkt
GUEST_BINS := $(B)/tests/dev_check $(B)/tests/nstraffic $(B)/tests/io_check \
	$(B)/tests/slice_check $(B)/tests/slice_nf $(B)/tests/nfclient

.PHONY: all module lib tools deps check demo install install-lib lint clean test-bins

all: module lib tools

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
		{ echo "netslice: no kernel build tree; install headers or set KDIR=" >&2; exit 1; }
	@echo "netslice: building the module against KDIR=$(KDIR)"
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

lib: $(LIB_A) $(LIB_SO) $(PC)
tools: $(TOOLS)
test-bins: $(HOST_TESTS) $(GUEST_BINS)

$(B)/%.o: %.c $(wildcard userlib/*.h tools/nf/*.h) uapi/linux/netslice.h
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJS)
	$(AR) rcs $@ $^

$(LIB_SO): $(LIB_OBJS)
	$(CC) -shared -Wl,-soname,libnetslice.so.0 -o $@.0 $^
	ln -sf libnetslice.so.0 $@

$(PC): userlib/netslice.pc.in
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< >$@

$(B)/bin/%: $(B)/tools/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lpthread

$(B)/bin/nf-%: $(B)/tools/nf/%.o $(NF_COMMON) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lpthread $(NF_LIBS_$*)

# Host unit tests build the library's sources with ASan and UBSan: a read
# past a packet buffer fails the test instead of passing by luck.
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
$(B)/tests/%: tests/host/%.c $(LIB_SRCS) $(wildcard userlib/*.h) uapi/linux/netslice.h
	@mkdir -p $(dir $@)
	$(CC) $(NS_CFLAGS) $(SAN) -Itests/host -o $@ $< $(LIB_SRCS) -lpthread

$(B)/tests/%: $(B)/tests/guest/%.o $(LIB_A)
	$(CC) $(CFLAGS) -o $@ $^ -lpthread

$(B)/tests/host/%.o $(B)/tests/guest/%.o: NS_CFLAGS += -Itests/host

deps:
	tools/deps.sh

# deps first, then a sub-make: KDIR is chosen after the headers exist.
check: deps
	$(MAKE) all test-bins
	tests/check.sh

demo: deps
	$(MAKE) all
	tools/demo.sh

install: all install-lib
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

# Library, headers, pkg-config file and tools (no module: testable in DESTDIR).
install-lib: lib tools
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/include/netslice/linux
	install -m 0644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(LIB_SO).0 $(DESTDIR)$(PREFIX)/lib/
	ln -sf libnetslice.so.0 $(DESTDIR)$(PREFIX)/lib/libnetslice.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' userlib/netslice.pc.in \
		>$(DESTDIR)$(PREFIX)/lib/pkgconfig/netslice.pc
	install -m 0644 userlib/netslice.h userlib/netslice_pkt.h $(DESTDIR)$(PREFIX)/include/netslice/
	install -m 0644 uapi/linux/netslice.h $(DESTDIR)$(PREFIX)/include/netslice/linux/
	install -m 0755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/

lint:
	tools/lint.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null 2>&1
	rm -rf $(B)
