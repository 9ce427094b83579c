#!/usr/bin/env python3
"""Functions of the product's C++ stay under a size a reader can hold (issue 40, "Size").

  scripts/check_function_size.py [--max N]   fails, listing each, when a function of the product
                                             code has more than N lines (default 100) and is not
                                             in ALLOWED below
  scripts/check_function_size.py --list [--max N]   every function over N lines, longest first

A function's lines run from the first line of its declaration to its closing brace. The product
code is every tracked .cc and .h outside tests/, bench/, fuzz/ and examples/ (and no *_test.cc).
The functions are found by a scanner, not a compiler: comments, string and character literals and
preprocessor lines are blanked, then each brace block at namespace or class level whose head ends
like a parameter list (`)`, `) const`, an initializer list, a trailing return type …) is a
function; a lambda or local class counts in the function that holds it. Run by ctest as
`function_size` (labels unit, tier1); the check proves once per run that two planted long
functions are reported. ALLOWED entries that are no longer over the limit fail too, so the list only shrinks.
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MAX = 100
EXCLUDED_DIRS = ("tests", "bench", "fuzz", "examples")

# Functions over the limit in folders whose change selects an expensive CI shard (operator/:
# node and kube; providers/snowflake: warehouses …): each is split in a change that runs its
# shard. "path:function" -> why it waits.
ALLOWED = {
    "operator/app/src/operator_options.cc:parse_operator_options":
        "162 lines, most of them a table of one setter per flag; operator/ selects the node and kube shards: split (the flags "
        "of the server, of the runs' pods, of the secrets) in a change that runs them",
}

HEAD_KEYWORDS = re.compile(r"\b(namespace|class|struct|union|enum)\b")
FUNCTION_TAIL = re.compile(
    r"\)\s*(const\b|noexcept\b(\s*\([^()]*\))?|override\b|final\b|mutable\b|&{1,2}|\s)*"
    r"(->\s*[^{;]+)?$")


def blank(text):
    """`text` with comments, string and character literals and preprocessor lines replaced by
    spaces, newlines kept (so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":  # a preprocessor line, with its continuations
            j = i
            while j < n and not (text[j] == "\n" and text[j - 1] != "\\"):
                j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        line_start = c == "\n"
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('"', i + 1) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            close = ")" + m.group(1) + '"'
            j = text.find(close, i + m.end())
            j = n if j < 0 else j + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")  # a digit separator: 1'000'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def function_name(head):
    """The (qualified) name of the function whose head is `head`, or None when it is none."""
    flat = " ".join(head.split())
    flat = re.sub(r"^template\s*<.*?>\s*(?=[A-Za-z_])", "", flat)
    m = re.search(r"((?:[A-Za-z_~][\w]*\s*::\s*)*(?:operator\s*(?:\(\)|[^\w\s(]+|\w[\w:<>]*)|~?[A-Za-z_]\w*))\s*\(",
                  flat)
    return re.sub(r"\s+", "", m.group(1)) if m else None


def functions(text):
    """(name, first line, line count) of each function defined in the C++ `text`."""
    code = blank(text)
    found = []

    def scan(begin, end):
        head_start = begin
        i = begin
        while i < end:
            c = code[i]
            if c in ";}":
                head_start = i + 1
            elif c == "{":
                head = code[head_start:i]
                close = matching_brace(code, i)
                member_init = re.search(r"\)\s*:(?!:)", head) and re.search(r"[\w>]\s*$", head)
                if head.count("(") > head.count(")") or member_init:  # a default argument's or a member's
                    i = close + 1                                        # braces: still the head
                    continue
                stripped = head.strip()
                name = function_name(stripped) if stripped else None
                before_params = re.sub(r"\boperator\s*[^\w\s(]+", "operator", stripped).split("(", 1)[0]
                initializer_list = re.search(r"\)\s*:\s*[\w:]+\s*[({]", stripped)
                if re.search(r"\bnamespace\b", before_params) or re.match(r'extern\s*$', stripped):
                    scan(i + 1, close)
                elif (name and "=" not in before_params
                      and (FUNCTION_TAIL.search(stripped) or initializer_list)
                      and not HEAD_KEYWORDS.match(stripped.split("<", 1)[0].strip() or "-")):
                    first = head_start + (len(head) - len(head.lstrip()))
                    line = code.count("\n", 0, first) + 1
                    found.append((name, line, code.count("\n", first, close) + 1))
                elif HEAD_KEYWORDS.search(before_params) and not re.search(r"\benum\b", before_params):
                    scan(i + 1, close)
                i = close
                head_start = close + 1
            i += 1

    scan(0, len(code))
    return found


# Two long functions the scanner must see: a plain one, and a constructor whose default argument
# and member initializer have braces of their own (with a string holding a brace).
PLANTED = ("namespace x {\nint planted(int a) {\n" + "  a += 1;\n" * 120 + "  return a;\n}\n"
           "struct S {\n  S(int a, std::vector<int> v = {}) : a_{a}, b_(\"{\") {\n" + "    a_ += 1;\n" * 120 +
           "  }\n  bool operator==(const S&) const = default;\n  int a_;\n};\n}  // namespace x\n")


def product_files():
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "*.cc", "*.h"], capture_output=True, text=True,
                             check=True).stdout.split()
    return [p for p in tracked
            if not any(part in EXCLUDED_DIRS for part in p.split("/")[:-1]) and not p.endswith("_test.cc")]


def long_functions(limit):
    out = []
    for path in product_files():
        for name, line, count in functions((ROOT / path).read_text(errors="replace")):
            if count > limit:
                out.append((count, path, line, name))
    return sorted(out, key=lambda f: (-f[0], f[1], f[2]))


def main(argv):
    listing = "--list" in argv
    argv = [a for a in argv if a != "--list"]
    limit = DEFAULT_MAX
    if argv[:1] == ["--max"] and len(argv) == 2 and argv[1].isdigit():
        limit = int(argv[1])
    elif argv:
        sys.exit(__doc__)
    if sorted(name for name, _, count in functions(PLANTED) if count > 120) != ["S", "planted"]:
        sys.exit("check_function_size: the planted long functions are not both reported: the check is broken")
    found = long_functions(limit)
    if listing:
        for count, path, line, name in found:
            print(f"{count:5d}  {path}:{line}  {name}")
        return
    over = [f for f in found if f"{f[1]}:{f[3]}" not in ALLOWED]
    stale = sorted(set(ALLOWED) - {f"{f[1]}:{f[3]}" for f in found})
    for count, path, line, name in over:
        print(f"check_function_size: {path}:{line}: {name} has {count} lines (at most {limit})", file=sys.stderr)
    for key in stale:
        print(f"check_function_size: ALLOWED names {key}, which is no longer over {limit} lines: drop it",
              file=sys.stderr)
    if over or stale:
        sys.exit(f"check_function_size: {len(over)} functions over {limit} lines, {len(stale)} stale allowances: "
                 "split each by what it decides (or, in a folder whose change selects an expensive shard, "
                 "allow it in scripts/check_function_size.py with why)")
    print(f"check_function_size: every function of {len(product_files())} product files has at most {limit} lines "
          f"({len(ALLOWED)} allowed, listed in the script with why)")


if __name__ == "__main__":
    main(sys.argv[1:])
