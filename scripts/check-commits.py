#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Commit messages as the house writes them.

  check-commits.py [-C DIR] [REV_RANGE]   every commit of the range (default:
                                          the baseline's to HEAD), KTAP
  check-commits.py --hook MSG_FILE        one message, as git's commit-msg hook
  check-commits.py --install-hook         install that hook (make hooks)

A message's subject is "subsystem: what", at most 72 characters; the
subsystem is one or more lowercase names (a directory, a program, a file:
"kmod", "tests/vm/run", "libnetslice, nf, build") or a top-level file
(README, Makefile). A commit that touches kmod/ or uapi/ says why in a
body: the kernel's reviewers read it, and the history before this check
shows how often it was left out. git's own subjects (Revert "...", a
merge's) pass as they are.

The history before the check breaks these rules, so the range starts at
the commit named in scripts/commits-baseline (the last one before the
check existed). Where that commit is not in the clone (a shallow clone, an
export) or DIR is no git checkout, the range is skipped, saying so.
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE_FILE = "scripts/commits-baseline"
MAX_SUBJECT = 72
NAME = r"(?:[a-z0-9_.][a-z0-9_.@/+-]*|README(?:\.md)?|Makefile|Kbuild|COPYING|LICENSES)"
SUBJECT = re.compile(r"^%s(?:, %s)*: \S" % (NAME, NAME))
GIT_SUBJECT = re.compile(r'^(Revert ".*"|Merge (branch|remote-tracking branch|tag|commit) .*)$')
# Paths whose changes need a body: the module and its ABI.
NEEDS_BODY = ("kmod/", "uapi/")
TRAILER = re.compile(r"^(Signed-off-by|Co-developed-by|Reviewed-by|Acked-by|Tested-by|"
                     r"Reported-by|Suggested-by|Fixes|Link|Closes|Cc|Change-Id):", re.I)
SCISSORS = "------------------------ >8 ------------------------"
HOOK_MARK = "# netslice commit-msg hook (make hooks)"


def git(top, *args):
    return subprocess.run(["git", "-C", top] + list(args), check=True,
                          capture_output=True, text=True).stdout


def strip_comments(text):
    """The message as git stores it: no comment lines, nothing past the scissors."""
    lines = []
    for line in text.splitlines():
        if line.startswith("#") and SCISSORS in line:
            break
        if not line.startswith("#"):
            lines.append(line.rstrip())
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def problems(message, files):
    """What is wrong with MESSAGE (its text) for a commit changing FILES."""
    lines = strip_comments(message)
    if not lines:
        return ["the message is empty"]
    subject, rest = lines[0], lines[1:]
    found = []
    # git's own subjects: a revert names the commit it undoes in its body.
    if GIT_SUBJECT.match(subject):
        return found
    if len(subject) > MAX_SUBJECT:
        found.append("subject is %d characters, more than %d" % (len(subject), MAX_SUBJECT))
    if not SUBJECT.match(subject):
        found.append('subject does not start with "subsystem: " (lowercase names, '
                     'comma-separated)')
    if rest and rest[0]:
        found.append("no blank line after the subject")
    body = [line for line in rest if line.strip() and not TRAILER.match(line)]
    touched = sorted({f.split("/")[0] + "/" for f in files if f.startswith(NEEDS_BODY)})
    if touched and not body:
        found.append("changes %s but has no body saying why" % " and ".join(touched))
    return found


def hook(msg_file):
    """git's commit-msg hook: the message against the staged changes."""
    with open(msg_file, encoding="utf-8", errors="replace") as f:
        message = f.read()
    # A fixup or squash is folded into its target before it lands; a
    # merge's message is git's (the range check leaves merges out too).
    if re.match(r"^(fixup|squash|amend)! ", message) or \
            os.path.exists(git(os.getcwd(), "rev-parse", "--git-path", "MERGE_HEAD").strip()):
        return 0
    files = git(os.getcwd(), "diff", "--cached", "--name-only").split("\n")
    found = problems(message, files)
    for p in found:
        print("commit-msg: %s" % p, file=sys.stderr)
    if found:
        print("commit-msg: the message is kept in %s (git commit -e -F it)" % msg_file,
              file=sys.stderr)
    return 1 if found else 0


def install_hook():
    hooks = git(TOP, "rev-parse", "--git-path", "hooks").strip()
    hooks = os.path.join(TOP, hooks)
    path = os.path.join(hooks, "commit-msg")
    if os.path.exists(path):
        with open(path) as f:
            if HOOK_MARK not in f.read():
                print("hooks: %s is not ours; left as it is" % path, file=sys.stderr)
                return 1
    os.makedirs(hooks, exist_ok=True)
    # Through the checkout's own script, so that a branch without it commits freely.
    with open(path, "w") as f:
        f.write('#!/bin/sh\n%s\nf="$(git rev-parse --show-toplevel)/%s"\n'
                '[ ! -f "$f" ] || exec python3 "$f" --hook "$1"\n'
                % (HOOK_MARK, os.path.relpath(os.path.abspath(__file__), TOP)))
    os.chmod(path, 0o755)
    print("hooks: %s" % path)
    return 0


def skip_all(reason):
    print("KTAP version 1\n1..1\nok 1 commit messages # SKIP %s\n# 0 passed, 0 failed, 1 skipped"
          % reason)
    return 0


def baseline_range(top):
    """(range, None), or (None, why the range cannot be checked here)."""
    try:
        if os.path.realpath(git(top, "rev-parse", "--show-toplevel").strip()) != \
                os.path.realpath(top):
            return None, "%s is not a git checkout of its own" % top
    except (OSError, subprocess.CalledProcessError):
        return None, "%s is not a git checkout" % top
    try:
        with open(os.path.join(top, BASELINE_FILE)) as f:
            base = f.read().split()[0]
    except (OSError, IndexError):
        return None, "no baseline (%s)" % BASELINE_FILE
    shallow = git(top, "rev-parse", "--is-shallow-repository").strip() == "true"
    has = subprocess.run(["git", "-C", top, "cat-file", "-e", base + "^{commit}"],
                         capture_output=True).returncode == 0
    if not has or subprocess.run(["git", "-C", top, "merge-base", "--is-ancestor", base, "HEAD"],
                                 capture_output=True).returncode != 0:
        return None, "baseline %s is not in this clone's history%s" % (
            base[:12], " (a shallow clone)" if shallow else "")
    return base + "..HEAD", None


def check_range(top, rev_range):
    commits = git(top, "rev-list", "--reverse", "--no-merges", rev_range).split()
    print("KTAP version 1")
    if not commits:
        print("1..1\nok 1 commit messages # SKIP no commits in %s\n"
              "# 0 passed, 0 failed, 1 skipped" % rev_range)
        return 0
    print("1..%d" % len(commits))
    failed = 0
    for n, c in enumerate(commits, 1):
        message = git(top, "log", "-1", "--format=%B", c)
        files = git(top, "diff-tree", "--root", "--no-commit-id", "--name-only", "-r", c).split()
        found = problems(message, files)
        for p in found:
            print("# %s" % p)
        failed += bool(found)
        print("%s %d %s %s" % ("not ok" if found else "ok", n, c[:12],
                               message.split("\n", 1)[0][:80]))
    print("# %d passed, %d failed, 0 skipped" % (len(commits) - failed, failed))
    return 1 if failed else 0


def main(argv):
    top = TOP
    if argv[:1] == ["-C"] and len(argv) > 1:
        top, argv = os.path.abspath(argv[1]), argv[2:]
    if argv[:1] == ["--hook"] and len(argv) == 2:
        return hook(argv[1])
    if argv == ["--install-hook"]:
        return install_hook()
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if argv:
        return check_range(top, argv[0])
    rev_range, why = baseline_range(top)
    return skip_all(why) if why else check_range(top, rev_range)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
