#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send one hand-made request to the netslice family, as netslicectl never
would (attributes missing, out of range or of the wrong size), and print
the ack: "errno N msg MESSAGE [missing TYPE] [offset N]".

  nlraw.py CMD [TYPE:u8|u16|u32|str|hex:VALUE ...]
"""
import os
import socket
import struct
import sys

NETLINK_GENERIC, GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 16, 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
NLM_F_REQUEST, NLM_F_ACK, NLMSG_ERROR = 1, 4, 2
SOL_NETLINK, NETLINK_EXT_ACK, NETLINK_CAP_ACK = 270, 11, 10
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS, NLMSGERR_ATTR_MISS_TYPE = 1, 2, 5


def attr(t, payload):
    a = struct.pack("HH", 4 + len(payload), t) + payload
    return a + b"\0" * (-len(a) % 4)


def parse_attrs(data):
    out = {}
    while len(data) >= 4:
        ln, t = struct.unpack("HH", data[:4])
        out[t & 0x3fff] = data[4:ln]
        data = data[(ln + 3) & ~3:]
    return out


def request(sock, family, cmd, payload, seq):
    """The reply of a get (no ack asked), or the ack of anything else."""
    get = family == GENL_ID_CTRL
    msg = struct.pack("BBH", cmd, 1, 0) + payload
    flags = NLM_F_REQUEST | (0 if get else NLM_F_ACK)
    sock.send(struct.pack("IHHII", 16 + len(msg), family, flags, seq, 0) + msg)
    while True:
        data = sock.recv(65536)
        while data:
            ln, typ = struct.unpack("IH", data[:6])
            if typ == NLMSG_ERROR:
                return data[16:ln]
            if get and typ == family:
                return data[16:ln]
            data = data[(ln + 3) & ~3:]


def main():
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
    reply = request(sock, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                    attr(CTRL_ATTR_FAMILY_NAME, b"netslice\0"), 1)
    family = struct.unpack("H", parse_attrs(reply[4:])[CTRL_ATTR_FAMILY_ID][:2])[0]
    payload = b""
    for spec in sys.argv[2:]:
        t, kind, value = spec.split(":", 2)
        data = {"u8": lambda v: struct.pack("B", int(v)), "u16": lambda v: struct.pack("H", int(v)),
                "u32": lambda v: struct.pack("I", int(v)), "str": lambda v: v.encode() + b"\0",
                "hex": bytes.fromhex}[kind](value)
        payload += attr(int(t), data)
    ack = request(sock, family, int(sys.argv[1]), payload, 2)
    err = -struct.unpack("i", ack[:4])[0]
    tlv = parse_attrs(ack[20:])
    line = f"errno {err}"
    if NLMSGERR_ATTR_MSG in tlv:
        line += " msg " + tlv[NLMSGERR_ATTR_MSG].rstrip(b"\0").decode()
    if NLMSGERR_ATTR_MISS_TYPE in tlv:
        line += f" missing {struct.unpack('I', tlv[NLMSGERR_ATTR_MISS_TYPE])[0]}"
    if NLMSGERR_ATTR_OFFS in tlv:
        line += f" offset {struct.unpack('I', tlv[NLMSGERR_ATTR_OFFS])[0]}"
    print(line)


if __name__ == "__main__":
    main()
