// sweep-export-model DB OUTPUT [STUDY] [TRIAL]: what `sweep export-model`
// execs (see export_model.h for why it is a binary of its own). Not meant to
// be run by hand: `sweep export-model` checks the flags.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/export_model.h"
#include "cli/format.h"

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    fprintf(stderr,
            "usage: sweep-export-model DB OUTPUT [STUDY] [TRIAL] (run `sweep export-model`)\n");
    return 2;
  }
  std::vector<std::string> trial(argv + 3, argv + argc);
  sweep::Status st = sweep::ExportModel(argv[1], trial, argv[2]);
  if (st.ok()) return 0;
  fprintf(stderr, "sweep: %s\n",
          sweep::EscapeControl(st.message(), /*keep_newlines=*/true).c_str());
  return 1;
}
