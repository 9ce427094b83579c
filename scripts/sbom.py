#!/usr/bin/env python3
"""A CycloneDX 1.5 SBOM (JSON) of a container image built by scripts/images.sh.

  scripts/sbom.py IMAGE OUT.cdx.json

Lists what the image really holds, read by running it (podman, scripts/lib/podman_flags.sh's settings,
no network): every Debian package (dpkg-query: name, version, architecture -> pkg:deb purls) and,
when the image has ODS's dbt venv (/opt/ods/venv), every Python distribution in it
(importlib.metadata -> pkg:pypi purls). The document is reproducible for one image: its serial number
is derived from the image id, its timestamp is $SOURCE_DATE_EPOCH (make release sets the last
commit's time) or else now.
"""
import datetime
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = r"""
dpkg-query -W -f='deb\t${Package}\t${Version}\t${Architecture}\n'
if [ -x /opt/ods/venv/bin/python ]; then
  /opt/ods/venv/bin/python -c 'import importlib.metadata as m
for d in m.distributions(): print("pypi\t%s\t%s\t" % (d.metadata["Name"], d.version))'
fi
"""


def podman(*args):
    runtime = os.environ.get("ODS_PODMAN_RUNTIME", "runc")
    return subprocess.run(["podman", "--runtime", runtime, *args], capture_output=True, text=True)


def image_facts(image):
    r = podman("image", "inspect", "--format", "{{.Id}}\t{{.Os}}\t{{.Architecture}}", image)
    if r.returncode != 0:
        sys.exit(f"sbom.py: no image {image} in local storage (scripts/images.sh builds it): {r.stderr.strip()}")
    return r.stdout.strip().split("\t")


def packages(image):
    r = podman("run", "--rm", "--network=none", "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096",
               "--user", "0", "--entrypoint", "/bin/sh", image, "-c", LIST)
    if r.returncode != 0:
        sys.exit(f"sbom.py: listing the packages of {image} failed (exit {r.returncode}): {r.stderr.strip()[-500:]}")
    rows = [line.split("\t") for line in r.stdout.splitlines() if line.strip()]
    if not any(row[0] == "deb" for row in rows):
        sys.exit(f"sbom.py: {image} listed no Debian package; is it a Debian image?")
    return rows


def component(row, distro):
    kind, name, version, arch = (row + [""] * 4)[:4]
    if kind == "deb":
        purl = f"pkg:deb/debian/{name}@{version}?arch={arch}&distro={distro}"
    else:
        purl = f"pkg:pypi/{name.lower().replace('_', '-')}@{version}"
    return {"type": "library", "bom-ref": purl, "name": name, "version": version, "purl": purl}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: scripts/sbom.py IMAGE OUT.cdx.json")
    image, out = sys.argv[1], Path(sys.argv[2])
    image_id, os_name, arch = image_facts(image)
    rows = packages(image)
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch else \
        datetime.datetime.now(datetime.timezone.utc)
    name, _, version = image.rpartition("/")[2].partition(":")
    components = sorted((component(row, "debian-12") for row in rows), key=lambda c: c["purl"])
    document = {
        "bomFormat": "CycloneDX",
        "specVersion": "1.5",
        "serialNumber": f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, 'ods-image:' + image_id)}",
        "version": 1,
        "metadata": {
            "timestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "tools": {"components": [{"type": "application", "name": "ods scripts/sbom.py"}]},
            "component": {"type": "container", "bom-ref": f"image:{image_id}", "name": name,
                          "version": version or "latest",
                          "properties": [{"name": "ods:image-id", "value": image_id},
                                         {"name": "ods:platform", "value": f"{os_name}/{arch}"}]},
        },
        "components": components,
    }
    out.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    debs = sum(1 for row in rows if row[0] == "deb")
    print(f"sbom: {image}: {debs} Debian packages, {len(rows) - debs} Python packages -> {out}")


if __name__ == "__main__":
    main()
