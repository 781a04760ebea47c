#include "cli/commands.hpp"

int main(int argc, char** argv) {
  return sparse::cli::Main(argc, argv);
}
