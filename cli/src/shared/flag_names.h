#pragma once
// The names of `ods`'s flags, declared once: the flag tables (common_flags, the commands' and
// `ods pod`'s), the parser (cli_args.cc), the commands that read them, and the dbt command lines
// ODS builds use these constants, so a misspelt flag is a compile error. The flags ODS shares
// with dbt (--select, --exclude, --selector, --project-dir, --target, --target-path, --profiles-dir) carry
// dbt's names and mean what they mean to dbt, so the same constant also builds dbt's arguments.
namespace ods::cli {

// Shared with dbt.
inline constexpr char kFlagSelect[] = "--select";
inline constexpr char kFlagExclude[] = "--exclude";
inline constexpr char kFlagSelector[] = "--selector";  // a YAML selector of selectors.yml
inline constexpr char kFlagProjectDir[] = "--project-dir";
inline constexpr char kFlagTarget[] = "--target";
inline constexpr char kFlagTargetPath[] = "--target-path";
inline constexpr char kFlagProfilesDir[] = "--profiles-dir";

// Every `ods state` command (common_flags) and `ods pod`.
inline constexpr char kFlagState[] = "--state";
inline constexpr char kFlagFormat[] = "--format";
inline constexpr char kFlagReadOnlyState[] = "--read-only-state";
inline constexpr char kFlagSummary[] = "--summary";     // plan, run, test (summary_flags)
inline constexpr char kFlagJsonFile[] = "--json-file";  // plan, run, test (summary_flags)

// The commands that run dbt: run, test, pod.
inline constexpr char kFlagDbt[] = "--dbt";
inline constexpr char kFlagDryRun[] = "--dry-run";
inline constexpr char kFlagCutoff[] = "--cutoff";
inline constexpr char kFlagCompile[] = "--compile";               // run: all | changed (keyed_compile.h)
inline constexpr char kFlagWriteManifest[] = "--write-manifest";  // run: dbt writes target/manifest.json
inline constexpr char kFlagMetricsFile[] = "--metrics-file";      // run, test
inline constexpr char kFlagPushgateway[] = "--pushgateway";       // run, test

// `ods state pr`: the PR environment's dbt target, and how it reads production's relations.
inline constexpr char kFlagPrTarget[] = "--pr-target";
inline constexpr char kFlagUpstream[] = "--upstream";

// `ods pod`: the controller's callback.
inline constexpr char kFlagCallback[] = "--callback";
inline constexpr char kFlagRun[] = "--run";
inline constexpr char kFlagTokenFile[] = "--token-file";
inline constexpr char kFlagRetryFor[] = "--retry-for";
inline constexpr char kFlagPackagesCache[] = "--packages-cache";  // where installed dbt packages are kept
inline constexpr char kFlagRunTests[] = "--run-tests";            // true | false (spec.policies.runTests)

// The store commands: history, reset, copy, key.
inline constexpr char kFlagLimit[] = "--limit";
inline constexpr char kFlagYes[] = "--yes";
inline constexpr char kFlagFrom[] = "--from";
inline constexpr char kFlagTo[] = "--to";
inline constexpr char kFlagScope[] = "--scope";
inline constexpr char kFlagAll[] = "--all";
inline constexpr char kFlagReplace[] = "--replace";
inline constexpr char kFlagCreate[] = "--create";

}  // namespace ods::cli
