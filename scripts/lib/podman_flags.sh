# What podman needs on this kind of machine (sourced by scripts/images.sh and the image tests):
#   ods_podman        podman with runc: crun, podman's default runtime, refuses a cgroup layout of
#                     v1 controllers plus a v2 `unified` mount ("cgroups in hybrid mode not supported")
#   ODS_PODMAN_LIMITS rlimits for `build` and `run` under this machine's hard limits: without
#                     CAP_SYS_RESOURCE, podman's defaults (above them) fail with "setrlimit … operation
#                     not permitted"
# ODS_PODMAN_RUNTIME overrides the runtime (e.g. crun on a pure cgroup v2 machine).
ods_podman() { podman --runtime "${ODS_PODMAN_RUNTIME:-runc}" "$@"; }
ODS_PODMAN_LIMITS=(--ulimit nofile=4096:4096 --ulimit nproc=4096:4096)
