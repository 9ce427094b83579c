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
    (`your-org/`, `ghcr.io/acme`, `registry.example/`) are refused outright;
  - in what readers copy (README.md, docs/, examples/, crds/examples/, ci/**/examples/: Markdown,
    YAML, shell, TOML), a placeholder host or organisation (`acme`, `example.com` and the other
    reserved example domains, hosts under `.example`, `your-org`, `my-org`, `your-company`) must be
    marked as one: the word "placeholder" on its line or the line above (a comment, or the prose
    around it), so a reader knows what to replace and nothing looks like a real address.

  scripts/check_names.py selftest              plants placeholders in a scratch repository and checks
                                               that exactly the unmarked ones are reported
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

# What readers copy, where a placeholder must say it is one.
COPIED = re.compile(r"^(README\.md|docs/.*\.md|(examples|crds/examples)/.*\.(md|ya?ml|sh|toml)|ci/(.*/)?examples/.*)$")
PLACEHOLDER = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"(?:[A-Za-z0-9-]+\.)*example\.(?:com|org|net)(?![A-Za-z0-9-])"  # RFC 2606 domains
    r"|(?:[A-Za-z0-9-]+\.)+example(?![A-Za-z0-9.-])"  # hosts under the reserved .example TLD
    r"|(?<=[/:@.])acme(?=[/.:])|(?<=[/:])acme(?![A-Za-z0-9_-])"  # acme as a host label or an organisation
    r"|your-org|yourorg|my-org|myorg|your-company|mycompany)",
    re.IGNORECASE,
)
MARK = re.compile(r"placeholder", re.IGNORECASE)


def unmarked_placeholders(name, lines):
    """file:line: <placeholder> for each placeholder in a copied file without the mark nearby."""
    if not COPIED.match(name):
        return
    for number, line in enumerate(lines, 1):
        above = lines[number - 2] if number > 1 else ""
        if MARK.search(line) or MARK.search(above):
            continue
        found = sorted({m.group(0) for m in PLACEHOLDER.finditer(line)})
        if found:
            yield (f"{name}:{number}: {', '.join(found)} looks like a placeholder: mark it as one (the word "
                   f"'placeholder' on its line or the line above) or name something that exists")


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
        lines = text.splitlines()
        yield from unmarked_placeholders(name, lines)
        for number, line in enumerate(lines, 1):
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


def selftest():
    """Plants placeholders in a scratch repository: exactly the unmarked ones in copied files fail."""
    import tempfile

    planted = {
        "docs/guide.md": "clone https://github.com/acme/analytics.git\n"  # line 1: reported
        "# placeholder: your repository\nurl: https://git.example/acme/shop.git\n"  # marked by the line above
        "a DSN host=db.example.com (a placeholder)\n\n"  # marked on its line
        "see https://www.example.org/x\n",  # line 6: reported
        "crds/examples/project.yaml": "url: https://gitlab.com/your-org/shop.git\n",  # reported
        "examples/shop/README.md": "pull ghcr.io/ods-dev/ods-runner, email a@b.co\n",  # clean
        "cli/src/thing.cc": "// https://github.com/acme/x (code, not copied by readers)\n",  # not looked at
    }
    expected = {"docs/guide.md:1:", "docs/guide.md:6:", "crds/examples/project.yaml:1:"}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / DEFINITIONS).parent.mkdir(parents=True)
        (root / DEFINITIONS).write_text((Path(__file__).resolve().parent.parent / DEFINITIONS).read_text())
        for name, text in planted.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        found = list(problems(root, names(root)))
    reported = {f.split(" ", 1)[0] for f in found}
    for f in found:
        print(f)
    if reported != expected:
        print(f"check_names selftest: reported {sorted(reported)}, expected {sorted(expected)}", file=sys.stderr)
        return 1
    print(f"check_names selftest: the {len(expected)} unmarked placeholders planted were reported, nothing else")
    return 0


def main():
    if sys.argv[1:] == ["selftest"]:
        return selftest()
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
