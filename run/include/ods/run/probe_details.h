#pragma once
// What a run's probe (one dbt show call) measured: kept in the run's ledger entry (RunDetails)
// and sent by an `ods pod` to the controller with its inputs (callback::InputsRequest).
#include <map>
#include <string>
#include <vector>

namespace ods::run {

struct ProbeDetails {
  std::string strategy;  // the ChangeProvider's origin ("" when none applies)
  double call_seconds = 0;
  std::map<std::string, double> source_seconds;  // source id -> statement latency
  std::vector<std::string> warnings;
};

}  // namespace ods::run
