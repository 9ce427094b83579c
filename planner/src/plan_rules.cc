// The planning rules of ADR-0013, first match wins, in DAG order.
#include <algorithm>
#include <future>
#include <optional>
#include <unordered_map>

#include "dag.h"
#include "ods/base/iso8601.h"
#include "ods/planner/checks.h"
#include "ods/planner/duration_text.h"
#include "ods/planner/planner.h"
#include "ods/planner/reason_codes.h"

namespace ods::planner {

std::string scope_of(const std::string& project, const std::string& target) {
  return project + "/" + (target.empty() ? std::string("default") : target);
}

namespace {

using namespace reason;

// How a decision propagates to readers: a code build may change the output's schema
// (rule 5, no lag tolerance); a data build means new data (rule 10).
enum class BuildKind { none, code, data };

// The kind of a build whose first reason is `code` (its action in kReasonCodes).
BuildKind build_kind(std::string_view code) { return is_build_for_code(code) ? BuildKind::code : BuildKind::data; }

struct Decision {
  Action action = Action::build;
  BuildKind kind = BuildKind::code;
};

// Why a rule builds a node: its reason code and the message that explains it.
struct BuildReason {
  std::string_view code;
  std::string message;
};

// The sources whose exact evidence was left unread as costing more than building their readers
// (kExactEvidenceTooCostly): sentences for those with no usable version (`unread`: the node
// builds, evidence_costs_more) and for those read by cheaper evidence (`cheaper`: a reuse notes it).
struct CostlyEvidence {
  std::vector<std::string> unread, cheaper;
};

class Planner {
 public:
  Planner(const ProjectInputs& inputs, const StateSnapshot* previous, const PlanOptions& options,
          const internal::DagOrder& dag)
      : inputs_(inputs), previous_(previous), options_(options), dag_(dag) {
    for (const auto& s : inputs.sources) sources_.emplace(s.id, &s);
  }

  ExecutionPlan run() {
    ExecutionPlan plan;
    plan.scope = scope_of(inputs_.project, inputs_.target);
    plan.warnings = inputs_.warnings;
    if (previous_ && !previous_->target_identity.empty() && !inputs_.target_identity.empty() &&
        previous_->target_identity != inputs_.target_identity) {
      plan.warnings.push_back("the recorded state was built in " + previous_->target_identity + ", not in " +
                              inputs_.target_identity + "; nothing is reused from it");
      previous_ = nullptr;
    }
    decisions_.assign(inputs_.nodes.size(), Decision{});
    replaced_.assign(inputs_.nodes.size(), false);
    prepare_all();
    plan.entries.reserve(inputs_.nodes.size());
    std::optional<std::unordered_map<std::string, bool>> selected;
    if (options_.selected) {
      selected.emplace();
      for (const auto& id : *options_.selected) selected->emplace(id, true);
    }
    for (std::size_t i : dag_.order) {
      if (auto earlier = options_.built_earlier.find(inputs_.nodes[i].id); earlier != options_.built_earlier.end()) {
        decisions_[i] = Decision{Action::build, earlier->second ? BuildKind::code : BuildKind::data};
        replaced_[i] = inputs_.nodes[i].build_replaces_relation;
        continue;  // built by an earlier wave of this run: no entry
      }
      PlanEntry entry = decide(i);
      if (entry.action == Action::reuse) entry = rebuilt_if_dropped(i, std::move(entry));
      entry.depth = dag_.depth[i];
      if (selected && !selected->contains(entry.id)) {  // rule 1
        // Left out of the plan, so not built by it: its readers see its last build.
        decisions_[i] = Decision{Action::reuse, BuildKind::none};
        continue;
      }
      replaced_[i] = entry.action == Action::build && inputs_.nodes[i].build_replaces_relation;
      plan.entries.push_back(std::move(entry));
    }
    std::stable_sort(plan.entries.begin(), plan.entries.end(), [](const PlanEntry& a, const PlanEntry& b) {
      return a.depth != b.depth ? a.depth < b.depth : a.id < b.id;
    });
    for (const auto& e : plan.entries) {
      if (e.action != Action::build) continue;
      if (!plan.select.empty()) plan.select += ' ';
      plan.select += e.name;
    }
    add_stale_evidence_warnings(plan);
    return plan;
  }

 private:
  // What each node's decision needs that no other node's decision changes: its recorded
  // state (looked up once), its fingerprint's digest and the diff against the recorded one.
  // Large projects split the nodes between this thread and one more; plan() returns only
  // once both are done, so it stays synchronous for its callers.
  void prepare_all() {
    const std::size_t n = inputs_.nodes.size();
    before_.assign(n, nullptr);
    digests_.assign(n, std::string());
    diffs_.assign(n, FingerprintDiff{});
    auto prepare = [this](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const NodeInput& node = inputs_.nodes[i];
        before_[i] = previous_state(node.id);
        digests_[i] = node.fingerprint.digest();
        if (before_[i] != nullptr) diffs_[i] = diff(before_[i]->fingerprint, node.fingerprint);
      }
    };
    if (n < kNodesForTwoThreads) {
      prepare(0, n);
      return;
    }
    auto second_half = std::async(std::launch::async, prepare, n / 2, n);
    prepare(0, n / 2);
    second_half.get();  // rethrows what the other thread threw
  }
  static constexpr std::size_t kNodesForTwoThreads = 4096;

  const NodeState* previous_state(const std::string& id) const {
    if (!previous_) return nullptr;
    auto it = previous_->nodes.find(id);
    return it == previous_->nodes.end() ? nullptr : &it->second;
  }

  // The node at `index`, decided by the rules in order: its own code (rules 2-4), the inputs it
  // declares and its policy (5-8), then its upstream data (9-14).
  PlanEntry decide(std::size_t index) {
    const NodeInput& node = inputs_.nodes[index];
    PlanEntry e{node.id, node.name, node.resource_type, Action::build, {}, {}, 0};
    Decision& d = decisions_[index];
    e.evidence.push_back({"fingerprint", node.id, std::move(digests_[index]), Exactness::exact, "project inputs"});
    if (!node.sql_from_run.empty())  // its compiled SQL is the one recorded under the same compile key
      e.evidence.push_back({"compiled_sql", node.id, "recorded compile, compile key unchanged", Exactness::exact,
                            "state run " + node.sql_from_run});

    const NodeState* before = before_[index];
    if (!before) {  // rule 2; a compile that waits for upstream is said too
      PlanEntry out = built(e, d, kNeverBuilt, "never built by ODS in this scope");
      if (!node.compile_needs_upstream.empty())
        out.reasons.push_back({std::string(kCompileNeedsUpstream), node.compile_needs_upstream});
      return out;
    }
    if (auto why = own_code_change(index, *before, e)) return built(e, d, why->code, std::move(why->message));
    if (auto why = input_change(node, *before)) return built(e, d, why->code, std::move(why->message));
    return decide_by_data(node, *before, e, d);
  }

  // A reuse of a node the warehouse drops with a parent this run replaces (a PostgreSQL view over
  // a table or view rebuilt now or by an earlier wave): BUILD dropped_with_upstream instead, the
  // reuse's own reason kept in the message. Its decision stays the reuse: rebuilt with the same
  // code over the same inputs, its relation holds what the reused one held, so its readers see
  // it unchanged. Any other entry is returned as it is.
  PlanEntry rebuilt_if_dropped(std::size_t index, PlanEntry entry) const {
    const NodeInput& node = inputs_.nodes[index];
    if (!node.dropped_when_parent_replaced) return entry;
    std::vector<std::string> replaced_parents;
    for (const auto& p : node.parents) {
      auto it = dag_.index_of.find(p);
      if (it != dag_.index_of.end() && replaced_[it->second])
        replaced_parents.push_back(inputs_.nodes[it->second].name);
    }
    if (replaced_parents.empty()) return entry;
    const Reason would_reuse = entry.reasons.empty() ? Reason{} : entry.reasons.front();
    entry.action = Action::build;
    entry.reasons.clear();
    entry.reasons.push_back(
        {std::string(kDroppedWithUpstream),
         "rebuilt in this run: " + join(replaced_parents) +
             " (a rebuild replaces the relation, and the warehouse drops the relations bound to the old one, this "
             "node's too), so it is rebuilt after; it would otherwise be reused (" +
             would_reuse.code + ": " + would_reuse.message + ")"});
    return entry;
  }

  // `e`, decided to build for `code` (its first reason), with `d` saying so; `e` is moved from.
  static PlanEntry built(PlanEntry& e, Decision& d, std::string_view code, std::string message) {
    d = Decision{Action::build, build_kind(code)};
    e.action = Action::build;
    e.reasons.push_back({std::string(code), std::move(message)});
    return std::move(e);
  }

  // Rules 3 and 4: why the node's own code makes it build (its code known only after dbt build
  // compiles it, a fingerprint it can't complete, its fingerprint changed since `before`), or
  // nothing. A changed fingerprint's components are added to `e`'s evidence.
  std::optional<BuildReason> own_code_change(std::size_t index, const NodeState& before, PlanEntry& e) const {
    const NodeInput& node = inputs_.nodes[index];
    if (!node.compile_needs_upstream.empty())  // rule 3: its code is known only once dbt build compiles it
      return BuildReason{kCompileNeedsUpstream, node.compile_needs_upstream};
    if (!node.incomplete.empty()) {  // rule 3
      std::string why;
      for (const auto& w : node.incomplete) why += (why.empty() ? "" : "; ") + w;
      return BuildReason{kIncompleteFingerprint, "its code can't be fingerprinted completely: " + why};
    }
    const FingerprintDiff& fd = diffs_[index];
    if (fd.empty()) return std::nullopt;
    for (const auto& c : fd.changed) {  // rule 4
      e.evidence.push_back(
          {"fingerprint_component", c,
           before.fingerprint.components.at(c).substr(0, 12) + " -> " + node.fingerprint.components.at(c).substr(0, 12),
           Exactness::exact, "state run " + before.run_id});
    }
    bool only_scheme = fd.changed == std::vector<std::string>{"scheme"} && fd.added.empty() && fd.removed.empty();
    return BuildReason{kFingerprintChanged, only_scheme
                                                ? "the fingerprint scheme changed; every node builds once"
                                                : "code changed since run " + before.run_id + ": " + fd.describe()};
  }

  // Rules 5 to 8: why the inputs the node declares or its policy make it build (a parent built
  // for code, an unknown parent, what it reads at run time, no declared input, a policy that
  // can't be honoured), or nothing.
  std::optional<BuildReason> input_change(const NodeInput& node, const NodeState& before) const {
    std::vector<std::string> code_parents, rebuilt_code_parents, unknown_parents;
    for (const auto& p : node.parents) {
      if (auto it = dag_.index_of.find(p); it != dag_.index_of.end()) {
        // A parent an earlier wave rebuilt for code whose output, columns and rows, is the one
        // this node read is judged by rule 14 (early cutoff), not rule 5.
        if (decisions_[it->second].action != Action::build || decisions_[it->second].kind != BuildKind::code) continue;
        if (!options_.built_earlier.contains(p))
          code_parents.push_back(inputs_.nodes[it->second].name);
        else if (!output_proven_unchanged(before, p, it->second))
          rebuilt_code_parents.push_back(
              inputs_.nodes[it->second].name + " was rebuilt for a code change" +
              (before_[it->second] ? content_difference(before, p, *before_[it->second]) : std::string()));
      } else if (!sources_.contains(p)) {
        unknown_parents.push_back(p);
      }
    }
    if (!code_parents.empty())  // rule 5
      return BuildReason{kUpstreamCodeChanged, (code_parents.size() == 1 ? "parent " : "parents ") +
                                                   join(code_parents) +
                                                   " will be built for a code change, so its output may change shape"};
    if (!rebuilt_code_parents.empty())  // rule 5, after an earlier wave: not proven the output it read
      return BuildReason{kUpstreamCodeChanged, "parent " + join(rebuilt_code_parents, "; parent ") +
                                                   ", and its output is not proven to be the one this node read "
                                                   "(columns and rows)"};
    if (!unknown_parents.empty())  // rule 6
      return BuildReason{kUnknownParent, "reads " + join(unknown_parents) + ", which ODS doesn't know"};
    if (!node.always_build.empty()) {  // hooks rule (#218); after 5 and 6 so a code change still propagates
      std::string why;
      for (const auto& w : node.always_build) why += (why.empty() ? "" : "; ") + w;
      return BuildReason{kReadsRunContext,
                         "always built: " + why + " (what it reads at run time is not fingerprinted)"};
    }
    if (node.parents.empty() && !node.self_contained)  // rule 7
      return BuildReason{kNoDeclaredInputs, "declares no inputs, so ODS can't tell when the data it reads changes"};
    if (!node.policy.allows_reuse())  // rule 8
      return BuildReason{kPolicyUnusable, "its freshness policy can't be honoured: " + node.policy.error};
    return std::nullopt;
  }

  // Rules 9 to 14, for a node whose code and declared inputs are unchanged since `before`: build
  // for missing evidence or new upstream data, unless its policy waits (11, 12); else reuse, for
  // early cutoff or nothing changed (saying when only formatting changed).
  PlanEntry decide_by_data(const NodeInput& node, const NodeState& before, PlanEntry& e, Decision& d) {
    std::vector<std::string> missing, fresh, cut_off;
    std::size_t unchanged_parents = 0;
    CostlyEvidence costly;
    collect_upstream(node, before, e, missing, fresh, cut_off, unchanged_parents, costly);
    if (!missing.empty())  // rule 9
      return built(e, d, kMissingDataEvidence, "no usable data evidence: " + join(missing, "; "));
    if (!costly.unread.empty())  // rule 9: no evidence read, because reading it cost more than this build
      return built(e, d, kEvidenceCostsMore, join(costly.unread, "; "));
    // A reuse judged on a source's cheaper evidence says so after its own reason.
    auto noting_cheaper = [&](PlanEntry out) {
      if (out.action == Action::reuse && !costly.cheaper.empty())
        out.reasons.push_back({std::string(kCheaperEvidence), join(costly.cheaper, "; ")});
      return out;
    };
    if (!fresh.empty()) {                                                      // rule 10
      if (node.policy.require_fresh_data_from_all && unchanged_parents > 0) {  // rule 11
        std::size_t total = fresh.size() + unchanged_parents;
        return noting_cheaper(reuse(e, d, before, kWaitingForAllParents,
                                    std::to_string(fresh.size()) + " of " + std::to_string(total) +
                                        " inputs have new data; require_fresh_data_from: all waits for every input"));
      }
      if (node.policy.lag_tolerance_seconds) {  // rule 12
        auto built_at = parse_iso8601_micros(before.built_at);
        auto now = parse_iso8601_micros(options_.now);
        if (built_at && now) {
          std::int64_t due = *built_at + *node.policy.lag_tolerance_seconds * 1'000'000;
          if (*now < due)
            return noting_cheaper(reuse(e, d, before, kWithinLagTolerance,
                                        "new data in " + join(fresh) + ", but within lag_tolerance " +
                                            describe_duration(*node.policy.lag_tolerance_seconds) + "; due at " +
                                            format_iso8601_micros(due)));
        }
      }
      return built(e, d, kNewUpstreamData, "new data upstream: " + join(fresh, "; "));  // rule 13
    }
    if (!cut_off.empty())  // rule 14, early cutoff: a rebuilt parent's content is what this node read
      return noting_cheaper(
          reuse(e, d, before, kEarlyCutoff,
                "code unchanged and " + join(cut_off, "; ") + ", so its inputs are the ones it was built from"));
    std::string message = "code and inputs unchanged since run " + before.run_id;
    PlanEntry out = reuse(e, d, before, kUnchanged, message);  // rule 14
    if (out.action == Action::reuse && !node.raw_digest.empty() && !before.raw_digest.empty() &&
        node.raw_digest != before.raw_digest) {
      out.reasons.push_back({std::string(kFormattingOnly),
                             "only formatting changed (comments or whitespace); the normalised code is the same"});
    }
    return noting_cheaper(std::move(out));
  }

  // Rule 9 and 10 evidence for one node: `missing` (no usable evidence), `fresh` (new data),
  // `cut_off` (parents rebuilt since it read them whose content is the content it read;
  // counted in `unchanged` too), `costly` (sources whose exact evidence cost too much).
  void collect_upstream(const NodeInput& node, const NodeState& before, PlanEntry& e, std::vector<std::string>& missing,
                        std::vector<std::string>& fresh, std::vector<std::string>& cut_off, std::size_t& unchanged,
                        CostlyEvidence& costly) const {
    auto built_at = parse_iso8601_micros(before.built_at);
    for (const auto& p : node.parents) {
      if (auto s = sources_.find(p); s != sources_.end()) {
        const SourceInput& src = *s->second;
        const Evidence* too_costly = nullptr;
        for (const auto& ev : src.evidence) {
          e.evidence.push_back(ev);
          if (ev.kind == kExactEvidenceTooCostly) too_costly = &ev;
        }
        if (!src.version || !allows_reuse(src.version->exactness)) {
          if (too_costly != nullptr)
            costly.unread.push_back("source " + src.name + " was not fingerprinted: " + too_costly->value);
          else
            missing.push_back("source " + src.name + " has no data version" + why_unknown(src));
          continue;
        }
        if (too_costly != nullptr)
          costly.cheaper.push_back("source " + src.name + " was read by its " +
                                   std::string(to_string(src.version->exactness)) + " evidence (" +
                                   src.version->origin + "): its fingerprint " + too_costly->value);
        e.evidence.push_back(
            {"source_data_version", src.id, src.version->value, src.version->exactness, src.version->origin});
        auto then = before.source_versions.find(p);
        if (then == before.source_versions.end() || !allows_reuse(then->second.exactness)) {
          missing.push_back("no usable data version of source " + src.name + " was recorded at its last build");
          continue;
        }
        auto observed = parse_iso8601_micros(src.version->observed_at);
        if (!observed || !built_at || *observed <= *built_at) {  // only a later observation counts
          missing.push_back("the version of source " + src.name + " was observed at " + src.version->observed_at +
                            ", not after the last build (" + before.built_at + "); it says nothing about data since");
          continue;
        }
        if (then->second == *src.version) {
          ++unchanged;
        } else {
          fresh.push_back("source " + src.name + " moved from " + then->second.value + " to " + src.version->value);
        }
        continue;
      }
      auto idx = dag_.index_of.at(p);
      const std::string& parent_name = inputs_.nodes[idx].name;
      // A parent built earlier in this run (a data build: a code build stopped at rule 5) is
      // judged on the snapshot that recorded it, like a parent rebuilt by an earlier run.
      const bool built_earlier = options_.built_earlier.contains(p);
      if (decisions_[idx].action == Action::build && !built_earlier) {
        fresh.push_back(parent_name + " will be built");
        continue;
      }
      auto read = before.parent_runs.find(p);
      const NodeState* parent_before = before_[idx];
      if (read == before.parent_runs.end() || !parent_before) {
        missing.push_back("no record of which build of " + parent_name + " it read");
        continue;
      }
      if (read->second == parent_before->run_id) {
        ++unchanged;
      } else if (auto same = same_content_read(before, p, *parent_before)) {
        ++unchanged;
        const auto earlier = options_.built_earlier.find(p);
        const bool for_code = earlier != options_.built_earlier.end() && earlier->second;
        if (for_code) {  // rule 5 let it through: proven by columns and rows (output_proven_unchanged)
          cut_off.push_back(parent_name + " was rebuilt for a code change by run " + parent_before->run_id +
                            " and came out with the columns and rows it read (" + *same + ")");
          e.evidence.push_back({"parent_code_changed", p,
                                "rebuilt for a code change by run " + parent_before->run_id + " (fingerprint " +
                                    parent_before->fingerprint.digest().substr(0, 12) + ")",
                                Exactness::exact, "state run " + parent_before->run_id});
        } else {
          cut_off.push_back(parent_name + " was rebuilt by run " + parent_before->run_id +
                            (parent_before->content->covers_schema ? " with the columns and rows it read ("
                                                                   : " with the content it read (") +
                            *same + ")");
        }
        e.evidence.push_back({"parent_content", p,
                              "read " + parent_before->content->value + ", now " + parent_before->content->value +
                                  (parent_before->content->covers_schema ? " (columns and rows)" : " (rows)"),
                              parent_before->content->exactness, "state run " + parent_before->run_id});
      } else {
        fresh.push_back(parent_name + " was rebuilt by run " + parent_before->run_id + " after this node read run " +
                        read->second + content_difference(before, p, *parent_before));
      }
    }
  }

  // Whether parent `p` (at `index`), built by an earlier wave of this run, came out with the
  // output this node read, columns included: only then may a code change upstream cut off.
  bool output_proven_unchanged(const NodeState& before, const std::string& p, std::size_t index) const {
    if (!options_.built_earlier.contains(p) || before_[index] == nullptr) return false;
    auto read = before.parent_contents.find(p);
    return read != before.parent_contents.end() && read->second.covers_schema &&
           same_content_read(before, p, *before_[index]).has_value();
  }

  // The shortened content both sides share when the parent's content now is the content this
  // node read and both are exact enough to reuse on (rule 2: unknown never cuts off).
  static std::optional<std::string> same_content_read(const NodeState& before, const std::string& parent,
                                                      const NodeState& parent_now) {
    auto read = before.parent_contents.find(parent);
    if (read == before.parent_contents.end() || !parent_now.content) return std::nullopt;
    if (!allows_reuse(read->second.exactness) || !(read->second == *parent_now.content)) return std::nullopt;
    return short_version(read->second.value);
  }

  // " (content X -> Y)" when both contents are known and differ, "" otherwise.
  static std::string content_difference(const NodeState& before, const std::string& parent,
                                        const NodeState& parent_now) {
    auto read = before.parent_contents.find(parent);
    if (read == before.parent_contents.end() || !parent_now.content) return "";
    return " (content " + short_version(read->second.value) + " -> " + short_version(parent_now.content->value) + ")";
  }

  static std::string short_version(const std::string& value) {
    constexpr std::size_t kShown = 28;
    return value.size() <= kShown ? value : value.substr(0, kShown) + "...";
  }

  static std::string why_unknown(const SourceInput& src) {
    if (src.version) return " better than " + std::string(to_string(src.version->exactness));
    std::string why;
    for (const auto& ev : src.evidence) {
      if (ev.exactness == Exactness::none && !ev.value.empty() && ev.kind != "version_strategy")
        why += (why.empty() ? "" : "; ") + ev.value;
    }
    return why.empty() ? "" : " (" + why + ")";
  }

  PlanEntry reuse(PlanEntry& e, Decision& d, const NodeState& before, std::string_view code, std::string message) {
    if (options_.relations_exist) {
      auto it = options_.relations_exist->find(e.id);
      if (it == options_.relations_exist->end()) {
        d = Decision{Action::build, build_kind(kRelationUnverified)};
        e.reasons.push_back({std::string(kRelationUnverified), "its relation's existence couldn't be checked"});
        return std::move(e);
      }
      if (!it->second) {
        d = Decision{Action::build, build_kind(kRelationMissing)};
        e.reasons.push_back({std::string(kRelationMissing), "its relation no longer exists in the warehouse"});
        e.evidence.push_back({"relation_exists", e.id, "false", Exactness::exact, "warehouse"});
        return std::move(e);
      }
      e.evidence.push_back({"relation_exists", e.id, "true", Exactness::exact, "warehouse"});
      if (!relation_is_recorded_one(e, d, before)) return std::move(e);
    } else {
      e.evidence.push_back({"relation_exists", e.id, "not checked", Exactness::none,
                            "no warehouse connection: reuse trusts that the last build's relation still exists"});
    }
    if (const NodeInput& node = inputs_.nodes[dag_.index_of.at(e.id)];
        node.checks_need_build && !checks_passed_on_build(node, before)) {
      d = Decision{Action::build, build_kind(kChecksNotPassed)};
      e.reasons.push_back({std::string(kChecksNotPassed),
                           "some of its checks run only with its build and have not passed on its build of run " +
                               before.run_id + " (they failed, changed or never ran on it), so it builds again"});
      return std::move(e);
    }
    d = Decision{Action::reuse, BuildKind::none};
    e.action = Action::reuse;
    e.reasons.push_back({std::string(code), std::move(message)});
    e.evidence.push_back({"last_build", e.id, before.run_id, Exactness::exact, "state, built at " + before.built_at});
    return std::move(e);
  }

  // Whether the relation is the one the node's last build recorded (docs/warehouses.md, "Relation
  // identity"). False: `e` and `d` say BUILD and why. A node whose build recorded no identity (an
  // older state, a warehouse that gives none) or a plan not asked to compare identities passes
  // on its relation's existence alone, as before identities were recorded.
  bool relation_is_recorded_one(PlanEntry& e, Decision& d, const NodeState& before) const {
    if (!options_.relation_identities) return true;
    if (before.relation_identity.empty()) {
      e.evidence.push_back({"relation_identity", e.id, "not recorded", Exactness::none,
                            "state: its build (run " + before.run_id + ") recorded no identity of its relation"});
      return true;
    }
    auto now = options_.relation_identities->find(e.id);
    if (now == options_.relation_identities->end()) {
      d = Decision{Action::build, build_kind(kRelationUnverified)};
      e.reasons.push_back({std::string(kRelationUnverified),
                           "its relation's identity couldn't be read, so it can't be shown to be the one run " +
                               before.run_id + " built"});
      e.evidence.push_back({"relation_identity", e.id, "recorded " + before.relation_identity + ", now unknown",
                            Exactness::none, "warehouse"});
      return false;
    }
    if (now->second != before.relation_identity) {
      d = Decision{Action::build, build_kind(kRelationChangedOutside)};
      e.reasons.push_back({std::string(kRelationChangedOutside),
                           "its relation is not the one run " + before.run_id +
                               " built and recorded: it was written, replaced or reset since, outside ODS"});
      e.evidence.push_back({"relation_identity", e.id, "recorded " + before.relation_identity + ", now " + now->second,
                            Exactness::exact, "state run " + before.run_id + "; warehouse"});
      return false;
    }
    e.evidence.push_back(
        {"relation_identity", e.id, now->second, Exactness::exact, "warehouse, as recorded by run " + before.run_id});
    return true;
  }

  void add_stale_evidence_warnings(ExecutionPlan& plan) const {
    for (const auto& e : plan.entries) {
      for (const auto& r : e.reasons) {
        if (r.code == kMissingDataEvidence && r.message.find("not after the last build") != std::string::npos) {
          plan.warnings.push_back(
              "sources.json is older than the last build; run `dbt source freshness` before planning to use it");
          return;
        }
      }
    }
  }

  static std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
    return out;
  }

  const ProjectInputs& inputs_;
  const StateSnapshot* previous_;
  const PlanOptions& options_;
  const internal::DagOrder& dag_;
  std::unordered_map<std::string, const SourceInput*> sources_;
  std::vector<Decision> decisions_;
  // By node index: its relation is replaced by this run (built now or by an earlier wave, with
  // build_replaces_relation), so the relations bound to it are dropped.
  std::vector<bool> replaced_;
  std::vector<const NodeState*> before_;  // by node index; nullptr: not in the recorded state
  std::vector<std::string> digests_;      // by node index: the fingerprint's digest (moved into the plan)
  std::vector<FingerprintDiff> diffs_;    // by node index: recorded -> current fingerprint
};

}  // namespace

bool built_for_code(const PlanEntry& entry) {
  if (entry.action != Action::build || entry.reasons.empty()) return false;
  return is_build_for_code(entry.reasons.front().code);
}

Result<ExecutionPlan> plan(const ProjectInputs& inputs, const StateSnapshot* previous, const PlanOptions& options) {
  auto dag = internal::dag_order(inputs);
  if (!dag) return std::unexpected(dag.error());
  return Planner(inputs, previous, options, *dag).run();
}

}  // namespace ods::planner
