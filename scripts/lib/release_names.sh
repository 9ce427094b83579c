# Where ODS is published: the one definition of its names (make release, scripts/check_names.py).
# Every example, doc and chart default that names the repository or the image registry must say
# exactly these (ctest published_names, tier 1); a fork changes them here, and the check then lists
# every file still naming the old ones.
ODS_GITHUB_REPOSITORY=ods-dev/ods          # github.com/<this>: the action (uses: <this>/ci/github@vX), releases
ODS_IMAGE_REGISTRY=ghcr.io/ods-dev         # <this>/ods-operator, <this>/ods-runner
