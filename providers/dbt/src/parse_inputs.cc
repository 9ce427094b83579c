#include "ods/dbt/parse_inputs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <system_error>
#include <thread>

#include "ods/base/sha256.h"
#include "parse_inputs_parts.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxFiles = 500000;  // a resource path that is the whole disk: declined, not read
constexpr std::size_t kMaxThreads = 4;     // the files are read and digested on at most this many threads

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::size_t skip_space(std::string_view text, std::size_t i) {
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
  return i;
}

// True when `at` is inside a Jinja expression or statement: after its last `{{` or `{%` with no
// `}}` or `%}` between.
bool inside_jinja(std::string_view text, std::size_t at) {
  auto last = [&](std::string_view a, std::string_view b) {
    const std::size_t x = text.rfind(a, at), y = text.rfind(b, at);
    if (x == std::string_view::npos) return y;
    if (y == std::string_view::npos) return x;
    return std::max(x, y);
  };
  const std::size_t open = last("{{", "{%");
  if (open == std::string_view::npos) return false;
  const std::size_t close = last("}}", "%}");
  return close == std::string_view::npos || close < open;
}

// The literal name of the env_var call whose name ends before `after` ("( 'NAME'" then `,` or
// `)`; a quote may be escaped as in a YAML string: \"NAME\"); else why not.
std::expected<std::string, std::string> literal_argument(std::string_view text, std::size_t after) {
  std::size_t i = skip_space(text, after);
  if (i >= text.size() || text[i] != '(') return std::unexpected("env_var is used other than as a call");
  i = skip_space(text, i + 1);
  std::string quote;
  if (i < text.size() && (text[i] == '\'' || text[i] == '"')) quote = text.substr(i, 1);
  if (i + 1 < text.size() && text[i] == '\\' && (text[i + 1] == '\'' || text[i + 1] == '"')) quote = text.substr(i, 2);
  if (quote.empty()) return std::unexpected("env_var is called with a name that is not a literal");
  const std::size_t close = text.find(quote, i + quote.size());
  if (close == std::string_view::npos) return std::unexpected("env_var's name is not closed");
  const std::string_view name = text.substr(i + quote.size(), close - i - quote.size());
  const std::size_t next = skip_space(text, close + quote.size());
  if (name.empty() || name.find_first_of("\\'\"\n{}") != std::string_view::npos || next >= text.size() ||
      (text[next] != ',' && text[next] != ')'))
    return std::unexpected("env_var is called with a name that is not a literal");
  return std::string(name);
}

// The files dbt_project.yml's paths name: each `*-paths` list (defaults for the resource kinds it
// leaves out) and packages-install-path. Else why not.
std::expected<std::vector<std::string>, std::string> declared_folders(const YAML::Node& project) {
  std::map<std::string, std::vector<std::string>> paths{
      {"model-paths", {"models"}},       {"macro-paths", {"macros"}}, {"seed-paths", {"seeds"}},
      {"snapshot-paths", {"snapshots"}}, {"test-paths", {"tests"}},   {"analysis-paths", {"analyses"}},
      {"function-paths", {"functions"}}, {"docs-paths", {}}};
  std::vector<std::string> out{"dbt_packages"};
  for (const auto& kv : project) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (key == "packages-install-path") {
      if (!kv.second.IsScalar() || kv.second.Scalar().find("{{") != std::string::npos)
        return std::unexpected("dbt_project.yml's packages-install-path is not a plain path");
      out[0] = kv.second.Scalar();
    } else if (key.ends_with("-paths") && key != "clean-targets") {
      std::vector<std::string> list;
      if (!kv.second.IsSequence()) return std::unexpected("dbt_project.yml's " + key + " is not a list of paths");
      for (const auto& item : kv.second) {
        if (!item.IsScalar() || item.Scalar().find("{{") != std::string::npos)
          return std::unexpected("dbt_project.yml's " + key + " is not a list of plain paths");
        list.push_back(item.Scalar());
      }
      paths[key] = std::move(list);
    }
  }
  for (const auto& [key, list] : paths) out.insert(out.end(), list.begin(), list.end());
  return out;
}

// The whole of `file`, or false. Read to its size as fstat gives it, then on to its end.
bool read_whole(const fs::path& file, std::string& out) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  std::size_t size = ::fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<std::size_t>(st.st_size) : 0;
  out.resize(size + 4096);
  std::size_t got = 0;
  for (;;) {
    if (got == out.size()) out.resize(out.size() * 2);
    const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0) {
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(got);
  return true;
}

struct FileSet {
  std::map<std::string, fs::path> files;  // relative name -> path, sorted
  std::string absent;                     // the declared folders and top files that are not there
};

// Every regular file under `folder` (links followed), but for the skipped folders. Else why not.
std::expected<void, std::string> list_folder(const ParseInputsQuery& q, const std::string& folder, FileSet& set) {
  const fs::path root = q.project_dir / folder;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    set.absent += "folder " + folder + "\n";
    return {};
  }
  fs::recursive_directory_iterator it(root, fs::directory_options::follow_directory_symlink, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (it->is_directory(ec)) {
      if (std::find(q.skipped.begin(), q.skipped.end(), p) != q.skipped.end()) it.disable_recursion_pending();
      continue;
    }
    set.files.emplace(p.lexically_relative(q.project_dir).string(), p);
    if (set.files.size() > kMaxFiles)
      return std::unexpected("more than " + std::to_string(kMaxFiles) + " files under " + folder);
  }
  if (ec) return std::unexpected("can't list " + root.string() + " (" + ec.message() + ")");
  return {};
}

// The project's files (a), listed. Else why not.
std::expected<FileSet, std::string> project_files(const ParseInputsQuery& q) {
  YAML::Node project;
  try {
    project = YAML::LoadFile((q.project_dir / "dbt_project.yml").string());
  } catch (const YAML::Exception& e) {
    return std::unexpected("dbt_project.yml can't be read as YAML (" + std::string(e.what()) + ")");
  }
  if (!project.IsMap()) return std::unexpected("dbt_project.yml is not a map");
  auto folders = declared_folders(project);
  if (!folders) return std::unexpected(folders.error());
  std::sort(folders->begin(), folders->end());
  folders->erase(std::unique(folders->begin(), folders->end()), folders->end());
  FileSet set;
  std::error_code ec;
  for (const char* top : {"dbt_project.yml", "packages.yml", "dependencies.yml", "package-lock.yml", "selectors.yml"}) {
    if (fs::is_regular_file(q.project_dir / top, ec))
      set.files.emplace(top, q.project_dir / top);
    else
      set.absent += std::string("file ") + top + "\n";
  }
  for (const auto& folder : *folders)
    if (auto listed = list_folder(q, folder, set); !listed) return std::unexpected(listed.error());
  return set;
}

// One share of the files: each one's line ("file NAME SHA-256") and the env_var names found.
struct FileShare {
  std::string lines;
  std::set<std::string> names;
  std::string failed;  // why not, "" when all were read
};

void digest_share(const std::vector<const std::pair<const std::string, fs::path>*>& files, std::size_t begin,
                  std::size_t end, FileShare& out) {
  std::string content;
  for (std::size_t i = begin; i < end; ++i) {
    const auto& [name, path] = *files[i];
    if (!read_whole(path, content)) {
      out.failed = "can't read " + path.string();
      return;
    }
    auto found = env_var_names(content);
    if (!found) {
      out.failed = name + ": " + found.error();
      return;
    }
    out.names.insert(found->begin(), found->end());
    out.lines += "file " + name + " " + sha256_hex(content) + "\n";
  }
}

// Appends each file's name and content digest to `text` (in name order; read on a few threads);
// env_var names found go to `names`. Else why not (the first file, in name order, that failed).
std::expected<void, std::string> digest_files(const FileSet& set, std::string& text, std::set<std::string>& names) {
  std::vector<const std::pair<const std::string, fs::path>*> files;
  files.reserve(set.files.size());
  for (const auto& entry : set.files) files.push_back(&entry);
  const std::size_t threads =
      files.size() < 512 ? 1 : std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxThreads);
  std::vector<FileShare> shares(threads);
  std::vector<std::thread> workers;
  const std::size_t per = (files.size() + threads - 1) / threads;
  for (std::size_t t = 1; t < threads; ++t)
    workers.emplace_back(digest_share, std::cref(files), std::min(files.size(), t * per),
                         std::min(files.size(), (t + 1) * per), std::ref(shares[t]));
  digest_share(files, 0, std::min(files.size(), per), shares[0]);
  for (auto& w : workers) w.join();
  for (auto& share : shares) {
    if (!share.failed.empty()) return std::unexpected(share.failed);
    text += share.lines;
    names.merge(share.names);
  }
  text += set.absent;
  return {};
}

// Appends the variables' values (e): those named (never a secret-looking one: declined; an unset
// one as unset) and the DBT_* ones (a secret-looking one, or one `credential_only` holds, left out). Returns how many,
// else why not.
std::expected<std::size_t, std::string> digest_variables(const ParseInputsQuery& q, const std::set<std::string>& named,
                                                         const std::set<std::string>& credential_only,
                                                         std::string& text) {
  for (const auto& name : named)
    if (looks_secret(name))
      return std::unexpected("the environment variable " + name +
                             " looks like a secret and is named outside a profile's credential field (its value is "
                             "never digested)");
  std::set<std::string> all = named;
  for (const auto& name : parse_variables()) all.insert(name);
  for (const auto& name : q.set_variable_names)
    if (name.starts_with("DBT_") && !looks_secret(name) && !credential_only.contains(name)) all.insert(name);
  if (!q.getenv("DBT_PARTIAL_PARSE_FILE_PATH").empty())
    return std::unexpected("DBT_PARTIAL_PARSE_FILE_PATH is set (dbt reads its partial-parse state elsewhere)");
  for (const auto& name : all) {
    const std::string value = q.getenv(name);
    text += value.empty() && !q.set_variable_names.contains(name) ? "env " + name + " unset\n"
                                                                  : "env " + name + "=" + value + "\n";
  }
  return all.size();
}

}  // namespace

std::expected<std::set<std::string>, std::string> env_var_names(std::string_view text) {
  std::set<std::string> out;
  constexpr std::string_view kCall = "env_var";
  for (std::size_t at = text.find(kCall); at != std::string_view::npos; at = text.find(kCall, at + kCall.size())) {
    if (at > 0 && identifier_char(text[at - 1])) continue;
    const std::size_t after = at + kCall.size();
    if (after < text.size() && identifier_char(text[after])) continue;
    auto name = literal_argument(text, after);
    if (name) {
      out.emplace(*name);
    } else if (inside_jinja(text, at)) {  // outside {{ }} and {% %} it is text (a comment, prose), no call
      return std::unexpected(name.error());
    }
  }
  return out;
}

bool looks_secret(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper.starts_with("DBT_ENV_SECRET")) return true;
  static const std::array<const char*, 6> kWords{"PASS", "TOKEN", "SECRET", "KEY", "CREDENTIAL", "PRIVATE"};
  return std::any_of(kWords.begin(), kWords.end(),
                     [&upper](const char* s) { return upper.find(s) != std::string::npos; });
}

const std::vector<std::string>& parse_variables() {
  static const std::vector<std::string> kNames{"DBT_PROFILES_DIR",
                                               "DBT_PROJECT_DIR",
                                               "DBT_TARGET",
                                               "DBT_PROFILE",
                                               "DBT_TARGET_PATH",
                                               "DBT_PARTIAL_PARSE",
                                               "DBT_PARTIAL_PARSE_FILE_DIFF",
                                               "DBT_STATIC_PARSER",
                                               "DBT_USE_EXPERIMENTAL_PARSER",
                                               "DBT_PACKAGES_INSTALL_PATH",
                                               "DBT_VERSION_CHECK",
                                               "DBT_STATE",
                                               "DBT_DEFER",
                                               "DBT_FAVOR_STATE",
                                               "DBT_SEND_ANONYMOUS_USAGE_STATS",
                                               "DBT_INVOCATION_ENV",
                                               "DBT_USE_V2_PARSER"};
  return kNames;
}

std::expected<std::string, std::string> parse_inputs_text(const ParseInputsQuery& q, ParseInputsDigest& digest) {
  if (q.profiles_file.empty()) return std::unexpected("no profiles.yml was found");
  if (q.profile.empty() || q.target.empty())
    return std::unexpected("the profile or target is not known before dbt runs");
  auto files = project_files(q);
  if (!files) return std::unexpected(files.error());
  auto profile = parse_inputs::read_profile_text(q.profiles_file);
  if (!profile) return std::unexpected(profile.error());
  auto dists = parse_inputs::read_distributions(q.python);
  if (!dists) return std::unexpected(dists.error());
  std::string text = "ods-parse-inputs/1\nproject " + q.project_dir.string() + "\n";
  std::set<std::string> names = profile->variables;
  if (auto r = digest_files(*files, text, names); !r) return std::unexpected(r.error());
  text += "profiles " + q.profiles_file.string() + " profile " + q.profile + " target " + q.target + "\n";
  text += profile->text;
  for (const auto& a : q.arguments) text += "arg " + a + "\n";
  text += "python " + q.python.string() + "\n" + dists->text;
  std::set<std::string> credential_only;
  for (const auto& name : profile->credential_variables)
    if (!names.contains(name)) credential_only.insert(name);
  auto variables = digest_variables(q, names, credential_only, text);
  if (!variables) return std::unexpected(variables.error());
  digest.files = files->files.size();
  digest.variables = *variables;
  digest.dbt_version = dists->dbt_version;
  return text;
}

std::expected<ParseInputsDigest, std::string> digest_parse_inputs(const ParseInputsQuery& query) {
  ParseInputsDigest out;
  auto text = parse_inputs_text(query, out);
  if (!text) return std::unexpected(text.error());
  out.digest = sha256_hex(*text);
  return out;
}

}  // namespace ods::dbt
