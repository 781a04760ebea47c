// sparse-guard: the small process each `sparse run` starts to kill what the run started once
// the runtime dies, however it dies (see run_guard.hpp and run_sweep.hpp).
#include "cli/run_sweep.hpp"

int main(int argc, char** argv) {
  return sparse::cli::GuardMain(argc, argv);
}
