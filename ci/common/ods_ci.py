#!/usr/bin/env python3
"""The step logic of ODS's CI wrappers (ci/github/action.yml, ci/gitlab/templates/ods.yml).

One script for both systems; `--flavour github|gitlab` picks where the summary, the outputs and the
pull/merge-request comment go. Python 3 standard library only (hosted runners have it; nothing is
installed). Every input arrives in an environment variable (ODS_CI_*), never on the command line,
so no value is pasted into a shell script and no secret shows in a process list.

Sub-commands:
  mask        print ::add-mask:: for the state URL (and its password) and the API token (GitHub)
  install     the ods binary: ODS_CI_ODS_PATH as given, or the release archive for
              ODS_CI_ODS_VERSION from ODS_CI_DOWNLOAD_URL, its SHA-256 checked; prints/outputs `ods`
  cache-keys  the actions/cache keys and paths of the SQLite state and of the dbt packages (GitHub)
  run         dbt deps when the project has packages (reusing .ods-deps/<lockfile digest>), then
              ods state run|run --dry-run|test|pr with the Markdown summary, the plan JSON, the
              outputs (GITHUB_OUTPUT or a dotenv file), the one PR/MR comment, and the exit status
              that ODS_CI_FAIL_ON asks for. A pull/merge request from a fork gets no secrets, so it
              is not planned: the step succeeds with a summary saying why (a neutral outcome).
              A plan or pr that finds no production state (no state URL, no cached SQLite file)
              says so first in its summary and comment, and why (unreachable_state_reason).
              drop-pr drops the schemas a closed pull request's environment built (pr_schemas.py).

Exit status: 0 when the step succeeds (also for a fork's pull request); ods's own status (1 failed/refused, 2 usage) when ods
failed and ODS_CI_FAIL_ON is `error`; 1 for a bad input or a binary that cannot be installed.
Failing to post the comment never fails the step (a warning and the summary alone).
"""
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tarfile
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pr_schemas  # noqa: E402  (beside this file)
import review_comment  # noqa: E402

COMMANDS = {"plan": ["state", "run", "--dry-run"], "run": ["state", "run"], "test": ["state", "test"],
            "pr": ["state", "pr"], "drop-pr": []}
# The commands that read production's state and never write it: their cache is restored, never saved.
READING_COMMANDS = ("plan", "pr")
SQLITE_DIR = ".ods-state"  # the cached folder, relative to the workspace / project checkout
DEPS_DIR = ".ods-deps"  # installed dbt packages by lockfile digest, cached, relative to the workspace
PACKAGE_FILES = ("packages.yml", "dependencies.yml")
STEP_SUMMARY_LIMIT = 1024 * 1024 - 4096  # GitHub refuses a step summary over 1 MiB
METRICS_FILE = "metrics.txt"  # OpenMetrics text, beside the summary
GITLAB_DOTENV_VALUE_LIMIT = 2000  # GitLab refuses dotenv reports over 5 KB; the selection may be long


def env(name, default=""):
    value = os.environ.get(name, "")
    return value if value != "" else default


def log(message):
    print(message, flush=True)


class Flavour:
    """Where a step's products go on one CI system."""

    def __init__(self, name):
        self.name = name

    def warning(self, text):
        if self.name == "github":
            log("::warning::" + text.replace("\n", " "))
        else:
            log("WARNING: " + text)

    def error(self, text):
        if self.name == "github":
            log("::error::" + text.replace("\n", " "))
        else:
            log("ERROR: " + text)

    def set_outputs(self, values):
        """GitHub: name<<DELIMITER lines in $GITHUB_OUTPUT. GitLab: KEY=value lines in the dotenv report."""
        if self.name == "github":
            path = env("GITHUB_OUTPUT")
            if not path:
                self.warning("GITHUB_OUTPUT is not set; the step's outputs are not written")
                return
            with open(path, "a", encoding="utf-8") as out:
                for name, value in values.items():
                    delimiter = "ODS_" + secrets.token_hex(8)
                    out.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            path = env("ODS_CI_DOTENV", os.path.join(env("ODS_CI_OUTPUT_DIR", "ods-ci"), "ods.env"))
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            with open(path, "w", encoding="utf-8") as out:
                for name, value in values.items():
                    key = "ODS_" + name.upper().replace("-", "_")
                    value = str(value).replace("\n", " ")
                    if len(value) > GITLAB_DOTENV_VALUE_LIMIT:
                        log(f"{key} is {len(value)} characters, too long for a dotenv report; it is in the plan JSON")
                        continue
                    out.write(f"{key}={value}\n")

    def publish_summary(self, markdown):
        if self.name == "github":
            path = env("GITHUB_STEP_SUMMARY")
            if path:
                size = len(markdown.encode("utf-8"))
                if size > STEP_SUMMARY_LIMIT:  # fit() counts characters; scale to the bytes
                    markdown = review_comment.fit(markdown, len(markdown) * STEP_SUMMARY_LIMIT // size,
                                                  "\n\n… (cut to fit the 1 MiB step summary; the plan JSON holds all of it)\n")
                with open(path, "a", encoding="utf-8") as out:
                    out.write(markdown if markdown.endswith("\n") else markdown + "\n")
        else:
            log(markdown)


# ---- mask -------------------------------------------------------------------------------------


def secret_parts(url):
    """The state URL itself and the password inside it (as written and percent-decoded)."""
    parts = [url]
    try:
        password = urllib.parse.urlsplit(url).password
    except ValueError:
        password = None
    if password:
        parts += [password, urllib.parse.unquote(password)]
    match = re.search(r"(?:^|\s)password\s*=\s*'?([^'\s]+)", url)  # libpq key/value form
    if match:
        parts.append(match.group(1))
    return [p for p in dict.fromkeys(parts) if p]


def cmd_mask(_flavour):
    for value in secret_parts(env("ODS_CI_STATE")) + [env("ODS_CI_TOKEN")]:
        if value:
            for line in value.splitlines():
                if line.strip():
                    log("::add-mask::" + line)
    return 0


# ---- install ----------------------------------------------------------------------------------

ARCHIVE = "ods-{version}-linux-x86_64"


def fetch(url):
    request = urllib.request.Request(url, headers={"User-Agent": "ods-ci"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.read()


def install_release(version, base_url, into, flavour):
    """Downloads ods-<version>-linux-x86_64.tar.gz and its .sha256 from base_url, checks, unpacks."""
    name = ARCHIVE.format(version=version)
    base = base_url.replace("{version}", version).rstrip("/")
    archive_url, sum_url = f"{base}/{name}.tar.gz", f"{base}/{name}.tar.gz.sha256"
    log(f"ods: downloading {archive_url}")
    try:
        archive = fetch(archive_url)
        sums = fetch(sum_url).decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as e:
        flavour.error(f"ods: could not download ods {version} from {base}: {e}")
        return None
    expected = sums.split()[0].lower() if sums.split() else ""
    actual = hashlib.sha256(archive).hexdigest()
    if expected != actual:
        flavour.error(
            f"ods: checksum mismatch for {name}.tar.gz: {sum_url} says {expected or '(nothing)'}, "
            f"the download is {actual}; refusing to run it")
        return None
    os.makedirs(into, exist_ok=True)
    path = os.path.join(into, f"{name}.tar.gz")
    with open(path, "wb") as out:
        out.write(archive)
    with tarfile.open(path) as tar:
        tar.extractall(into, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(into)
    binary = os.path.join(into, name, "bin", "ods")
    if not os.access(binary, os.X_OK):
        flavour.error(f"ods: {name}.tar.gz holds no executable {name}/bin/ods")
        return None
    log(f"ods: {name} verified (sha256 {actual})")
    return binary


def cmd_install(flavour):
    given, version = env("ODS_CI_ODS_PATH"), env("ODS_CI_ODS_VERSION")
    if given and version:
        flavour.error("ods: give ods-path or ods-version, not both")
        return 1
    if given:
        binary = os.path.abspath(given)
        if not os.access(binary, os.X_OK):
            flavour.error(f"ods: ods-path {given} is not an executable file")
            return 1
    elif version:
        base = env("ODS_CI_DOWNLOAD_URL")
        if not base:
            flavour.error("ods: ods-version needs ods-download-url (where the release archives are published)")
            return 1
        into = os.path.join(env("RUNNER_TEMP", env("TMPDIR", "/tmp")), "ods-" + version)
        binary = install_release(version, base, into, flavour)
        if binary is None:
            return 1
    else:
        found = [os.path.join(d, "ods") for d in env("PATH").split(os.pathsep) if os.access(os.path.join(d, "ods"), os.X_OK)]
        if not found:
            flavour.error("ods: give ods-version (with ods-download-url) or ods-path; no ods on PATH")
            return 1
        binary = found[0]
    flavour.set_outputs({"ods": binary}) if flavour.name == "github" else log(binary)
    return 0


# ---- cache-keys -------------------------------------------------------------------------------


def github_event():
    path = env("GITHUB_EVENT_PATH")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def key_part(text):
    return re.sub(r"[^A-Za-z0-9._/-]+", "_", text).strip("_") or "_"


def cmd_cache_keys(flavour):
    """The SQLite state: one file for every target and project (ODS's scopes keep them apart), so
    a plan finds what a run saved whatever target each names. A key per branch and run (a saved
    cache is immutable), restored from this branch, then the branch a pull request merges into,
    then the default branch; a plan restores only the latter two (the production state) and saves
    nothing. The dbt packages: one key per lockfile digest, empty when the project has none."""
    event = github_event()
    default = (event.get("repository") or {}).get("default_branch") or env("ODS_CI_DEFAULT_BRANCH", "main")
    prefix = "ods-state-"
    branch = env("GITHUB_HEAD_REF") or env("GITHUB_REF_NAME", "unknown")
    base = env("GITHUB_BASE_REF")
    if env("ODS_CI_COMMAND", "run") in READING_COMMANDS:
        branches = [b for b in (base, default) if b]
    else:
        branches = [b for b in (branch, base, default) if b]
    restore = list(dict.fromkeys(prefix + key_part(b) + "-" for b in branches))
    key = f"{prefix}{key_part(branch)}-{env('GITHUB_RUN_ID', '0')}-{env('GITHUB_RUN_ATTEMPT', '1')}"
    project = project_dir(workspace_dir())
    digest = packages_digest(project)
    flavour.set_outputs({"key": key, "restore-keys": "\n".join(restore), "path": SQLITE_DIR,
                         "deps-key": f"ods-dbt-packages-{digest}" if digest else "", "deps-path": DEPS_DIR})
    return 0


# ---- dbt packages -----------------------------------------------------------------------------


def workspace_dir():
    return env("GITHUB_WORKSPACE") or env("CI_PROJECT_DIR") or os.getcwd()


def project_dir(workspace):
    return os.path.normpath(os.path.join(workspace, env("ODS_CI_PROJECT_DIR", ".")))


def packages_install_path(project):
    """dbt_project.yml's packages-install-path, else dbt's default dbt_packages."""
    try:
        with open(os.path.join(project, "dbt_project.yml"), encoding="utf-8") as f:
            match = re.search(r"^packages-install-path:\s*[\"']?([^\"'\s#]+)", f.read(), re.M)
    except OSError:
        match = None
    return os.path.join(project, match.group(1) if match else "dbt_packages")


def packages_digest(project):
    """A digest of what `dbt deps` installs: package-lock.yml when dbt wrote one, else the package
    files themselves. Empty when the project declares no packages."""
    declared = [os.path.join(project, n) for n in PACKAGE_FILES if os.path.isfile(os.path.join(project, n))]
    if not declared:
        return ""
    lock = os.path.join(project, "package-lock.yml")
    digest = hashlib.sha256()
    for path in [lock] if os.path.isfile(lock) else declared:
        digest.update(os.path.basename(path).encode() + b"\0")
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:24]


def install_packages(flavour, workspace):
    """`dbt deps` when the project has packages.yml or dependencies.yml, unless .ods-deps/<digest>
    (restored by the CI cache) already holds them: then they are copied in. True when the packages
    are in place (or there are none); False, with an error printed, when dbt deps failed."""
    project = project_dir(workspace)
    digest = packages_digest(project)
    if not digest:
        return True
    installed = packages_install_path(project)
    cached = os.path.join(workspace, DEPS_DIR, digest)
    if os.path.isdir(cached):
        shutil.rmtree(installed, ignore_errors=True)
        shutil.copytree(cached, installed, symlinks=True)
        log(f"ods: dbt packages from the cache ({DEPS_DIR}/{digest}, by the lockfile's digest)")
        return True
    args = [env("ODS_CI_DBT", "dbt"), "deps", "--project-dir", project]
    if env("ODS_CI_PROFILES_DIR"):
        args += ["--profiles-dir", os.path.join(workspace, env("ODS_CI_PROFILES_DIR"))]
    log("ods: " + " ".join(args))
    try:
        code = subprocess.call(args, env=dbt_environment(), cwd=project)
    except OSError as e:
        flavour.error(f"ods: cannot run dbt deps: {e}")
        return False
    if code != 0:
        flavour.error(f"ods: dbt deps ended with exit status {code}; the project's packages are not installed")
        return False
    shutil.rmtree(os.path.join(workspace, DEPS_DIR), ignore_errors=True)  # keep only this digest
    if os.path.isdir(installed):
        shutil.copytree(installed, cached, symlinks=True)  # under the key computed before dbt deps
    return True


# ---- forks ------------------------------------------------------------------------------------


def fork_request(flavour):
    """The pull/merge request's source when it is a fork (its jobs get no secrets), else ""."""
    if flavour.name == "github":
        if env("GITHUB_EVENT_NAME") not in ("pull_request", "pull_request_target"):
            return ""
        head = (github_event().get("pull_request") or {}).get("head") or {}
        if "repo" not in head:
            return ""
        source = (head.get("repo") or {}).get("full_name") or ""  # null: the fork was deleted
        return (source or "a deleted fork") if source != env("GITHUB_REPOSITORY") else ""
    source, target = env("CI_MERGE_REQUEST_SOURCE_PROJECT_ID"), env("CI_MERGE_REQUEST_PROJECT_ID")
    if source and target and source != target:
        return env("CI_MERGE_REQUEST_SOURCE_PROJECT_PATH", f"project {source}")
    return ""


def fork_summary(command, source, flavour):
    what = "pull request" if flavour.name == "github" else "merge request"
    return (f"**ODS {command}: not run for this {what} from a fork ({source}).**\n\n"
            f"A {what} from a fork gets no secrets, and the plan needs production read access: the "
            "warehouse credentials the profile reads and the state store. Nothing was compiled or run, "
            "and nothing failed. A maintainer can push the branch to this repository to get the plan.\n")


# ---- run --------------------------------------------------------------------------------------


def review_request(flavour):
    """Whether this job runs for a pull/merge request (its code is the request author's)."""
    if flavour.name == "github":
        return env("GITHUB_EVENT_NAME") in ("pull_request", "pull_request_target")
    return env("CI_PIPELINE_SOURCE") == "merge_request_event" or bool(env("CI_MERGE_REQUEST_IID"))


def ods_arguments(command, out_dir, workspace, flavour):
    """ods's arguments; the project and profiles folders are made absolute against the workspace
    (ods runs dbt inside the project, where a relative path would mean something else). A plan in
    a pull/merge request job reads the state with --read-only-state: ods refuses a PostgreSQL
    credential that can write it (docs/security.md, "A read-only credential for pull requests")."""
    args = list(COMMANDS[command])
    if command in READING_COMMANDS and review_request(flavour):
        args.append("--read-only-state")
    for flag, name in (("--target", "ODS_CI_TARGET"), ("--select", "ODS_CI_SELECT"), ("--exclude", "ODS_CI_EXCLUDE"),
                       ("--dbt", "ODS_CI_DBT")):
        if env(name):
            args += [flag, env(name)]
    if command == "pr":  # the PR environment's own target, and how it reads production (docs/ci.md)
        args += ["--pr-target", env("ODS_CI_PR_TARGET")]
        if env("ODS_CI_UPSTREAM"):
            args += ["--upstream", env("ODS_CI_UPSTREAM")]
    if env("ODS_CI_PROFILES_DIR"):
        args += ["--profiles-dir", os.path.join(workspace, env("ODS_CI_PROFILES_DIR"))]
    args += ["--project-dir", project_dir(workspace)]
    args += ["--summary", os.path.join(out_dir, "summary.md"), "--json-file", os.path.join(out_dir, "plan.json")]
    if command in ("run", "test"):  # the scope's run metrics (docs/metrics.md); a plan records no run
        args += ["--metrics-file", os.path.join(out_dir, METRICS_FILE)]
        if env("ODS_CI_PUSHGATEWAY"):
            args += ["--pushgateway", env("ODS_CI_PUSHGATEWAY")]
    return args


def sqlite_state_file(workspace):
    return os.path.join(workspace, SQLITE_DIR, "state.db")


def state_url(workspace):
    """The state store: ODS_CI_STATE (a PostgreSQL URL from a secret), else the cached SQLite file."""
    given = env("ODS_CI_STATE")
    if given:
        return given
    return "sqlite:" + sqlite_state_file(workspace)


def unreachable_state_reason(command, flavour, workspace):
    """Why a plan or pr has no production state to read, or "" when it has one. It has none when no
    state URL reached the step (the reader's secret is unset for this job) and the CI cache restored
    no SQLite file: ods then compares the pull request with nothing, and every node shows as
    never built (plan) or builds (pr). The reason names what is missing on this CI system."""
    if command not in READING_COMMANDS or env("ODS_CI_STATE") or os.path.exists(sqlite_state_file(workspace)):
        return ""
    if flavour.name == "github":
        why = "The action's `state` input is empty and the cache restored no SQLite state. "
        if env("GITHUB_ACTOR") == "dependabot[bot]":
            return why + ("This pull request is Dependabot's: GitHub gives its workflows the repository's "
                          "Dependabot secrets, not its Actions secrets, so add `ODS_STATE_READER` (and the "
                          "warehouse credentials) under Settings › Secrets and variables › Dependabot too.")
        return why + ("Either the reader's secret (`ODS_STATE_READER`) is not given to this run (Dependabot's "
                      "pull requests get only the Dependabot secrets), or the state is kept in the cache and no "
                      "run on the default branch has saved it yet (or it was evicted).")
    variable = env("ODS_CI_STATE_VARIABLE", "ODS_STATE_READER")
    if variable != "ODS_STATE" and os.environ.get("ODS_STATE"):
        return (f"`ODS_STATE` is set, but this job reads production's state only through `{variable}`, the URL "
                "of a role that can only read it (`ods state grants ROLE`; docs/ci.md), and that is not set "
                "for this pipeline; no cached SQLite state was restored either.")
    return (f"`{variable}` is not set for this pipeline (a protected variable reaches only protected "
            "branches' pipelines) and the cache restored no SQLite state (no pipeline on the default branch "
            "has saved one yet, it expired, or GitLab keeps protected and unprotected branches' caches apart).")


def unreachable_state_banner(command, why):
    """The Markdown put above ods's summary when no production state was reachable."""
    if command == "plan":
        effect = "this plan compares the pull request with nothing: every node shows as never built"
    else:
        effect = "this environment compares the pull request with nothing: every node builds, none is read from production"
    return f"> **Warning: no production state was reachable,** so {effect}.\n>\n> {why}\n\n"


# The step's own secrets, which stay with this script: its inputs (ODS_CI_*: the state URL, the API
# token) and GitLab's ODS_GITLAB_TOKEN and ODS_STATE_READER (CI/CD variables, so in the job's whole
# environment). ods
# gets the state URL as ODS_STATE and withholds it, with its other secrets, from every process it
# starts (dbt, git: cli/src/shared/child_environment.h).
STEP_SECRET_PREFIX = "ODS_CI_"
STEP_SECRET_VARIABLES = ("ODS_GITLAB_TOKEN", "ODS_STATE_READER")
# ods's own secrets, which ods withholds from dbt: the same names as cli/src/shared/
# child_environment.cc's secret_variables() (tests/ci, CiLint.TheStepWithholdsWhatOdsWithholds).
# The one dbt this step starts itself (dbt deps) runs without them too.
ODS_SECRET_VARIABLES = ("ODS_STATE", "ODS_DIGEST_KEY", "ODS_RUN_TOKEN_FILE", "ODS_GIT_CREDENTIALS_DIR")


def ods_environment(state):
    """The environment ods runs in: the job's, without the step's secrets, with ODS_STATE."""
    child = {name: value for name, value in os.environ.items()
             if not name.startswith(STEP_SECRET_PREFIX) and name not in STEP_SECRET_VARIABLES}
    child["ODS_STATE"] = state
    return child


def dbt_environment():
    """The environment of a dbt this step starts (dbt deps: a pull request's packages.yml is its
    author's code): the job's, without the step's secrets and without ods's."""
    return {name: value for name, value in ods_environment("").items() if name not in ODS_SECRET_VARIABLES}


def redact(text, hidden):
    for value in sorted(hidden, key=len, reverse=True):
        text = text.replace(value, "***")
    return text


def run_ods(argv, child_env, workspace):
    """Runs ods with its stderr passed through line by line; its exit status and the last line
    of stderr that starts with "ods: " (why it failed, when it did)."""
    last = ""
    with subprocess.Popen(argv, env=child_env, cwd=workspace, stderr=subprocess.PIPE) as process:
        for raw in process.stderr:
            sys.stderr.buffer.write(raw)
            sys.stderr.flush()
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith("ods: "):
                last = line
    return process.returncode, last


def read_summary_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return (json.load(f) or {}).get("summary") or {}
    except (OSError, ValueError):
        return {}


def cmd_run(flavour):
    command = env("ODS_CI_COMMAND", "plan")
    if command not in COMMANDS:
        flavour.error(f"ods: command must be plan, run, test, pr or drop-pr, not '{command}'")
        return 1
    if command in ("pr", "drop-pr") and not env("ODS_CI_PR_TARGET"):
        flavour.error(f"ods: command {command} needs pr-target: the dbt target of the pull request's own schema")
        return 1
    if command in ("pr", "drop-pr") and (env("ODS_CI_SELECT") or env("ODS_CI_EXCLUDE")):
        given = " and ".join(n for n, v in (("select", env("ODS_CI_SELECT")), ("exclude", env("ODS_CI_EXCLUDE"))) if v)
        flavour.error(f"ods: command {command} takes no select or exclude (here: {given}): a pull request's "
                      "environment is what its code changed and the nodes that read it, decided by ODS's "
                      "fingerprints. Remove them from this step (GitLab: the .ods-pr job ignores the include's "
                      "select and exclude inputs; set ODS_SELECT and ODS_EXCLUDE empty on it if they are set elsewhere)")
        return 1
    fail_on = env("ODS_CI_FAIL_ON", "error")
    if fail_on not in ("error", "never"):
        flavour.error(f"ods: fail-on must be error or never, not '{fail_on}'")
        return 1
    ods = env("ODS_CI_ODS", "ods")
    workspace = workspace_dir()
    out_dir = os.path.abspath(env("ODS_CI_OUTPUT_DIR", os.path.join(env("RUNNER_TEMP", workspace), "ods-ci")))
    os.makedirs(out_dir, exist_ok=True)
    for stale in ("summary.md", "plan.json", METRICS_FILE):
        if os.path.exists(os.path.join(out_dir, stale)):
            os.remove(os.path.join(out_dir, stale))
    fork = fork_request(flavour)
    if fork:
        flavour.publish_summary(fork_summary(command, fork, flavour))
        flavour.set_outputs({"built": "", "reused": "", "failed": "", "skipped": "", "selection": "",
                             "time-saved-seconds": "", "plan-json": "", "summary": "", "metrics-file": "",
                             "exit-code": "",
                             "outcome": "fork"})
        log(f"ods: {fork} is a fork: no secrets, so no {command}; the step succeeds (see the summary)")
        return 0
    hidden = secret_parts(env("ODS_CI_STATE")) + [t for t in (env("ODS_CI_TOKEN"),) if t]
    if command == "drop-pr":
        return finish(flavour, command, fail_on, drop_pr_environment(flavour, workspace, out_dir))

    no_state = unreachable_state_reason(command, flavour, workspace)  # before ods could create the file
    if no_state:
        flavour.warning("no production state was reachable: " + no_state)
    child_env = ods_environment(state_url(workspace))
    if not env("ODS_CI_STATE"):
        os.makedirs(os.path.join(workspace, SQLITE_DIR), exist_ok=True)
    args = ods_arguments(command, out_dir, workspace, flavour)
    refusal = ""  # ods's last "ods: …" line on stderr, for a summary ods could not write
    if not install_packages(flavour, workspace):
        code = 1
    else:
        log("ods: " + redact(" ".join([ods] + args), hidden))
        try:
            code, refusal = run_ods([ods] + args, child_env, workspace)
        except OSError as e:
            flavour.error(f"ods: cannot run {ods}: {e}")
            code = 1

    summary_path = os.path.join(out_dir, "summary.md")
    try:
        with open(summary_path, encoding="utf-8") as f:
            markdown = f.read()
    except OSError:
        markdown = (f"**ODS {command}** ended with exit status {code} before it wrote a summary; "
                    + (f"it said:\n\n> {refusal}\n" if refusal else "the job log says why.\n"))
    if no_state:
        markdown = unreachable_state_banner(command, no_state) + markdown
    markdown = redact(markdown, hidden)
    flavour.publish_summary(markdown)

    plan_json = os.path.join(out_dir, "plan.json")
    counts = read_summary_json(plan_json)
    flavour.set_outputs({
        "built": counts.get("built", ""),
        "reused": counts.get("reused", ""),
        "failed": counts.get("failed", ""),
        "skipped": counts.get("skipped", ""),
        "selection": counts.get("selection", ""),
        "time-saved-seconds": counts.get("time_saved_seconds", ""),
        "plan-json": plan_json if os.path.exists(plan_json) else "",
        "summary": summary_path if os.path.exists(summary_path) else "",
        "metrics-file": os.path.join(out_dir, METRICS_FILE) if os.path.exists(os.path.join(out_dir, METRICS_FILE)) else "",
        "exit-code": code,
        "outcome": "success" if code == 0 else "failure",
    })

    if env("ODS_CI_COMMENT", "true").lower() == "true":
        review_comment.keep_one_comment(flavour, markdown, comment_key(command))
    return finish(flavour, command, fail_on, code)


def finish(flavour, command, fail_on, code):
    """The step's exit status for ods's (or the step's own) `code`, as fail-on asks."""
    if code == 0:
        return 0
    what = "dbt failed or ODS refused" if code == 1 else "ods was called wrongly"
    if fail_on == "never":
        flavour.warning(f"ods {command} ended with exit status {code} ({what}); fail-on is never, so the step succeeds")
        return 0
    flavour.error(f"ods {command} ended with exit status {code} ({what})")
    return code


def drop_pr_environment(flavour, workspace, out_dir):
    """command drop-pr: the packages installed (dbt parses the project), then the schemas the pull
    request's target builds into and production's target does not, dropped (pr_schemas.py); the
    summary says which. Returns 0, or 1 when dbt failed or a schema is production's too."""
    code = 1
    markdown = ""
    if install_packages(flavour, workspace):
        dbt = [env("ODS_CI_DBT", "dbt")]
        dbt_args = ["--project-dir", project_dir(workspace)]
        if env("ODS_CI_PROFILES_DIR"):
            dbt_args += ["--profiles-dir", os.path.join(workspace, env("ODS_CI_PROFILES_DIR"))]
        result = pr_schemas.drop(dbt, dbt_args, env("ODS_CI_TARGET"), env("ODS_CI_PR_TARGET"), dbt_environment(),
                                 project_dir(workspace))
        markdown, code = result.markdown(), result.exit_code()
        for line in result.errors():
            flavour.error(line)
    else:
        markdown = "**ODS drop-pr**: the project's dbt packages could not be installed; nothing was dropped.\n"
    with open(os.path.join(out_dir, "summary.md"), "w", encoding="utf-8") as out:
        out.write(markdown)
    flavour.publish_summary(markdown)
    flavour.set_outputs({"built": "", "reused": "", "failed": "", "skipped": "", "selection": "",
                         "time-saved-seconds": "", "plan-json": "", "summary": os.path.join(out_dir, "summary.md"),
                         "metrics-file": "", "exit-code": "", "outcome": "success" if code == 0 else "failure"})
    return code


def comment_key(command):
    """What tells one ODS comment from another on the same PR: project dir, target, command."""
    return f"{env('ODS_CI_PROJECT_DIR', '.')}|{env('ODS_CI_TARGET', 'default')}|{command}"


def main(argv):
    if len(argv) < 2 or argv[0] != "--flavour" or argv[1] not in ("github", "gitlab") or len(argv) != 3:
        print("usage: ods_ci.py --flavour github|gitlab mask|install|cache-keys|run", file=sys.stderr)
        return 2
    flavour = Flavour(argv[1])
    commands = {"mask": cmd_mask, "install": cmd_install, "cache-keys": cmd_cache_keys, "run": cmd_run}
    if argv[2] not in commands:
        print(f"ods_ci.py: unknown sub-command '{argv[2]}'", file=sys.stderr)
        return 2
    return commands[argv[2]](flavour)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
