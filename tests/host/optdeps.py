# SPDX-License-Identifier: GPL-2.0
"""make check-host's optional dependencies (docs/testing.md lists them): a
check that needs one that is missing skips, its reason naming the package
that brings it, rather than failing or raising."""
import importlib
import shutil


def missing_command(cmd, package):
    """Why a check needing cmd skips here, or None if cmd is on PATH."""
    return None if shutil.which(cmd) else "no %s (Debian: %s)" % (cmd, package)


def missing_module(name, package):
    """Why a check needing Python module name skips here, or None if it imports."""
    try:
        importlib.import_module(name)
    except ImportError:
        return "no Python module %s (Debian: %s)" % (name, package)
    return None
