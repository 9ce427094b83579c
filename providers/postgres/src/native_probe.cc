// The native probe: show_probe_program.cc's walk over the project's relations, step for step,
// over one libpq connection instead of dbt's (ods/postgres/native_probe.h).
#include "ods/postgres/native_probe.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>
#include <utility>

#include "pg_session.h"

namespace ods::postgres {

namespace {

using contracts::ProbeAnswer;
using contracts::ProbeReport;
using contracts::ProbeRequest;
using contracts::ProbeRow;
using contracts::ProbeStatement;
using Clock = std::chrono::steady_clock;

// How many relations' identity statements one query joins (the dbt program's kIdentityBatch).
constexpr std::size_t kIdentityBatch = 500;

// dbt-postgres's list_relations_without_caching, the schema as a parameter.
constexpr const char* kListing =
    "select tablename as name, 'table' as type from pg_tables where schemaname ilike $1 union all "
    "select viewname as name, 'view' as type from pg_views where schemaname ilike $1 union all "
    "select matviewname as name, 'materialized_view' as type from pg_matviews where schemaname ilike $1";
// dbt's default__check_schema_exists.
constexpr const char* kSchemaExists =
    "select count(*) from information_schema.schemata where catalog_name = $1 and schema_name = $2";

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// Jinja's replace filter: every occurrence, the replacement never searched again.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

std::string doubled_quotes(const std::string& text) { return replaced(text, "'", "''"); }

// Jinja's `~` of a value that may be none.
std::string or_none(const std::string& text) { return text.empty() ? "None" : text; }

enum class ItemKind { source, node, content };

struct Item {
  ItemKind kind;
  const ProjectRelation* relation;
};

// A relation as the listing named it.
struct Listed {
  std::string relation;  // {relation}: dbt-postgres's rendering
  std::string name;      // as listed ({identifier})
  std::string type;      // "table", "view", "materialized_view"
  std::string database;  // the relation's database, for {metadata_view}
};

struct Branch {
  const contracts::ProbeFilter* filter;
  const std::vector<ProbeStatement>* statements;
};

class NativeProbe final : public contracts::RelationProbe {
 public:
  NativeProbe(NativeConnection connection, ProjectRelations relations)
      : connection_(std::move(connection)), relations_(std::move(relations)) {}

  Result<ProbeReport> probe(const ProbeRequest& request) override {
    const auto started = Clock::now();
    auto session = PgSession::connect(connection_.conninfo);
    if (!session) return std::unexpected(session.error());
    if (!connection_.role.empty())
      if (auto done = session->execute("set role " + connection_.role); !done) return std::unexpected(done.error());
    if (auto done = session->execute("begin transaction read only"); !done) return std::unexpected(done.error());
    auto database = session->query("select pg_catalog.current_database()");
    if (!database) return std::unexpected(database.error());
    current_database_ = database->rows.empty() || !database->rows[0][0] ? "" : *database->rows[0][0];
    session_ = &*session;
    auto report = walk(request);
    session_ = nullptr;
    if (!report) return report;
    if (auto done = session->execute("rollback"); !done) return std::unexpected(done.error());
    report->target = connection_.target;
    report->call_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return report;
  }

 private:
  std::string quoted(const std::string& part, bool quote) const { return quote ? "\"" + part + "\"" : part; }

  // dbt-postgres's Relation rendering: "database"."schema"."identifier" (a part quoted when the
  // project's quoting says so; no database part when it has none).
  std::string relation_name(const std::string& database, const std::string& schema, const std::string& name) const {
    std::string out = database.empty() ? "" : quoted(database, relations_.quote_database) + ".";
    return out + quoted(schema, relations_.quote_schema) + "." + quoted(name, relations_.quote_identifier);
  }

  // dbt's Relation.information_schema(view): the database quoted as the relation's, the rest not.
  std::string metadata_view(const Listed& found, const std::string& view) const {
    std::string out = found.database.empty() ? "" : quoted(found.database, relations_.quote_database) + ".";
    return out + "INFORMATION_SCHEMA." + view;
  }

  Result<void> same_database(const ProjectRelation& r) const {
    if (r.database.empty()) return {};
    const bool same =
        relations_.quote_database ? r.database == current_database_ : lower(r.database) == lower(current_database_);
    if (same) return {};
    return fail("probe_failed", "PostgreSQL: " + r.id + " is in database '" + r.database + "', the connection's is '" +
                                    current_database_ + "' (cross-database references are not implemented)");
  }

  // The items in the dbt program's order: sources, nodes, content nodes.
  std::vector<Item> items_of(const ProbeRequest& request, ProbeReport& report) {
    std::vector<Item> items;
    const std::size_t shares = request.shares == 0 ? 1 : request.shares;
    if (request.sources) {
      std::vector<const ProjectRelation*> sorted;
      for (const auto& s : relations_.sources) sorted.push_back(&s);
      std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->id < b->id; });
      for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (i % shares == request.share)
          items.push_back({ItemKind::source, sorted[i]});
        else
          report.sources_elsewhere[sorted[i]->id] = i % shares;
      }
    }
    if (request.nodes && request.share == 0)
      for (const auto& n : relations_.nodes) items.push_back({ItemKind::node, &n});
    std::vector<std::string> contents = request.content_nodes;
    std::sort(contents.begin(), contents.end());
    for (std::size_t i = 0; i < contents.size(); ++i) {
      const std::string& id = contents[i];
      auto node = std::find_if(relations_.nodes.begin(), relations_.nodes.end(),
                               [&](const ProjectRelation& n) { return n.id == id; });
      if (i % shares != request.share) {
        report.contents_elsewhere[id] = i % shares;
      } else if (node != relations_.nodes.end()) {
        items.push_back({ItemKind::content, &*node});
      } else {
        ProbeAnswer missing;
        missing.status = ProbeAnswer::Status::missing;
        missing.why = "no relation for " + id + " in the project";
        report.contents[id] = std::move(missing);
      }
    }
    return items;
  }

  // One schema's relations named by `wanted` (lower-cased identifiers), keyed by lower-cased name.
  Result<std::map<std::string, Listed>> listing(const Item& item, const std::set<std::string>& wanted) {
    const ProjectRelation& r = *item.relation;
    std::map<std::string, Listed> names;
    if (item.kind != ItemKind::source) {
      auto exists = session_->query(kSchemaExists, {or_none(r.database), r.schema});
      if (!exists) return std::unexpected(exists.error());
      if (exists->rows.empty() || exists->rows[0][0].value_or("0") == "0") return names;
    }
    auto listed = session_->query(kListing, {r.schema});
    if (!listed) return std::unexpected(listed.error());
    for (const auto& row : listed->rows) {
      if (!row[0] || !wanted.contains(lower(*row[0]))) continue;
      names[lower(*row[0])] =
          Listed{relation_name(r.database, r.schema, *row[0]), *row[0], row[1].value_or(""), r.database};
    }
    return names;
  }

  // The statements of `branch` on one relation, as the program runs them; those named in
  // `not_to_run` (relation_probe 0.10) are never sent, only named in the answer.
  Result<ProbeAnswer> run_branch(const Branch& branch, std::size_t index, const ProjectRelation& r, const Listed& found,
                                 const std::vector<std::string>& not_to_run) {
    ProbeAnswer answer;
    answer.status = ProbeAnswer::Status::ok;
    answer.branch = index;
    answer.fallback = index > 0;
    for (const auto& st : *branch.statements) {
      if (std::find(not_to_run.begin(), not_to_run.end(), st.name) != not_to_run.end()) {
        answer.statements_skipped.push_back(st.name);
        continue;
      }
      if (st.only_if) {
        auto prior = answer.row_sets.find(st.only_if->statement);
        std::string value;
        if (prior != answer.row_sets.end() && !prior->second.empty()) {
          auto cell = prior->second.front().find(st.only_if->column);
          if (cell != prior->second.front().end()) value = cell->second;
        }
        const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || value.size() > 20 || std::stoull(value) > st.only_if->max) continue;
      }
      std::string sql =
          replaced(replaced(replaced(st.sql, "{relation}", found.relation), "{schema}", doubled_quotes(r.schema)),
                   "{identifier}", doubled_quotes(found.name));
      if (!st.metadata_view.empty()) sql = replaced(sql, "{metadata_view}", metadata_view(found, st.metadata_view));
      const auto t0 = Clock::now();
      auto result = session_->query(sql);
      answer.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      if (!result) return std::unexpected(result.error());
      auto& rows = answer.row_sets[st.name];
      rows.clear();
      for (std::size_t i = 0; i < result->rows.size() && i < st.max_rows; ++i) {
        ProbeRow row;
        for (std::size_t c = 0; c < result->columns.size(); ++c)
          if (result->rows[i][c]) row[result->columns[c]] = *result->rows[i][c];
        rows.push_back(std::move(row));
      }
      answer.rows[st.name] = rows.empty() ? ProbeRow{} : rows.front();
    }
    return answer;
  }

  // A source's or content node's answer: the first branch whose filter matches, else skipped.
  Result<ProbeAnswer> answer_for(const std::vector<Branch>& branches, const ProjectRelation& r, const Listed& found,
                                 const std::vector<std::string>& not_to_run) {
    std::string why;
    for (std::size_t i = 0; i < branches.size(); ++i) {
      const auto& filter = *branches[i].filter;
      const auto& kinds = filter.kinds;
      if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), found.type) == kinds.end()) {
        if (why.empty()) {
          why = "a " + found.type + ", not ";
          for (std::size_t k = 0; k < kinds.size(); ++k) why += (k ? " or " : "") + kinds[k];
        }
      } else if (filter.format && !filter.format->empty()) {
        // dbt-postgres lists no table format: none can be confirmed.
        if (why.empty()) why = "not a " + *filter.format + " table (its format could not be confirmed)";
      } else {
        return run_branch(branches[i], i, r, found, not_to_run);
      }
    }
    ProbeAnswer skipped;
    skipped.status = ProbeAnswer::Status::skipped;
    skipped.why = why;
    return skipped;
  }

  Result<ProbeReport> walk(const ProbeRequest& request) {
    ProbeReport report;
    std::vector<Branch> branches{{&request.filter, &request.statements}};
    if (request.fallback) {
      branches.push_back({&request.fallback->filter, &request.fallback->statements});
      for (const auto& further : request.further_fallbacks) branches.push_back({&further.filter, &further.statements});
    }
    const std::vector<Item> items = items_of(request, report);
    std::map<std::string, std::set<std::string>> wanted;  // schema key -> lower-cased identifiers
    auto key_of = [](const ProjectRelation& r) { return lower(r.database + "." + r.schema); };
    for (const auto& item : items) {
      if (auto same = same_database(*item.relation); !same) return std::unexpected(same.error());
      wanted[key_of(*item.relation)].insert(lower(item.relation->identifier));
    }
    std::map<std::string, std::map<std::string, Listed>> listed;
    std::vector<std::pair<std::string, std::vector<std::string>>> identity_selects;  // schema key -> selects
    for (const auto& item : items) {
      const ProjectRelation& r = *item.relation;
      const std::string key = key_of(r);
      if (!listed.contains(key)) {
        auto names = listing(item, wanted[key]);
        if (!names) return std::unexpected(names.error());
        listed[key] = std::move(*names);
      }
      auto it = listed[key].find(lower(r.identifier));
      const Listed* found = it == listed[key].end() ? nullptr : &it->second;
      if (item.kind == ItemKind::node) {
        report.relations_exist[r.id] = found != nullptr;
        if (found == nullptr) continue;
        if (!found->type.empty()) report.relation_kinds[r.id] = found->type;
        auto statement = request.identity_statements.find(found->type);
        if (statement == request.identity_statements.end() || statement->second.empty()) continue;
        std::string isql = replaced(statement->second, "{relation}", found->relation);
        isql = replaced(isql, "{database}", doubled_quotes(r.database));
        isql = replaced(isql, "{schema}", doubled_quotes(r.schema));
        isql = replaced(isql, "{identifier}", doubled_quotes(found->name));
        auto group = std::find_if(identity_selects.begin(), identity_selects.end(),
                                  [&](const auto& g) { return g.first == key; });
        if (group == identity_selects.end()) group = identity_selects.insert(identity_selects.end(), {key, {}});
        group->second.push_back("select '" + doubled_quotes(r.id) + "', ods_i.identity from (" + isql + ") as ods_i");
        continue;
      }
      auto& answers = item.kind == ItemKind::source ? report.sources : report.contents;
      if (found == nullptr) {
        ProbeAnswer missing;
        missing.status = ProbeAnswer::Status::missing;
        missing.why = "relation " + or_none(r.database) + "." + r.schema + "." + r.identifier + " does not exist";
        answers[r.id] = std::move(missing);
        continue;
      }
      auto skip = request.skip_statements.find(r.id);
      const std::vector<std::string> not_to_run =
          skip == request.skip_statements.end() ? std::vector<std::string>{} : skip->second;
      auto answer = answer_for(branches, r, *found, not_to_run);
      if (!answer) return std::unexpected(answer.error());
      answers[r.id] = std::move(*answer);
    }
    for (const auto& [key, selects] : identity_selects) {
      for (std::size_t from = 0; from < selects.size(); from += kIdentityBatch) {
        std::string sql;
        for (std::size_t i = from; i < selects.size() && i < from + kIdentityBatch; ++i)
          sql += (i > from ? " union all " : "") + selects[i];
        auto result = session_->query(sql);
        if (!result) return std::unexpected(result.error());
        for (const auto& row : result->rows)
          if (row.size() >= 2 && row[0] && row[1] && !row[1]->empty()) report.relation_identities[*row[0]] = *row[1];
      }
    }
    return report;
  }

  NativeConnection connection_;
  ProjectRelations relations_;
  PgSession* session_ = nullptr;
  std::string current_database_;
};

}  // namespace

std::unique_ptr<contracts::RelationProbe> make_native_postgres_probe(NativeConnection connection,
                                                                     ProjectRelations relations) {
  return std::make_unique<NativeProbe>(std::move(connection), std::move(relations));
}

}  // namespace ods::postgres
