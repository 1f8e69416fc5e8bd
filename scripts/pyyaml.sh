#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Print a python3 that can import yaml (the PATH's, or Debian's python3-yaml).
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import yaml' 2>/dev/null; then
		command -v "$py"
		exit 0
	fi
done
echo "pyyaml.sh: no python3 with PyYAML (apt install python3-yaml)" >&2
echo false
exit 1
