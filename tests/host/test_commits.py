#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/check-commits.py against fixture messages, in a scratch repository:
as the commit-msg hook (a good message, a long subject, no subsystem, a
kmod/ change without a body), over a range from the baseline, and where the
baseline cannot be found (skipped, never passed). KTAP."""
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECKER = os.path.join(TOP, "scripts", "check-commits.py")
ENV = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
           GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
           GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")

GOOD = "tests: a subject of the house form\n\nWhy it was done.\n"
LONG = "tests: " + "a subject one word too long for the log's one line, " * 2 + "\n"
NO_PREFIX = "Fix the thing that was broken\n\nWhy.\n"
UPPER = "Kmod: a subsystem in capitals\n\nWhy.\n"
NO_BODY = "kmod: a change to the module with no word of why\n"
KMOD_BODY = ("kmod: a change to the module, and why\n\nThe reviewers read this.\n\n"
             "Signed-off-by: t <t@example.org>\n")
TRAILER_ONLY = "kmod: a change with only a sign-off\n\nSigned-off-by: t <t@example.org>\n"
LIST = ("libnetslice, nf, build: a list of subsystems\n\n# a comment line git drops\n"
        "Why.\n")
COMMENTED = "# Please enter the commit message\ndocs: a subject after git's comments\n"

results = []


def check(ok, what, diag=""):
    if diag and not ok:
        for line in diag.rstrip().split("\n"):
            print("# " + line)
    results.append(ok)
    print("%s %d %s" % ("ok" if ok else "not ok", len(results), what))


def run(cmd, cwd, check_rc=True):
    p = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True)
    if check_rc and p.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), p.stderr))
    return p


def commit(repo, path, message):
    with open(os.path.join(repo, path), "a") as f:
        f.write("x\n")
    run(["git", "add", path], repo)
    run(["git", "commit", "-q", "--no-verify", "-m", message], repo)
    return run(["git", "rev-parse", "HEAD"], repo).stdout.strip()


def hook_rc(repo, message, path):
    """The hook's exit status for MESSAGE with PATH staged."""
    with open(os.path.join(repo, path), "a") as f:
        f.write("y\n")
    run(["git", "add", path], repo)
    msg = os.path.join(repo, ".git", "MSG")
    with open(msg, "w") as f:
        f.write(message)
    p = run([sys.executable, CHECKER, "--hook", msg], repo, check_rc=False)
    run(["git", "reset", "-q", "--hard"], repo)
    return p.returncode, p.stderr


def checker(repo):
    return run([sys.executable, CHECKER, "-C", repo], TOP, check_rc=False)


def skipped(p):
    """Skipped, exit 0, and nothing passed."""
    return p.returncode == 0 and "# SKIP" in p.stdout and "\nok 1 commit messages # SKIP" in \
        p.stdout and "# 0 passed, 0 failed, 1 skipped" in p.stdout


def main():
    print("KTAP version 1")
    print("1..19")
    tmp = tempfile.mkdtemp(prefix="netslice-commits-")
    try:
        repo = os.path.join(tmp, "repo")
        for d in ("kmod", "uapi/linux", "docs", "scripts"):
            os.makedirs(os.path.join(repo, d))
        run(["git", "init", "-q", repo], tmp)
        for path in ("kmod/a.c", "uapi/linux/a.h"):
            open(os.path.join(repo, path), "w").close()
            run(["git", "add", path], repo)
        base = commit(repo, "docs/a.md", "An old subject that broke the rules")
        with open(os.path.join(repo, "scripts", "commits-baseline"), "w") as f:
            f.write(base + "\n")
        run(["git", "add", "scripts/commits-baseline"], repo)
        run(["git", "commit", "-q", "-m", "scripts: the commit-message check's baseline"], repo)

        for name, message, path, want in (
                ("a good message", GOOD, "docs/a.md", 0),
                ("a subject over 72 characters", LONG, "docs/a.md", 1),
                ("a subject with no subsystem", NO_PREFIX, "docs/a.md", 1),
                ("a subsystem in capitals", UPPER, "kmod/a.c", 1),
                ("a kmod/ change without a body", NO_BODY, "kmod/a.c", 1),
                ("a uapi/ change without a body", NO_BODY.replace("kmod", "uapi"),
                 "uapi/linux/a.h", 1),
                ("a kmod/ change whose body is a sign-off alone", TRAILER_ONLY, "kmod/a.c", 1),
                ("a kmod/ change with a body", KMOD_BODY, "kmod/a.c", 0),
                ("a list of subsystems, a comment in the body", LIST, "docs/a.md", 0),
                ("git's comment lines before the subject", COMMENTED, "docs/a.md", 0),
                ("git's message for a revert of a kmod/ change",
                 'Revert "kmod: %s"\n\nThis reverts commit %s.\n' % ("x" * 70, "0" * 40),
                 "kmod/a.c", 0)):
            rc, err = hook_rc(repo, message, path)
            check(rc == want, "hook: %s %s" % (name, "passes" if want == 0 else "fails"), err)

        # Over the range: the baseline's own bad subject is not looked at.
        good = commit(repo, "docs/a.md", "docs: a good one after the baseline")
        p = checker(repo)
        check(p.returncode == 0 and "ok 2 " + good[:12] in p.stdout and "1..2" in p.stdout,
              "range: the commits after the baseline, all good, pass", p.stdout)
        bad = commit(repo, "kmod/a.c", NO_BODY)
        p = checker(repo)
        check(p.returncode == 1 and "not ok 3 " + bad[:12] in p.stdout and
              "ok 2 " + good[:12] in p.stdout and "no body" in p.stdout,
              "range: a kmod/ change without a body fails, its neighbours pass", p.stdout)

        # Where the baseline cannot be seen: a skip that says why.
        shallow = os.path.join(tmp, "shallow")
        run(["git", "clone", "-q", "--depth", "1", "file://" + repo, shallow], tmp)
        p = checker(shallow)
        check(skipped(p) and "shallow" in p.stdout, "range: a shallow clone is skipped", p.stdout)
        export = os.path.join(tmp, "export")
        shutil.copytree(repo, export, ignore=shutil.ignore_patterns(".git"))
        p = checker(export)
        check(skipped(p) and "not a git checkout" in p.stdout,
              "range: a tree with no git is skipped", p.stdout)
        with open(os.path.join(repo, "scripts", "commits-baseline"), "w") as f:
            f.write("0123456789abcdef0123456789abcdef01234567\n")
        p = checker(repo)
        check(skipped(p) and "0123456789ab" in p.stdout,
              "range: a baseline missing from the history is skipped", p.stdout)

        # make hooks: the installed hook refuses a bad message in a real commit.
        shutil.copy(CHECKER, os.path.join(repo, "scripts"))
        p = run([sys.executable, os.path.join(repo, "scripts", "check-commits.py"),
                 "--install-hook"], repo, check_rc=False)
        check(p.returncode == 0 and os.access(os.path.join(repo, ".git", "hooks", "commit-msg"),
                                              os.X_OK), "hooks: installed", p.stderr)
        with open(os.path.join(repo, "kmod", "a.c"), "a") as f:
            f.write("z\n")
        run(["git", "add", "kmod/a.c"], repo)
        p = run(["git", "commit", "-q", "-m", NO_BODY], repo, check_rc=False)
        refused = p.returncode != 0 and "no body" in p.stderr
        p = run(["git", "commit", "-q", "-m", KMOD_BODY], repo, check_rc=False)
        check(refused and p.returncode == 0, "hooks: git commit refuses a bad message, "
              "takes a good one", p.stderr)
        # git's own message for a merge (git revert runs no hook: its
        # message is checked over the range, as the loop above checks it).
        run(["git", "checkout", "-q", "-b", "side", "HEAD~1"], repo)
        commit(repo, "docs/b.md", "docs: a side branch")
        run(["git", "checkout", "-q", "-"], repo)
        p = run(["git", "merge", "-q", "--no-ff", "--no-edit", "side"], repo, check_rc=False)
        check(p.returncode == 0 and os.path.exists(os.path.join(repo, "docs", "b.md")),
              "hooks: git merge's message is taken", p.stderr)
    finally:
        shutil.rmtree(tmp)
    failed = results.count(False)
    print("# %d passed, %d failed, 0 skipped" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
