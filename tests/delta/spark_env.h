#pragma once
// The Spark environment of the Delta and Iceberg suites (scripts/spark-env.sh: built by the
// spark_env ctest fixture, found in the cache here): its directory, the Delta and Iceberg jars.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "harness/dbt_project.h"

namespace ods::testing {

struct SparkEnv {
  std::filesystem::path dir;  // venv/, m2/, delta-jars
  std::string delta_jars;     // comma-separated, for spark.jars ($ODS_DELTA_JARS)
  std::string iceberg_jars;   // the iceberg-spark-runtime jar ($ODS_ICEBERG_JARS)
  std::filesystem::path bin(const std::string& tool) const { return dir / "venv" / "bin" / tool; }
};

inline std::string without_trailing_newlines(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// Fails the calling test (gtest's fatal assertion) when the environment can't be had.
inline void find_spark_env(SparkEnv& env) {
  ProcessResult r = run_process({(source_dir() / "scripts" / "spark-env.sh").string()}, source_dir());
  ASSERT_EQ(r.exit_code, 0) << r.errors;
  std::string out = without_trailing_newlines(r.output);
  env.dir = out.substr(out.rfind('\n') + 1);
  env.delta_jars = without_trailing_newlines(read_text_file(env.dir / "delta-jars"));
  ASSERT_FALSE(env.delta_jars.empty()) << "no delta-jars in " << env.dir;
  env.iceberg_jars = without_trailing_newlines(read_text_file(env.dir / "iceberg-jars"));
  ASSERT_FALSE(env.iceberg_jars.empty()) << "no iceberg-jars in " << env.dir;
}

}  // namespace ods::testing
