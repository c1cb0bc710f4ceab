// A trial's model (a network or trees) as an ONNX file (see export_model.h).
#include "cli/export_model.h"

#include <cstdio>
#include <fstream>
#include <memory>

#include "cli/format.h"
#include "cli/trial_model.h"
#include "nn/export/onnx_model.h"
#include "nn/export/onnx_trees.h"

namespace sweep {

Status ExportModel(const std::string& db, const std::vector<std::string>& trial,
                   const std::string& output) {
  ASSIGN_OR_RETURN(std::unique_ptr<TrialModel> t, LoadTrialModel(db, trial));
  const std::string name = t->ref.study.name + "-trial-" + std::to_string(t->ref.number);
  std::string bytes;
  if (t->trees) {
    ASSIGN_OR_RETURN(std::string json, t->trees->ModelJson());
    const pb::TrainData& data = t->study.task().train().data();
    ASSIGN_OR_RETURN(bytes,
                     nn::ExportTreesOnnx(json, t->data, data.csv().missing() == "native", name));
  } else {
    ASSIGN_OR_RETURN(bytes, nn::ExportOnnx(t->trainer->model(), t->data, name));
  }
  // Written beside the target, then renamed: never half a model file.
  const std::string tmp = output + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return Status::IOError(output + ": cannot write the model (a full disk?)");
    }
  }
  if (std::rename(tmp.c_str(), output.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::IOError(output + ": cannot write the model");
  }
  fprintf(stderr, "wrote %s: trial %lld of study '%s' at %s %lld (%zu bytes, ONNX opset 17)\n",
          EscapeControl(output).c_str(), static_cast<long long>(t->ref.number),
          EscapeControl(t->ref.study.name).c_str(), t->trees ? "step" : "epoch",
          static_cast<long long>(t->step), bytes.size());
  return Status::Ok();
}

}  // namespace sweep
