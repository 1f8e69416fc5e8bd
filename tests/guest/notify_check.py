#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run COMMAND as systemd runs a Type=notify service and report what it said.

    notify_check.py [--reload] [--wait-for PATH] COMMAND...
    notify_check.py --until-exit COMMAND...

Binds a datagram socket, starts COMMAND with NOTIFY_SOCKET naming it, and
prints one line per event: "ready STATUS nodes=N" when READY=1 arrives
(N: /dev/netslice-* the process holds open at that moment), with --reload
"reloading" and "ready-again" around a SIGHUP (as ExecReload sends), then
"stopping" after SIGTERM and "exit RC". With --wait-for, the SIGTERM waits
until PATH exists (the caller's traffic is through); "exit RC" at once if
COMMAND ends first. Exits 1 if an expected message does not come within
the time limit (NETSLICE_TIMEOUT_SCALE times 60 s).
With --until-exit, for a COMMAND that fails: "message KEY=VALUE|..." for
each message it sends until it exits by itself, then "exit RC".
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

LIMIT = 60 * float(os.environ.get("NETSLICE_TIMEOUT_SCALE", "1"))


def nodes_open(pid):
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            n += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("/dev/netslice-")
        except OSError:
            pass
    return n


def expect(sock, key, proc=None):
    """The next message carrying KEY=1, as a dict, or None on timeout or
    once proc has ended with no such message sent (a STATUS= it sent is
    printed: why it did not start)."""
    deadline = time.monotonic() + LIMIT
    ended = False
    sock.settimeout(0.2)
    while True:
        try:
            msg = sock.recv(4096).decode()
        except (socket.timeout, BlockingIOError):
            if ended or time.monotonic() > deadline:
                return None
            if proc and proc.poll() is not None:
                # What it sent before it ended is queued: read that first.
                ended = True
                sock.setblocking(False)
            continue
        fields = dict(line.split("=", 1) for line in msg.splitlines() if "=" in line)
        if fields.get(key) == "1":
            return fields
        if "STATUS" in fields and proc:
            print(f"status {fields['STATUS']}", flush=True)


def until_exit(sock, proc):
    """Every message until proc ends by itself, one line each, then its status."""
    deadline = time.monotonic() + LIMIT
    sock.settimeout(0.1)
    while True:
        try:
            msg = sock.recv(4096).decode()
            print("message " + msg.replace("\n", "|"), flush=True)
        except socket.timeout:
            if proc.poll() is not None:
                break
            if time.monotonic() > deadline:
                print("no exit", flush=True)
                return 1
    # Sent before it exited, queued after the last look: read them too.
    sock.setblocking(False)
    while True:
        try:
            print("message " + sock.recv(4096).decode().replace("\n", "|"), flush=True)
        except BlockingIOError:
            break
    print(f"exit {proc.returncode}", flush=True)
    return 0


def wait_for(path, proc):
    """Until path exists (True), or proc ends first or the caller never makes it."""
    deadline = time.monotonic() + 10 * LIMIT
    while not os.path.exists(path):
        if proc.poll() is not None:
            print(f"exit {proc.returncode} before {path}", flush=True)
            return False
        if time.monotonic() > deadline:
            print(f"no {path}", flush=True)
            return False
        time.sleep(0.05)
    return True


def main():
    args = sys.argv[1:]
    reload = to_exit = False
    wait_path = None
    while args[:1] in (["--reload"], ["--until-exit"], ["--wait-for"]):
        if args[0] == "--wait-for":
            wait_path = args[1]
            args = args[2:]
            continue
        reload |= args[0] == "--reload"
        to_exit |= args[0] == "--until-exit"
        args = args[1:]
    # Killed (a test's cleanup): the finally below takes COMMAND along.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    path = os.path.join(tempfile.mkdtemp(), "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    proc = subprocess.Popen(args, env=dict(os.environ, NOTIFY_SOCKET=path))
    ok = True
    try:
        if to_exit:
            return until_exit(sock, proc)
        fields = expect(sock, "READY", proc)
        if fields is None:
            print("no READY=1" + (f", exit {proc.returncode}" if proc.poll() is not None else ""))
            return 1
        print(f"ready {fields.get('STATUS', '')} nodes={nodes_open(proc.pid)}", flush=True)
        if reload:
            proc.send_signal(signal.SIGHUP)
            if expect(sock, "RELOADING", proc) is None:
                print("no RELOADING=1 after SIGHUP")
                ok = False
            elif expect(sock, "READY", proc) is None:
                print("no READY=1 after the reload")
                ok = False
            else:
                print("reloading", flush=True)
                print("ready-again", flush=True)
        if wait_path and not wait_for(wait_path, proc):
            return 1
        proc.send_signal(signal.SIGTERM)
        if expect(sock, "STOPPING", proc) is None:
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
