// Entry point of the `tscope` command (the command itself is tscope_main).

#include "exit_codes.h"
#include "tscope_main.h"

int main(int argc, char** argv) {
  tscope::cli::install_crash_handlers();
  return tscope::cli::tscope_main(argc, argv);
}
