"""One ODS comment per pull request (GitHub) or merge request (GitLab), updated in place.

keep_one_comment(flavour, markdown, key) finds the comment this step wrote before by a hidden HTML
marker (`<!-- ods-ci:<digest of key> -->`) *and* its author over every page of the list, updates it
(GitHub PATCH, GitLab PUT), or creates it (POST) when there is none, so a push never adds a second
comment. The author is the token's own user: GitHub ODS_CI_COMMENT_AUTHOR when given, else
`GET /user` (a personal or app user token), else `github-actions[bot]` (the workflow token, which
cannot read /user); GitLab `GET /user` (the access token's bot user). A marker in anyone else's comment is
ignored: it is neither updated nor stops this step from writing its own.

GitHub: $GITHUB_API_URL, $GITHUB_REPOSITORY, the PR number from $GITHUB_EVENT_PATH, the token in
ODS_CI_TOKEN sent as `Authorization: Bearer`; pages follow the `Link: rel="next"` header.
GitLab: $CI_API_V4_URL, $CI_PROJECT_ID, $CI_MERGE_REQUEST_IID, the token in ODS_CI_TOKEN (a project
or group access token; the job token cannot write notes) sent as `PRIVATE-TOKEN`; pages follow
`X-Next-Page` (or `Link`).

Never raises and never fails the step: no token, no pull/merge request, a read-only token (a fork's
pull request: 403) or any API error is a warning, and the job summary stands alone.
"""
import hashlib
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request

# GitHub refuses comment bodies over 65,536 characters; GitLab notes hold 1,000,000.
BODY_LIMITS = {"github": 65536, "gitlab": 1000000}
MAX_PAGES = 100


def _env(name):
    return os.environ.get(name, "")


def marker(key):
    return f"<!-- ods-ci:{hashlib.sha256(key.encode()).hexdigest()[:16]} -->"


COMMENT_CUT = "\n\n… (cut to fit the comment limit; the job summary and the plan JSON hold all of it)\n"


def fit(body, limit, note=COMMENT_CUT):
    """The body cut at a line boundary below `limit` characters, ending with `note` when cut."""
    if len(body) <= limit:
        return body
    cut = body[: limit - len(note)]
    if "\n" in cut:
        cut = cut[: cut.rfind("\n")]
    return cut + note


class ApiError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Api:
    """A JSON REST client for one system: request() returns (body, headers)."""

    def __init__(self, base, auth_headers):
        self.base = base.rstrip("/")
        self.headers = dict(auth_headers, **{"User-Agent": "ods-ci", "Content-Type": "application/json"})

    def request(self, method, url, payload=None):
        if not url.startswith("http"):
            url = self.base + url
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(url, data=data, method=method, headers=self.headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                text = response.read().decode("utf-8", "replace")
                return (json.loads(text) if text.strip() else None), response.headers
        except urllib.error.HTTPError as e:
            detail = e.read().decode("utf-8", "replace")[:300]
            raise ApiError(e.code, f"{method} {url.split('?')[0]} answered {e.code}: {detail}") from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise ApiError(0, f"{method} {url.split('?')[0]} failed: {e}") from None

    def pages(self, first_url):
        """Every item of a paginated list."""
        url, seen = first_url, 0
        while url and seen < MAX_PAGES:
            items, headers = self.request("GET", url)
            yield from items or []
            seen += 1
            url = next_page(headers, url)


def next_page(headers, url):
    link = headers.get("Link") or ""
    match = re.search(r'<([^>]+)>\s*;\s*rel="next"', link)
    if match:
        return match.group(1)
    page = headers.get("X-Next-Page") or ""
    if page.strip():
        parts = urllib.parse.urlsplit(url)
        query = dict(urllib.parse.parse_qsl(parts.query))
        query["page"] = page.strip()
        return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))
    return None


def github_target(flavour):
    """(Api, list URL, update URL format) for the current pull request, or a reason why none."""
    if _env("GITHUB_EVENT_NAME") not in ("pull_request", "pull_request_target"):
        return None, None
    try:
        with open(_env("GITHUB_EVENT_PATH"), encoding="utf-8") as f:
            number = (json.load(f).get("pull_request") or {}).get("number")
    except (OSError, ValueError):
        number = None
    if not number:
        return None, "the pull_request event at GITHUB_EVENT_PATH names no pull request number"
    token = _env("ODS_CI_TOKEN")
    if not token:
        return None, "no github-token, so no pull request comment; the job summary has the plan"
    api = Api(_env("GITHUB_API_URL") or "https://api.github.com",
              {"Authorization": "Bearer " + token, "Accept": "application/vnd.github+json",
               "X-GitHub-Api-Version": "2022-11-28"})
    repo = _env("GITHUB_REPOSITORY")
    return (api, f"/repos/{repo}/issues/{number}/comments?per_page=100", f"/repos/{repo}/issues/comments/{{id}}",
            "PATCH", github_author), None


def gitlab_target(flavour):
    iid = _env("CI_MERGE_REQUEST_IID")
    if not iid:
        return None, None
    token = _env("ODS_CI_TOKEN")
    if not token:
        return None, ("no ODS_GITLAB_TOKEN (a project access token with the api scope, in a masked variable), "
                      "so no merge request note; the job log has the plan")
    api = Api(_env("CI_API_V4_URL") or "https://gitlab.com/api/v4", {"PRIVATE-TOKEN": token})
    project = urllib.parse.quote(_env("CI_PROJECT_ID"), safe="")
    notes = f"/projects/{project}/merge_requests/{iid}/notes"
    return (api, notes + "?per_page=100&sort=asc&order_by=created_at", notes + "/{id}", "PUT", gitlab_author), None


GITHUB_WORKFLOW_TOKEN_USER = "github-actions[bot]"


def github_author(api):
    """The login the token comments as: ODS_CI_COMMENT_AUTHOR when given, else GET /user."""
    if _env("ODS_CI_COMMENT_AUTHOR"):
        return _env("ODS_CI_COMMENT_AUTHOR")
    try:
        user, _ = api.request("GET", "/user")
        if (user or {}).get("login"):
            return user["login"]
    except ApiError as e:
        if e.status not in (401, 403, 404):
            raise
    return GITHUB_WORKFLOW_TOKEN_USER


def gitlab_author(api):
    user, _ = api.request("GET", "/user")
    if not (user or {}).get("username"):
        raise ApiError(0, "GET /user named no user, so this step cannot tell its own note from others")
    return user["username"]


def author_of(flavour, comment):
    who = comment.get("user") if flavour.name == "github" else comment.get("author")
    return (who or {}).get("login" if flavour.name == "github" else "username") or ""


def keep_one_comment(flavour, markdown, key):
    """Creates or updates this step's one comment. Returns 'created', 'updated' or 'skipped'."""
    target, why = (github_target if flavour.name == "github" else gitlab_target)(flavour)
    if target is None:
        if why:
            flavour.warning(why)
        return "skipped"
    api, list_url, update_url, update_method, author = target
    tag = marker(key)
    body = fit(tag + "\n" + markdown, BODY_LIMITS[flavour.name])
    try:
        me = author(api)
        existing = next((c for c in api.pages(list_url) if tag in (c.get("body") or "") and author_of(flavour, c) == me),
                        None)
        if existing:
            api.request(update_method, api.base + update_url.format(id=existing["id"]), {"body": body})
            print(f"ods: updated the {'pull request comment' if flavour.name == 'github' else 'merge request note'} "
                  f"{existing['id']}", flush=True)
            return "updated"
        created, _ = api.request("POST", list_url.split("?")[0], {"body": body})
        print(f"ods: created the {'pull request comment' if flavour.name == 'github' else 'merge request note'} "
              f"{(created or {}).get('id', '')}", flush=True)
        return "created"
    except ApiError as e:
        if e.status in (401, 403, 404):
            flavour.warning(f"cannot write the review comment ({e}); a pull request from a fork gets a read-only "
                            "token. The job summary has the plan.")
        else:
            flavour.warning(f"cannot write the review comment ({e}); the job summary has the plan")
        return "skipped"
