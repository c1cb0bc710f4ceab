// `sweep export-model` (a trial's network as ONNX) and `sweep predict` (the
// same network, run by nn/ on new rows): their flags and their work.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace sweep {

struct ModelCommands {
  CLI::App* export_cmd = nullptr;
  CLI::App* predict_cmd = nullptr;
  std::string db = "sweep.db";
  std::vector<std::string> trial;  // [STUDY] [TRIAL]
  std::string output;              // export: the .onnx file; predict: "" is stdout
  std::string input;               // predict: a CSV (or .npy) file
  std::string format = "csv";      // predict: csv | json
};

void AddModelCommands(CLI::App* app, ModelCommands* m);
// The exit status of the command that was parsed; -1 when neither was.
// export-model execs sweep-export-model, found beside `self_exe`.
int RunModelCommands(const std::string& self_exe, const ModelCommands& m);

}  // namespace sweep
