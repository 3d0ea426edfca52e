// cudyn-check: the compat-check CLI. See tools/README.md.
#include <iostream>
#include <string>
#include <vector>

#include "tools/check.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int rc = cudyn::check::RunCheck(args, std::cout, std::cerr);
  std::cout.flush();
  return rc;
}
