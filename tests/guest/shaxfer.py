#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Random bytes both ways over one TCP connection, every byte checked:
each end hashes what it sends and what it receives (sha256), and the
test compares the four digests. The guest chain tests run it across NFs.

  shaxfer.py serve PORT BYTES READY_FILE
      one connection: read to its end, then send BYTES of its own and
      close; print "peer ADDR got N SHA sent N SHA" (ADDR: who connected)
  shaxfer.py send ADDR PORT BYTES
      send BYTES, half-close, read to the end; print "sent N SHA got N SHA"
"""
import hashlib
import os
import socket
import sys

CHUNK = 1 << 16


def send_random(sock, total):
    h = hashlib.sha256()
    left = total
    while left:
        data = os.urandom(min(CHUNK, left))
        sock.sendall(data)
        h.update(data)
        left -= len(data)
    return h.hexdigest()


def recv_all(sock):
    h, n = hashlib.sha256(), 0
    while True:
        data = sock.recv(1 << 20)
        if not data:
            return n, h.hexdigest()
        h.update(data)
        n += len(data)


def serve(port, total, ready):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(1)
    open(ready, "w").close()
    conn, peer = srv.accept()
    got, got_sha = recv_all(conn)
    sent_sha = send_random(conn, total)
    # Everything it sent was read: close sends a FIN, not a reset.
    conn.close()
    print("peer %s got %d %s sent %d %s" % (peer[0], got, got_sha, total, sent_sha))


def send(addr, port, total):
    sock = socket.create_connection((addr, port))
    sent_sha = send_random(sock, total)
    sock.shutdown(socket.SHUT_WR)
    got, got_sha = recv_all(sock)
    sock.close()
    print("sent %d %s got %d %s" % (total, sent_sha, got, got_sha))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "serve":
        serve(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 5 and sys.argv[1] == "send":
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
