#include "metrics_delivery.h"

#include <cpprest/http_client.h>

#include <chrono>
#include <fstream>
#include <ostream>

#include "exit_codes.h"
#include "flag_names.h"

namespace ods::cli {

namespace {

constexpr std::chrono::seconds kPushTimeout{30};

std::string base64url(const std::string& bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned n = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out.push_back(kAlphabet[(n >> shift) & 63]);
  }
  if (i < bytes.size()) {
    unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out += i + 1 < bytes.size() ? std::string(1, kAlphabet[(n >> 6) & 63]) + "=" : "==";
  }
  return out;
}

}  // namespace

std::string pushgateway_group_path(const std::string& scope) {
  return "/metrics/job/ods/project@base64/" + base64url(scope);
}

Result<void> push_metrics(const std::string& base_url, const std::string& scope, const std::string& text) {
  try {
    web::http::client::http_client_config config;
    config.set_timeout(kPushTimeout);
    std::string base = base_url;
    while (base.ends_with('/')) base.pop_back();
    web::http::client::http_client client(base + pushgateway_group_path(scope), config);
    web::http::http_request request(web::http::methods::PUT);
    request.set_body(text, "text/plain; version=0.0.4; charset=utf-8");
    auto response = client.request(request).get();
    if (response.status_code() / 100 == 2) return {};
    return fail("unavailable", "the Pushgateway at " + base_url + " answered " +
                                   std::to_string(response.status_code()) + ": " +
                                   response.extract_string(true).get().substr(0, 500));
  } catch (const web::uri_exception& e) {
    return fail("invalid_url", std::string(kFlagPushgateway) + " " + base_url + " is not a URL: " + e.what());
  } catch (const std::exception& e) {
    return fail("unavailable", "the Pushgateway at " + base_url + " is unreachable: " + e.what());
  }
}

void announce_scope(const CommandContext& ctx, contracts::StateStore& store, const std::string& scope,
                    const std::string& pushgateway) {
  auto kept = run::latest_metrics(store, scope);
  if (!kept || !kept->runs.empty()) return;
  auto pushed = push_metrics(pushgateway, scope, run::metrics_text(*kept, scope, run::MetricsFormat::prometheus));
  if (!pushed) *ctx.err << "ods: warning: metrics not pushed: " << pushed.error().message << "\n";
}

int deliver_metrics(const CommandContext& ctx, const ParsedArgs& args, contracts::StateStore& store,
                    const std::string& scope, const std::optional<run::RunMetrics>& totals, int code) {
  if (!args.has(kFlagMetricsFile) && !args.has(kFlagPushgateway)) return code;
  run::RunMetrics metrics;
  if (totals) {
    metrics = *totals;
  } else if (auto kept = run::latest_metrics(store, scope)) {
    metrics = std::move(*kept);
  } else {
    return report(ctx, {kept.error().code, "no metrics written: " + kept.error().message});
  }
  if (args.has(kFlagMetricsFile)) {
    const std::string path = args.get(kFlagMetricsFile);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << run::metrics_text(metrics, scope, run::MetricsFormat::openmetrics);
    out.close();
    if (!out) return report(ctx, {"io", std::string(kFlagMetricsFile) + " " + path + ": cannot be written"});
  }
  if (args.has(kFlagPushgateway)) {
    auto pushed = push_metrics(args.get(kFlagPushgateway), scope,
                               run::metrics_text(metrics, scope, run::MetricsFormat::prometheus));
    if (!pushed) *ctx.err << "ods: warning: metrics not pushed: " << pushed.error().message << "\n";
  }
  return code;
}

}  // namespace ods::cli
