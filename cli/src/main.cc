// The `ods` executable: hands argv to the CLI component.
#include <exception>
#include <iostream>

#include "commands.h"

int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    ods::cli::hide_secret_arguments(argc, argv);  // the copies above are ODS's; dbt can read argv
    ods::cli::Environment env = ods::cli::process_environment();
    env.exits_after_command = true;
    return ods::cli::run_cli(args, std::cout, std::cerr, std::move(env));
  } catch (const std::exception& e) {
    std::cerr << "ods: internal error: " << e.what() << "\n";
    return 1;
  }
}
