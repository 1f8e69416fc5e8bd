#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run COMMAND as systemd runs a Type=notify service and report what it said.

    notify_check.py [--reload] COMMAND...

Binds a datagram socket, starts COMMAND with NOTIFY_SOCKET naming it, and
prints one line per event: "ready STATUS nodes=N" when READY=1 arrives
(N: /dev/netslice-* the process holds open at that moment), with --reload
"reloading" and "ready-again" around a SIGHUP (as ExecReload sends), then
"stopping" after SIGTERM and "exit RC". Exits 1 if an expected message
does not come within the time limit (NETSLICE_TIMEOUT_SCALE times 60 s).
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile

LIMIT = 60 * float(os.environ.get("NETSLICE_TIMEOUT_SCALE", "1"))


def nodes_open(pid):
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            n += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("/dev/netslice-")
        except OSError:
            pass
    return n


def expect(sock, key):
    """The next message carrying KEY=1, as a dict, or None on timeout."""
    sock.settimeout(LIMIT)
    while True:
        try:
            msg = sock.recv(4096).decode()
        except socket.timeout:
            return None
        fields = dict(line.split("=", 1) for line in msg.splitlines() if "=" in line)
        if fields.get(key) == "1":
            return fields


def main():
    args = sys.argv[1:]
    reload = args[:1] == ["--reload"]
    if reload:
        args = args[1:]
    path = os.path.join(tempfile.mkdtemp(), "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    proc = subprocess.Popen(args, env=dict(os.environ, NOTIFY_SOCKET=path))
    ok = True
    try:
        fields = expect(sock, "READY")
        if fields is None:
            print("no READY=1")
            return 1
        print(f"ready {fields.get('STATUS', '')} nodes={nodes_open(proc.pid)}", flush=True)
        if reload:
            proc.send_signal(signal.SIGHUP)
            if expect(sock, "RELOADING") is None:
                print("no RELOADING=1 after SIGHUP")
                ok = False
            elif expect(sock, "READY") is None:
                print("no READY=1 after the reload")
                ok = False
            else:
                print("reloading", flush=True)
                print("ready-again", flush=True)
        proc.send_signal(signal.SIGTERM)
        if expect(sock, "STOPPING") is None:
            print("no STOPPING=1 after SIGTERM")
            ok = False
        else:
            print("stopping", flush=True)
        print(f"exit {proc.wait(timeout=LIMIT)}", flush=True)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.unlink(path)
        os.rmdir(os.path.dirname(path))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
