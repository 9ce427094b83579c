# shellcheck disable=SC2154 # state_run.sh, which sources this file, sets the variables named below
# The early-cutoff part of bench/state_run.sh (sourced by it; see docs/benchmarks.md, "Early
# cutoff"). Uses state_run.sh's $work, $ods, $py, $reps, $tmp, log, run_logged, median_of_lines, load1,
# field.
#
# bench_cutoff: a project of $BENCH_CUTOFF_NODES nodes (bench/gen_project.py, cached in
# $work/cutoff<N>/base, built and recorded by ods with content measured), then, $reps times on
# fresh copies of it, each change followed by `ods state run --cutoff off` on one copy and
# `--cutoff auto` on another (same change, same state, order alternating):
#   filtered:   2 rows with k = -1 inserted into raw_01.src_01_01, which its staging readers
#               filter out (`where k >= var('bench_min_k')`, 0): their output
#               is unchanged, so `auto` can spare their descendants (today's cascade, `off`,
#               builds them); prints nodes built and wall seconds, and what auto saved;
#   code edit:  one mid-layer model's code edited (`gen_project.py --changed`): nothing is
#               built only for new data, so nothing can cut off; prints what auto's content
#               probe (the extra `dbt show` after the build) costs against `off`.

# cutoff_run P MODE OUT: `ods state run --cutoff MODE --format json` on P; prints wall s.
cutoff_run() {
  local t0 code=0
  t0=$(now)
  (cd "$1" && "$ods" state run --project-dir "$1" --profiles-dir "$1" --cutoff "$2" --format json >"$3" 2>"$3.err") ||
    code=$?
  if ((code != 0)); then
    log "failed: ods state run --cutoff $2 on $1 (exit $code):"
    tail -n 30 "$3.err" >&2
    exit 1
  fi
  awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.3f\n", b - a}'
}

# cutoff_base N DIR: the generated project in DIR, its profile's DuckDB path relative (so a
# copy uses its own file), raw tables created, built and recorded by two ods runs.
cutoff_base() {
  local n=$1 p=$2
  rm -rf "$p"
  mkdir -p "$p"
  run_logged "$tmp/gen.log" "$py" "$bench/gen_project.py" "$n" "$p"
  sed -i "s|path: \".*bench.duckdb\"|path: \"bench.duckdb\"|" "$p/profiles.yml"
  (cd "$p" && run_logged "$tmp/raw.log" "$ODS_DBT" run-operation bench_create_raw --project-dir "$p" --profiles-dir "$p")
  cutoff_run "$p" auto "$tmp/base.json" >/dev/null
  cutoff_run "$p" auto "$tmp/base.json" >/dev/null
}

# cutoff_copy FROM TO: a copy of the recorded project.
cutoff_copy() { rm -rf "$2" && cp -a "$1" "$2"; }

# cutoff_sql P STATEMENT: runs SQL on P's DuckDB file.
cutoff_sql() { (cd "$1" && "$py" -c 'import duckdb,sys; c=duckdb.connect("bench.duckdb"); c.execute(sys.argv[1]); c.close()' "$2"); }

cutoff_built='sum(1 for e in d["plan"]["entries"] if e["action"] == "build")'
cutoff_cut='sum(1 for e in d["plan"]["entries"] if e["reasons"] and e["reasons"][0]["code"] == "early_cutoff")'

# cutoff_pair KIND BASE REP: one copy per mode, KIND's change on both, then the two runs in an
# order alternating with REP; appends "off_s auto_s off_built auto_built auto_cut auto_probe
# off_probe load" to $tmp/cutoff_KIND.
cutoff_pair() {
  local kind=$1 base=$2 rep=$3 mode m
  for mode in off auto; do
    cutoff_copy "$base" "$base.$mode"
    case $kind in
      filtered) cutoff_sql "$base.$mode" "insert into raw_01.src_01_01 select 1000 + range, -1, 1.5, timestamp '2025-01-03' from range(2)" ;;
      code) run_logged "$tmp/gen.log" "$py" "$bench/gen_project.py" "$cutoff_nodes" "$base.$mode" --changed
        sed -i "s|path: \".*bench.duckdb\"|path: \"bench.duckdb\"|" "$base.$mode/profiles.yml" ;;
    esac
  done
  local order=(off auto)
  ((rep % 2 == 0)) && order=(auto off)
  declare -A secs
  for m in "${order[@]}"; do secs[$m]=$(cutoff_run "$base.$m" "$m" "$tmp/cutoff_$m.json"); done
  echo "${secs[off]} ${secs[auto]} $(field "$tmp/cutoff_off.json" "$cutoff_built") $(field "$tmp/cutoff_auto.json" "$cutoff_built")" \
    "$(field "$tmp/cutoff_auto.json" "$cutoff_cut") $(field "$tmp/cutoff_auto.json" 'd["run"]["timings"]["probe"]')" \
    "$(field "$tmp/cutoff_off.json" 'd["run"]["timings"]["probe"]') $(load1)" >>"$tmp/cutoff_$kind"
  log "cutoff $kind $rep/$reps: off ${secs[off]} s, auto ${secs[auto]} s (load $(load1))"
  grep -h "ods: wave\|ods: early cutoff" "$tmp/cutoff_auto.json.err" >&2 || true
  rm -rf "$base.off" "$base.auto"
}

# col FILE K: column K of FILE, one value a line.
cutoff_col() { awk -v k="$2" '{print $k}' "$1"; }

bench_cutoff() {
  cutoff_nodes=${BENCH_CUTOFF_NODES:-1000}
  local base=$work/cutoff$cutoff_nodes/base r kind
  log "cutoff: generating and recording a $cutoff_nodes-node project (load $(load1))"
  cutoff_base "$cutoff_nodes" "$base"
  rm -f "$tmp/cutoff_filtered" "$tmp/cutoff_code"
  for ((r = 1; r <= reps; r++)); do
    cutoff_pair filtered "$base" "$r"
    cutoff_pair code "$base" "$r"
  done
  {
    echo "early cutoff: bench/gen_project.py $cutoff_nodes nodes on DuckDB; medians of $reps pairs (wall s, load: 1-minute"
    echo "load average after the pair's last run); --cutoff off is today's cascade, auto the default"
    for kind in filtered code; do
      local f=$tmp/cutoff_$kind off auto ob ab cut ap op l
      off=$(cutoff_col "$f" 1 | median_of_lines) auto=$(cutoff_col "$f" 2 | median_of_lines)
      ob=$(cutoff_col "$f" 3 | median_of_lines) ab=$(cutoff_col "$f" 4 | median_of_lines)
      cut=$(cutoff_col "$f" 5 | median_of_lines)
      ap=$(cutoff_col "$f" 6 | median_of_lines) op=$(cutoff_col "$f" 7 | median_of_lines) l=$(tail -n 1 "$f" | awk '{print $8}')
      case $kind in
        filtered) echo "one source change its staging readers filter out (2 rows with k = -1 in raw_01.src_01_01):" ;;
        code) echo "one mid-layer model's code edited (nothing built only for new data: nothing can cut off):" ;;
      esac
      awk -v off="$off" -v auto="$auto" -v ob="$ob" -v ab="$ab" -v cut="$cut" -v ap="$ap" -v op="$op" -v l="$l" 'BEGIN {
        printf "  --cutoff off:  %4d nodes built, %7.2f s\n", ob, off;
        printf "  --cutoff auto: %4d nodes built, %7.2f s (%d reused by early cutoff); probe steps %.2f s (off: %.2f s)\n", ab, auto, cut, ap, op;
        printf "  auto saved:    %4d nodes, %7.2f s (%.0f%% of off); load %s\n", ob - ab, off - auto, 100 * (off - auto) / off, l }'
    done
  } | tee "$work/state_run_cutoff.txt"
}
