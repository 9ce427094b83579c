#!/usr/bin/env python3
"""Every file names ODS's repository and image registry as scripts/lib/release_names.sh defines them.

  scripts/check_names.py [REPOSITORY_ROOT]     exit 1 listing each file:line that names them otherwise

What it looks at, in every file git tracks (text only):
  - the repository: `<owner>/ods/ci/github@`, `github.com/<owner>/ods`, `raw.githubusercontent.com/<owner>/ods`
    must name ODS_GITHUB_REPOSITORY;
  - the images: `<registry>/ods-operator` and `<registry>/ods-runner` (the names exactly; a derived image
    such as `…/ods-runner-snowflake` is a user's own) must name ODS_IMAGE_REGISTRY, except local ones
    (`localhost/…`, what `make images` builds);
  - placeholders that said the same thing in other words before there was one definition
    (`your-org/`, `ghcr.io/acme`, `registry.example/`) are refused outright.
"""
import re
import subprocess
import sys
from pathlib import Path

SELF = "scripts/check_names.py"
DEFINITIONS = "scripts/lib/release_names.sh"
DESCRIBES_THE_CHECK = "docs/release.md"  # names the refused placeholders to say they are refused


def names(root):
    values = {}
    for line in (root / DEFINITIONS).read_text().splitlines():
        m = re.match(r"^(ODS_[A-Z_]+)=(\S+)", line)
        if m:
            values[m.group(1)] = m.group(2)
    missing = {"ODS_GITHUB_REPOSITORY", "ODS_IMAGE_REGISTRY"} - values.keys()
    if missing:
        sys.exit(f"check_names: {DEFINITIONS} does not define {', '.join(sorted(missing))}")
    return values


REPOSITORY = [
    re.compile(r"(?:uses:\s*)([A-Za-z0-9_.-]+/ods)/ci/github@"),
    re.compile(r"(?<![A-Za-z0-9.])github\.com/([A-Za-z0-9_.-]+/ods)(?![A-Za-z0-9_-])"),
    re.compile(r"raw\.githubusercontent\.com/([A-Za-z0-9_.-]+/ods)/"),
]
IMAGE = re.compile(r"([A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9._-]+)*)/ods-(?:operator|runner)(?![A-Za-z0-9_-])")
REFUSED = [re.compile(r"your-org/"), re.compile(r"ghcr\.io/acme"), re.compile(r"registry\.example/")]


def problems(root, values):
    files = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        if name in (SELF, DEFINITIONS, DESCRIBES_THE_CHECK):
            continue
        path = root / name
        try:
            text = path.read_text()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{name}:{number}"
            found = []
            for pattern in REPOSITORY:
                for m in pattern.finditer(line):
                    if m.group(1) != values["ODS_GITHUB_REPOSITORY"]:
                        found.append(f"{where}: names the repository {m.group(1)}, not {values['ODS_GITHUB_REPOSITORY']}")
            for m in IMAGE.finditer(line):
                registry = m.group(1)
                if registry == "localhost" or "." not in registry.split("/")[0]:
                    continue  # a local image, or not an image reference (a path such as docker/ods-runner)
                if registry != values["ODS_IMAGE_REGISTRY"]:
                    found.append(f"{where}: names the image registry {registry}, not {values['ODS_IMAGE_REGISTRY']}")
            if not found:
                found = [f"{where}: '{p.pattern}' is an old placeholder; name {values['ODS_GITHUB_REPOSITORY']} "
                         f"or {values['ODS_IMAGE_REGISTRY']}" for p in REFUSED if p.search(line)]
            yield from found


def main():
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    values = names(root)
    found = list(problems(root, values))
    for p in found:
        print(p)
    if found:
        print(f"check_names: {len(found)} place(s) name ODS otherwise than {DEFINITIONS}", file=sys.stderr)
        return 1
    print(f"check_names: every file names {values['ODS_GITHUB_REPOSITORY']} and {values['ODS_IMAGE_REGISTRY']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
