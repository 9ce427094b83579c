#include "harness/secret_probes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ods::testing {
namespace {

constexpr const char* kPythonFile = "secret_probe_python.env";
constexpr const char* kHookFile = "secret_probe_hook.csv";
constexpr const char* kMountsFile = "secret_probe_mounts.txt";
constexpr const char* kProcesses = "process 0 pid ";

// The Python model: its environment, the files its variables name, every process from its own up
// to PID 1 (environ and cmdline), and the mount paths read at their paths.
const char* const kPythonModel = R"py(import os


def proc_text(pid, what):
    try:
        with open("/proc/%d/%s" % (pid, what), "rb") as f:
            return f.read().replace(b"\0", b" ").replace(b"\n", b" ").decode("utf-8", "replace")
    except OSError as e:
        return "unreadable: " + str(e)


def parent_of(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def files_under(path):
    if os.path.isfile(path):
        return [path]
    return [os.path.join(d, f) for d, _, files in sorted(os.walk(path)) for f in sorted(files)]


def model(dbt, session):
    dbt.config(materialized="table")
    seen = {name: os.environ.get(name, "absent") for name in @NAMES@}
    with open(@ENV_FILE@, "w") as out:
        for name, value in sorted(os.environ.items()):
            out.write(name + "=" + value + "\n")
        for name, value in seen.items():  # a variable naming a file or a folder: its contents
            for path in files_under(value) if os.path.exists(value) else []:
                with open(path, errors="replace") as f:
                    out.write(name + " -> " + path + ": " + f.read() + "\n")
        pid, n = os.getpid(), 0
        while pid > 0:  # this process and every ancestor: what each was started with
            try:
                exe = os.readlink("/proc/%d/exe" % pid)
            except OSError:
                exe = "unreadable"
            for what in ("environ", "cmdline"):
                out.write("process %d pid %d exe %s %s: %s\n" % (n, pid, exe, what, proc_text(pid, what)))
            pid, n = parent_of(pid), n + 1
    with open(@MOUNTS_FILE@, "w") as out:
        for mount in @MOUNTS@:
            for path in files_under(mount):
                try:
                    with open(path, errors="replace") as f:
                        out.write(path + ": " + f.read() + "\n")
                except OSError as e:
                    out.write(path + ": unreadable: " + str(e) + "\n")
    print("secret probe (python): " + " ".join(k + "=" + v for k, v in seen.items()), flush=True)
    columns = ", ".join("'" + v.replace("'", "''") + "' as c" + str(i) for i, v in enumerate(seen.values()))
    return session.sql("select " + columns)
)py";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

std::string python_model(const std::vector<std::string>& names, const std::filesystem::path& env_file,
                         const std::vector<std::filesystem::path>& mounts, const std::filesystem::path& mounts_file) {
  nlohmann::json mount_list = nlohmann::json::array();
  for (const auto& m : mounts) mount_list.push_back(m.string());
  std::string text = replaced(kPythonModel, "@NAMES@", nlohmann::json(names).dump());
  text = replaced(text, "@ENV_FILE@", nlohmann::json(env_file.string()).dump());
  text = replaced(text, "@MOUNTS_FILE@", nlohmann::json(mounts_file.string()).dump());
  return replaced(text, "@MOUNTS@", mount_list.dump());
}

// The line of `text` at `at`.
std::string line_at(const std::string& text, std::size_t at) { return text.substr(at, text.find('\n', at) - at); }

// Where, in the environment file's `text`, the first `ods` process's entries end (npos: none).
std::size_t end_of_ods_entries(const std::string& text) {
  for (std::size_t at = text.find(kProcesses); at != std::string::npos; at = text.find("\nprocess ", at + 1)) {
    if (text[at] == '\n') ++at;
    const std::string line = line_at(text, at);
    const auto exe = line.find(" exe ");
    const auto what = line.find(" cmdline: ");
    if (exe == std::string::npos || what == std::string::npos) continue;
    if (std::filesystem::path(line.substr(exe + 5, what - exe - 5)).filename() == "ods")
      return std::min(text.size(), text.find('\n', at) + 1);
  }
  return std::string::npos;
}

std::vector<std::string> with_marker(std::vector<std::string> names) {
  names.emplace_back(kProbeMarkerVariable);
  return names;
}

std::string jinja_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (const auto& n : names) out += (out.size() > 1 ? ", '" : "'") + n + "'";
  return out + "]";
}

}  // namespace

void plant_secret_probes(const DbtProject& p, const std::vector<std::string>& secret_names,
                         const std::vector<std::filesystem::path>& mounts) {
  const std::vector<std::string> names = with_marker(secret_names);
  p.write("macros/secret_probes.sql",
          "{% macro secret_probe_values() -%}\n"
          "  {%- set out = [] -%}\n"
          "  {%- for name in " +
              jinja_list(names) +
              " -%}\n"
              "    {%- do out.append(name ~ '=' ~ env_var(name, 'absent')) -%}\n"
              "  {%- endfor -%}\n"
              "  {{- return(out | join(' ')) -}}\n"
              "{%- endmacro %}\n"
              "{% macro secret_probe_log(where) %}\n"
              "  {% do log('secret probe (' ~ where ~ '): ' ~ secret_probe_values(), info=True) %}\n"
              "{% endmacro %}\n"
              "{% macro secret_probe_write_file(path) %}\n"
              "  {% if execute %}\n"
              "    {% do run_query(\"copy (select '\" ~ secret_probe_values() ~ \"' as v) to '\" ~ path ~ \"' "
              "(header false)\") %}\n"
              "  {% endif %}\n"
              "{% endmacro %}\n");
  std::string sql =
      "{{ config(materialized='table', post_hook=[\n"
      "  \"{{ log('secret probe (literal hook): ' ~ env_var('" +
      secret_names.front() +
      "', 'absent'), info=True) }}\",\n"
      "  \"{{ secret_probe_write_file('" +
      (p.dir() / kHookFile).string() +
      "') }}\"]) }}\n"
      "{{ secret_probe_log('model') }}\n"
      "select '{{ secret_probe_values() }}' as through_macro";
  for (std::size_t i = 0; i < names.size(); ++i) {
    sql += ",\n  '{{ env_var(\"" + names[i] + "\", \"absent\") }}' as direct_" + std::to_string(i);
  }
  p.write("models/marts/secret_probe_sql.sql", sql + "\n");
  p.write("models/marts/secret_probe_python.py",
          python_model(names, p.dir() / kPythonFile, mounts, p.dir() / kMountsFile));
}

std::filesystem::path secret_probe_environment_file(const DbtProject& p) { return p.dir() / kPythonFile; }
std::filesystem::path secret_probe_mounts_file(const DbtProject& p) { return p.dir() / kMountsFile; }

std::string secret_probe_own_environment(const DbtProject& p) {
  const std::string text = read_text_file(secret_probe_environment_file(p));
  return text.substr(0, text.find(kProcesses));
}

std::string secret_probe_environment_through_ods(const DbtProject& p) {
  const std::string text = read_text_file(secret_probe_environment_file(p));
  return text.substr(0, end_of_ods_entries(text));
}

void expect_secret_probes_ran(const DbtProject& p) {
  const std::string marker = std::string(kProbeMarkerVariable) + "=visible";
  for (const char* file : {kPythonFile, kHookFile}) {
    const std::string text = read_text_file(p.dir() / file);
    EXPECT_NE(text.find(marker), std::string::npos)
        << file << " does not hold " << marker << ": the probe did not run, or dbt lost the user's environment";
  }
  // The Python model walked up to ods and read its /proc environ (ods's own environment: the
  // marker is in it).
  const std::string python = read_text_file(p.dir() / kPythonFile);
  const std::size_t end = end_of_ods_entries(python);
  ASSERT_NE(end, std::string::npos) << "the Python model's walk up its processes found no ods:\n"
                                    << python.substr(
                                           python.find(kProcesses) == std::string::npos ? 0 : python.find(kProcesses));
  const std::size_t cmdline = python.rfind("\nprocess ", end - 2);
  const std::size_t environ = python.rfind("\nprocess ", cmdline - 1);
  ASSERT_NE(environ, std::string::npos);
  EXPECT_NE(line_at(python, environ + 1).find(marker), std::string::npos)
      << "the Python model could not read ods's environment: " << line_at(python, environ + 1).substr(0, 300);
  EXPECT_TRUE(std::filesystem::exists(p.dir() / kMountsFile)) << "the Python model did not read the mount paths";
}

RunPlaces::RunPlaces(DbtProject& p) {
  std::filesystem::create_directories(root_.path() / "home");
  std::filesystem::create_directories(root_.path() / "tmp");
  p.add_env({"HOME=" + (root_.path() / "home").string(), "TMPDIR=" + (root_.path() / "tmp").string()});
}

}  // namespace ods::testing
