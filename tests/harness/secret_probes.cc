#include "harness/secret_probes.h"

#include <gtest/gtest.h>

namespace ods::testing {
namespace {

constexpr const char* kPythonFile = "secret_probe_python.env";
constexpr const char* kHookFile = "secret_probe_hook.csv";

std::vector<std::string> with_marker(std::vector<std::string> names) {
  names.emplace_back(kProbeMarkerVariable);
  return names;
}

std::string jinja_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (const auto& n : names) out += (out.size() > 1 ? ", '" : "'") + n + "'";
  return out + "]";
}

std::string python_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (const auto& n : names) out += (out.size() > 1 ? ", \"" : "\"") + n + "\"";
  return out + "]";
}

}  // namespace

void plant_secret_probes(const DbtProject& p, const std::vector<std::string>& secret_names) {
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
  p.write(
      "models/marts/secret_probe_python.py",
      "import os\n\n\n"
      "def model(dbt, session):\n"
      "    dbt.config(materialized=\"table\")\n"
      "    seen = {name: os.environ.get(name, \"absent\") for name in " +
          python_list(names) +
          "}\n"
          "    with open(\"" +
          (p.dir() / kPythonFile).string() +
          "\", \"w\") as out:\n"
          "        for name, value in sorted(os.environ.items()):\n"
          "            out.write(name + \"=\" + value + \"\\n\")\n"
          "        for name, value in seen.items():  # a variable naming a file or a folder: its contents\n"
          "            paths = [value] if os.path.isfile(value) else (\n"
          "                [os.path.join(value, f) for f in sorted(os.listdir(value))] if os.path.isdir(value) else "
          "[])\n"
          "            for path in paths:\n"
          "                if os.path.isfile(path):\n"
          "                    with open(path, errors=\"replace\") as f:\n"
          "                        out.write(name + \" -> \" + path + \": \" + f.read() + \"\\n\")\n"
          "        for what in (\"environ\", \"cmdline\"):  # what the parent (ods) was started with\n"
          "            try:\n"
          "                with open(\"/proc/%d/%s\" % (os.getppid(), what), \"rb\") as f:\n"
          "                    text = f.read().replace(b\"\\0\", b\" \").replace(b\"\\n\", b\" \")\n"
          "                    text = text.decode(\"utf-8\", \"replace\")\n"
          "            except OSError as e:\n"
          "                text = \"unreadable: \" + str(e)\n"
          "            out.write(\"parent \" + what + \": \" + text + \"\\n\")\n"
          "    print(\"secret probe (python): \" + \" \".join(k + \"=\" + v for k, v in seen.items()), flush=True)\n"
          "    columns = \", \".join(\"'\" + v.replace(\"'\", \"''\") + \"' as c\" + str(i)\n"
          "                        for i, v in enumerate(seen.values()))\n"
          "    return session.sql(\"select \" + columns)\n");
}

std::filesystem::path secret_probe_environment_file(const DbtProject& p) { return p.dir() / kPythonFile; }

void expect_secret_probes_ran(const DbtProject& p) {
  const std::string marker = std::string(kProbeMarkerVariable) + "=visible";
  for (const char* file : {kPythonFile, kHookFile}) {
    const std::string text = read_text_file(p.dir() / file);
    EXPECT_NE(text.find(marker), std::string::npos)
        << file << " does not hold " << marker << ": the probe did not run, or dbt lost the user's environment";
  }
  // The Python model read its parent's /proc environ (ods's own environment: the marker is in it).
  const std::string python = read_text_file(p.dir() / kPythonFile);
  const auto parent = python.find("parent environ: ");
  ASSERT_NE(parent, std::string::npos) << kPythonFile;
  const std::string line = python.substr(parent, python.find('\n', parent) - parent);
  EXPECT_NE(line.find(marker), std::string::npos) << "the Python model could not read its parent's environment";
}

}  // namespace ods::testing
