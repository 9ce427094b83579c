#!/usr/bin/env python3
"""docs/ARCHITECTURE.md names every part of the repository a newcomer looks for.

  scripts/check_architecture.py DOC     fails, listing each one, when DOC does not name a part

The parts (from `git ls-files`, so only what is tracked): every top-level folder (as `name/`);
every folder one level below bench/, ci/, examples/, fuzz/, operator/, providers/, requirements/
and tests/ (as `name/` or its path); every file directly in scripts/ and scripts/lib/; every page
in docs/ (outside docs/adr/, which its own README indexes). Run by ctest as `architecture_names`
(labels unit, tier1); the check also proves once per run that a planted missing script is reported.
"""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECOND_LEVEL = ("bench", "ci", "examples", "fuzz", "operator", "providers", "requirements", "tests")


def parts(tracked):
    """(part, the spellings any one of which names it) for each part of the repository."""
    found = {}
    for path in tracked:
        pieces = path.split("/")
        if len(pieces) > 1 and not pieces[0].startswith("."):
            found[pieces[0] + "/"] = [f"`{pieces[0]}/", f"**`{pieces[0]}/"]
        if len(pieces) > 2 and pieces[0] in SECOND_LEVEL:
            folder = "/".join(pieces[:2]) + "/"
            found[folder] = [folder, f"`{pieces[1]}/"]
        if len(pieces) == 2 and pieces[0] == "scripts" or len(pieces) == 3 and pieces[:2] == ["scripts", "lib"]:
            found[path] = [pieces[-1]]
        if len(pieces) == 2 and pieces[0] == "docs" and path.endswith(".md") and pieces[1] != "ARCHITECTURE.md":
            found[path] = [pieces[1]]
    return found


def missing(doc_text, tracked):
    return sorted(part for part, names in parts(tracked).items() if not any(n in doc_text for n in names))


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    doc = Path(argv[0])
    text = doc.read_text()
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split()
    planted = "scripts/planted-by-the-check.sh"
    if planted not in missing(text, tracked + [planted]):
        sys.exit(f"check_architecture: a planted script ({planted}) is not reported: the check is broken")
    absent = missing(text, tracked)
    for part in absent:
        print(f"check_architecture: {doc} does not name {part}", file=sys.stderr)
    if absent:
        sys.exit(f"check_architecture: {len(absent)} parts of the repository are not named in {doc}: "
                 "say in a sentence what each is for")
    print(f"check_architecture: {doc} names all {len(parts(tracked))} folders, scripts and pages")


if __name__ == "__main__":
    main(sys.argv[1:])
