#!/usr/bin/env python3
"""Cache keys for scripts/lint.sh --tidy: one line "<key> <file>" per file given.

A file's key is the SHA-256 of everything clang-tidy's verdict on it depends on: the
clang-tidy binary's version, .clang-tidy, lint.sh's extra flags, the file's compile command
from compile_commands.json, and the file's translation unit as clang's preprocessor sees it
with those flags (every header it includes, project and system, comments kept, since a NOLINT
comment changes the verdict, with the line markers that say where each came from). The clone's own path is taken out of the command and of the
preprocessed text, so a fresh clone of the same tree gets the same keys. A file that is not in
compile_commands.json, or that the preprocessor refuses, gets the key "-" (never cached).

    tidy_keys.py BUILD_DIR CLANG_TIDY JOBS EXTRA_ARG... -- FILE...
"""
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys


def preprocess_command(entry, clangxx, extra_args):
    """The entry's compile command as a clang -E to stdout, with lint.sh's extra flags."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out = [clangxx]
    skip_next = False
    for arg in args[1:]:
        if skip_next:
            skip_next = False
            continue
        if arg in ("-o", "-MF", "-MT", "-MQ"):
            skip_next = True
            continue
        if arg in ("-c", "-MD", "-MMD", "-Werror") or arg.startswith("-Werror="):
            continue
        out.append(arg)
    # -C keeps the comments: a NOLINT in the file or a header changes what clang-tidy reports.
    return out + list(extra_args) + ["-E", "-C", "-w"]


def key_of(entry, root, common, clangxx, extra_args):
    if entry is None:
        return "-"
    command = preprocess_command(entry, clangxx, extra_args)
    done = subprocess.run(command, cwd=entry["directory"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        return "-"
    digest = hashlib.sha256(common)
    digest.update(" ".join(command).replace(root, "@ROOT@").encode())
    digest.update(b"\0")
    digest.update(done.stdout.replace(root.encode(), b"@ROOT@"))
    return digest.hexdigest()


def main(argv):
    if "--" not in argv or len(argv) < 4:
        sys.exit(__doc__)
    split = argv.index("--")
    build, tidy, jobs, extra_args = argv[1], argv[2], int(argv[3]), argv[4:split]
    files = argv[split + 1:]
    root = os.getcwd()
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = {os.path.realpath(e["file"]): e for e in json.load(f)}
    version = subprocess.run([tidy, "--version"], stdout=subprocess.PIPE, check=True).stdout
    with open(".clang-tidy", "rb") as f:
        common = version + b"\0" + f.read() + b"\0" + " ".join(extra_args).encode() + b"\0"
    # The preprocessor of the clang that clang-tidy is built on (clang-tidy-16: clang++-16).
    clangxx = "clang++-16" if tidy.endswith("-16") else "clang++"
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        keys = pool.map(lambda p: key_of(entries.get(os.path.realpath(p)), root, common, clangxx, extra_args),
                        files)
        for path, key in zip(files, keys):
            print(key, path)


if __name__ == "__main__":
    main(sys.argv)
