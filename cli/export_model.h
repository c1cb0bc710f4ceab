// `sweep export-model`'s work: a trial's model (network or trees) as an ONNX file. It
// runs in its own binary, sweep-export-model (export_model_main.cc), so that
// only it loads Debian's ONNX libraries: they cost every other sweep
// process (the tuner, each runner) about 6 ms of CPU at start.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace sweep {

// Writes the model of `trial` ([STUDY] [TRIAL]; empty: the best completed
// trial) of database `db` to `output`, whole or not at all.
Status ExportModel(const std::string& db, const std::vector<std::string>& trial,
                   const std::string& output);

}  // namespace sweep
