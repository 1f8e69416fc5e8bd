# SPDX-License-Identifier: GPL-2.0
"""Crafted frames and pcapng files for the NFs' host tests.

Builders compute every checksum from scratch (an oracle independent of
libnetslice); `check()` recomputes them on frames the NFs wrote.
"""
import ipaddress
import struct

ETH_IP, ETH_IP6, ETH_ARP = 0x0800, 0x86DD, 0x0806
TCP, UDP, ICMP, ICMP6, ESP = 6, 17, 1, 58, 50


def csum(data, start=0):
    if len(data) % 2:
        data += b"\0"
    s = start + sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def mac(s):
    return bytes(int(b, 16) for b in s.split(":"))


def ip(s):
    return ipaddress.ip_address(s).packed


def eth(dst, src, etype, payload):
    return mac(dst) + mac(src) + struct.pack("!H", etype) + payload


def _pseudo(src, dst, proto, length):
    return sum(struct.unpack("!%dH" % ((len(src) * 2) // 2), src + dst)) + proto + length


def l4(src, dst, proto, hdr, body, csum_off):
    seg = bytearray(hdr + body)
    if proto == ICMP:
        c = csum(bytes(seg))
    else:
        c = csum(bytes(seg), _pseudo(ip(src), ip(dst), proto, len(seg)))
        if proto == UDP and c == 0:
            c = 0xFFFF
    seg[csum_off:csum_off + 2] = struct.pack("!H", c)
    return bytes(seg)


def udp(src, dst, sport, dport, body=b""):
    hdr = struct.pack("!HHHH", sport, dport, 8 + len(body), 0)
    return l4(src, dst, UDP, hdr, body, 6)


def tcp(src, dst, sport, dport, flags=0x02, seq=1, ack=0, body=b""):
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0)
    return l4(src, dst, TCP, hdr, body, 16)


def icmp(src, dst, typ=8, ident=0x1234, seq=1, body=b"ping"):
    proto = ICMP6 if ":" in src else ICMP
    if proto == ICMP6:
        typ = {8: 128, 0: 129}.get(typ, typ)
    hdr = struct.pack("!BBHHH", typ, 0, 0, ident, seq)
    return l4(src, dst, proto, hdr, body, 2)


def icmp_error(typ, code, quoted, rest=0):
    """An ICMPv4 error quoting the bytes of an IPv4 packet; rest: the 4 bytes after the
    checksum (the next-hop MTU of fragmentation needed)."""
    return l4("0.0.0.0", "0.0.0.0", ICMP, struct.pack("!BBHI", typ, code, 0, rest), quoted, 2)


def arp_reply(sender_mac, sender_ip, target_mac, target_ip):
    body = struct.pack("!HHBBH6s4s6s4s", 1, ETH_IP, 6, 4, 2, mac(sender_mac), ip(sender_ip),
                       mac(target_mac), ip(target_ip))
    return eth(target_mac, sender_mac, ETH_ARP, body + b"\0" * 18)


def ipv4(src, dst, proto, payload, ttl=64, ident=1, frag=0):
    hdr = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, frag,
                                ttl, proto, 0, ip(src), ip(dst)))
    hdr[10:12] = struct.pack("!H", csum(bytes(hdr)))
    return bytes(hdr) + payload


def ipv6(src, dst, proto, payload, hlim=64):
    return struct.pack("!IHBB16s16s", 6 << 28, len(payload), proto, hlim, ip(src),
                       ip(dst)) + payload


def packet(src, dst, proto, l4bytes, dmac="02:00:00:00:00:02", smac="02:00:00:00:00:01",
           **kw):
    """An Ethernet frame carrying an IPv4 or IPv6 packet."""
    if ":" in src:
        return eth(dmac, smac, ETH_IP6, ipv6(src, dst, proto, l4bytes))
    return eth(dmac, smac, ETH_IP, ipv4(src, dst, proto, l4bytes, **kw))


def arp_request(sender_mac, sender_ip, target_ip):
    body = struct.pack("!HHBBH6s4s6s4s", 1, ETH_IP, 6, 4, 1, mac(sender_mac), ip(sender_ip),
                       b"\0" * 6, ip(target_ip))
    return eth("ff:ff:ff:ff:ff:ff", sender_mac, ETH_ARP, body + b"\0" * 18)


class Frame:
    """A decoded Ethernet/IP frame (the fields tests look at)."""

    def __init__(self, data):
        self.data = data
        self.dst, self.src = data[0:6], data[6:12]
        self.etype = struct.unpack("!H", data[12:14])[0]
        self.proto = self.sport = self.dport = self.saddr = self.daddr = None
        self.l4 = b""
        off = 14
        if self.etype == ETH_IP:
            ihl = (data[off] & 15) * 4
            tot = struct.unpack("!H", data[off + 2:off + 4])[0]
            self.ttl, self.proto = data[off + 8], data[off + 9]
            self.saddr = str(ipaddress.ip_address(data[off + 12:off + 16]))
            self.daddr = str(ipaddress.ip_address(data[off + 16:off + 20]))
            self.l3 = data[off:off + ihl]
            self.l4 = data[off + ihl:off + tot]
        elif self.etype == ETH_IP6:
            plen = struct.unpack("!H", data[off + 4:off + 6])[0]
            self.proto, self.ttl = data[off + 6], data[off + 7]
            self.saddr = str(ipaddress.ip_address(data[off + 8:off + 24]))
            self.daddr = str(ipaddress.ip_address(data[off + 24:off + 40]))
            self.l3 = data[off:off + 40]
            self.l4 = data[off + 40:off + 40 + plen]
        if self.proto in (TCP, UDP) and len(self.l4) >= 4:
            self.sport, self.dport = struct.unpack("!HH", self.l4[:4])
        elif self.proto in (ICMP, ICMP6) and len(self.l4) >= 8:
            self.sport = self.dport = struct.unpack("!H", self.l4[4:6])[0]

    def checksums_ok(self):
        """Every IP and L4 checksum of the frame is right."""
        if self.etype == ETH_IP and csum(self.l3) != 0:
            return False
        if self.proto not in (TCP, UDP, ICMP, ICMP6):
            return True
        if self.proto == UDP and self.etype == ETH_IP and self.l4[6:8] == b"\0\0":
            return True
        if self.proto == ICMP:
            return csum(self.l4) == 0
        return csum(self.l4, _pseudo(ip(self.saddr), ip(self.daddr), self.proto,
                                     len(self.l4))) == 0


def write_pcapng(path, ifaces, packets, tsresol=None):
    """ifaces: [(name, mac or None)]; packets: [(iface index, time, bytes[, wire length])],
    times in microseconds, or in the units of tsresol (if_tsresol) when given."""
    with open(path, "wb") as f:
        f.write(pcapng_bytes(ifaces, packets, tsresol))


def pcapng_bytes(ifaces, packets, tsresol=None):
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        n = len(body) + 12
        return struct.pack("<II", btype, n) + body + struct.pack("<I", n)

    def opt(code, val):
        return struct.pack("<HH", code, len(val)) + val + b"\0" * (-len(val) % 4)

    # A bytearray: appending to bytes copies the whole file each packet.
    out = bytearray(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
    for name, m in ifaces:
        opts = opt(2, name.encode()) + (opt(6, mac(m)) if m else b"")
        opts += (opt(9, bytes([tsresol])) if tsresol is not None else b"") + b"\0" * 4
        out += block(1, struct.pack("<HHI", 1, 0, 65535) + opts)
    for pk in packets:
        idx, ts, data = pk[:3]
        wire = pk[3] if len(pk) > 3 and pk[3] is not None else len(data)
        # A fifth member: epb_queue, the queue the frame was received on.
        opts = opt(6, struct.pack("<I", pk[4])) + b"\0" * 4 if len(pk) > 4 else b""
        data += b"\0" * (-len(data) % 4)
        out += block(6, struct.pack("<IIIII", idx, ts >> 32, ts & 0xFFFFFFFF, len(pk[2]), wire) + data + opts)
    return bytes(out)


def pcap_bytes(packets, nanosecond=False, big_endian=False, linktype=1):
    """Classic pcap (Ethernet, or linktype): packets [(seconds, fraction, bytes[, wire length])]."""
    e = ">" if big_endian else "<"
    out = struct.pack(e + "IHHiIII", 0xA1B23C4D if nanosecond else 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype)
    for pk in packets:
        sec, frac, data = pk[:3]
        out += struct.pack(e + "IIII", sec, frac, len(data), pk[3] if len(pk) > 3 else len(data)) + data
    return out


def read_pcapng(path):
    """[(iface index, time in the file's units, bytes)] of a little-endian pcapng file."""
    return [pk[:3] for pk in read_pcapng_ext(path)[1]]


def read_pcapng_ext(path_or_bytes):
    """([if_tsresol of each interface], [(iface, time, bytes, wire length)])."""
    if isinstance(path_or_bytes, bytes):
        raw = path_or_bytes
    else:
        with open(path_or_bytes, "rb") as f:
            raw = f.read()
    off, out, resol = 0, [], []
    while off + 12 <= len(raw):
        btype, n = struct.unpack("<II", raw[off:off + 8])
        if btype == 1:
            r, o = 6, off + 16
            while o + 4 <= off + n - 4:
                code, olen = struct.unpack("<HH", raw[o:o + 4])
                if code == 0:
                    break
                if code == 9:
                    r = raw[o + 4]
                o += 4 + olen + (-olen % 4)
            resol.append(r)
        elif btype == 6:
            idx, hi, lo, cap, wire = struct.unpack("<IIIII", raw[off + 8:off + 28])
            out.append((idx, hi << 32 | lo, raw[off + 28:off + 28 + cap], wire))
        off += n
    return resol, out
