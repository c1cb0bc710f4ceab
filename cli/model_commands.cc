// `sweep export-model` (a trial's network as ONNX) and `sweep predict` (the
// same network, run by nn/ on new rows): their flags and their work.
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/trial_model.h"
#include "common/posix_error.h"
#include "nn/data/data_source.h"
#include "nn/data/npy_data.h"

namespace sweep {

namespace {

// What both commands take.
struct ModelArgs {
  std::string db = "sweep.db";
  std::vector<std::string> trial;  // [STUDY] [TRIAL]
  std::string output;              // export: the .onnx file; predict: "" is stdout
  std::string input;               // predict: a CSV (or .npy) file
  std::string format = "csv";      // predict: csv | json
};

// --db and [STUDY] [TRIAL].
CLI::App* AddModelCommand(CLI::App* app, const char* name, const char* help, ModelArgs* m) {
  CLI::App* c = app->add_subcommand(name, help);
  AddDbOption(c, &m->db);
  c->add_option("trial", m->trial,
                "[STUDY] [TRIAL]: the trial's number (default: the best completed one)")
      ->expected(0, 2);
  return c;
}

// In its own binary, beside this one (cli/export_model.h says why).
int Export(const std::string& self_exe, const ModelArgs& m) {
  std::string helper = self_exe.substr(0, self_exe.rfind('/') + 1) + "sweep-export-model";
  std::vector<const char*> argv = {helper.c_str(), m.db.c_str(), m.output.c_str()};
  for (const auto& t : m.trial) argv.push_back(t.c_str());
  argv.push_back(nullptr);
  fflush(stdout);
  execv(helper.c_str(), const_cast<char* const*>(argv.data()));
  return Error(PosixError("cannot start " + helper, errno, "it is built and installed beside sweep")
                   .message());
}

// The rows to predict, prepared as the training data was.
Result<nn::Examples> Inputs(const TrialModel& t, const std::string& path) {
  const nn::Splits& d = t.data;
  if (d.table) {
    const pb::CsvData& c = t.study.task().train().data().csv();
    const nn::CsvOptions co = nn::CsvOptionsOf(c);
    ASSIGN_OR_RETURN(nn::CsvTable table, nn::ReadCsv(path, co));
    nn::TableOptions to = nn::TableOptionsOf(c, d.problem);
    to.labels = false;
    if (!co.header) RETURN_IF_ERROR(nn::NameHeaderlessRows(*d.table, to, &table));
    return nn::EncodeTable(table, *d.table, to);
  }
  ASSIGN_OR_RETURN(nn::NpyArray x, nn::ReadNpy(path));
  ASSIGN_OR_RETURN(nn::Examples e, nn::NpyFeatures(x));
  if (e.c != d.train.c || e.h != d.train.h || e.w != d.train.w) {
    return Status::InvalidArgument(path + ": its examples are shaped unlike the training data's");
  }
  if (!d.train.pixels.empty() && e.pixels.empty())
    return Status::InvalidArgument(path + ": the model was trained on uint8 images; give uint8");
  const size_t per = d.input_mean.size();
  for (size_t i = 0; i < e.values.size() && per; ++i)
    e.values[i] = (e.values[i] - d.input_mean[i % per]) * d.input_scale[i % per];
  return e;
}

Status Predict(const ModelArgs& m) {
  ASSIGN_OR_RETURN(std::unique_ptr<TrialModel> t, LoadTrialModel(m.db, m.trial));
  ASSIGN_OR_RETURN(nn::Examples x, Inputs(*t, m.input));
  const nn::Splits& d = t->data;
  const bool regression = d.problem == nn::Problem::kRegression;
  std::vector<std::string> columns = {"prediction"};
  if (!regression)
    for (const auto& c : d.class_names) columns.push_back("p_" + c);
  const Format f = m.format == "json" ? Format::kJson : Format::kCsv;
  FILE* out = m.output.empty() ? stdout : fopen(m.output.c_str(), "w");
  if (!out) return Status::IOError(m.output + ": cannot write");
  auto put = [&](const std::string& s) { fwrite(s.data(), 1, s.size(), out); };
  put(StreamHead(columns, f));
  const int k = d.outputs();
  bool first = true;
  // One row per example from its outputs: a network's logits (softmax
  // here), or the trees' probabilities.
  auto put_rows = [&](const std::vector<float>& outputs, int n, bool logits) {
    for (int i = 0; i < n; ++i) {
      const float* z = outputs.data() + static_cast<size_t>(i) * k;
      std::vector<Cell> row;
      if (regression) {
        // In float, as the exported model computes it.
        row.push_back(static_cast<double>(z[0] * static_cast<float>(d.target_stddev) +
                                          static_cast<float>(d.target_mean)));
      } else {
        int arg = 0;
        for (int j = 1; j < k; ++j)
          if (z[j] > z[arg]) arg = j;
        row.push_back(d.class_names[static_cast<size_t>(arg)]);
        double sum = 0;
        for (int j = 0; j < k && logits; ++j) sum += std::exp(static_cast<double>(z[j] - z[arg]));
        for (int j = 0; j < k; ++j)
          row.push_back(logits
                            ? static_cast<double>(static_cast<float>(std::exp(z[j] - z[arg]) / sum))
                            : static_cast<double>(z[j]));
      }
      put(StreamRow(columns, row, f, first));
      first = false;
    }
  };
  if (t->trees) {
    ASSIGN_OR_RETURN(std::vector<float> p, t->trees->Predict(x.values, x.n));
    put_rows(p, x.n, /*logits=*/false);
  } else {
    nn::Model& model = t->trainer->model();
    nn::Tensor batch;
    std::vector<float> host, outputs;
    std::vector<int32_t> order(static_cast<size_t>(x.n)), labels(500);
    for (int i = 0; i < x.n; ++i) order[static_cast<size_t>(i)] = i;
    for (int begin = 0; begin < x.n; begin += 500) {
      const int n = std::min(500, x.n - begin);
      host.resize(static_cast<size_t>(n) * x.example_size());
      nn::MakeBatch(x, order, static_cast<size_t>(begin), static_cast<size_t>(n), d.mean, d.stddev,
                    nn::Augment::kNone, 0, 0, host.data(), labels.data());
      batch.Resize(t->backend.get(), {n, x.c, x.h, x.w});
      batch.FromHost(host);
      model.Forward(batch, false, 0);
      model.Outputs(&outputs);
      put_rows(outputs, n, /*logits=*/true);
    }
  }
  put(StreamEnd(f));
  bool ok = fflush(out) == 0 && !ferror(out);
  if (out != stdout) ok = fclose(out) == 0 && ok;
  if (!ok) return Status::IOError("could not write the predictions (a full disk?)");
  return Status::Ok();
}

class ExportModelCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    CLI::App* c =
        AddModelCommand(app, "export-model",
                        "Write a trial's model as an ONNX model (default: the best trial)", &m_);
    c->add_option("-o,--output", m_.output, "The .onnx file to write")->required();
    return c;
  }
  int Run(const CommandContext& context) override { return Export(context.self_exe, m_); }

 private:
  ModelArgs m_;
};

class PredictCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    CLI::App* c = AddModelCommand(
        app, "predict", "Run a trial's model on new rows (a CSV table, or a .npy array)", &m_);
    c->add_option("--input", m_.input,
                  "Rows to predict: CSV like the training file's, "
                  "or a .npy array")
        ->required();
    AddFormatOption(c, &m_.format, {"csv", "json"})->capture_default_str();
    c->add_option("-o,--output", m_.output, "Write here instead of stdout");
    return c;
  }
  int Run(const CommandContext&) override {
    Status st = Predict(m_);
    return st.ok() ? 0 : Fail(st);
  }

 private:
  ModelArgs m_;
};

}  // namespace

std::unique_ptr<Command> NewExportModelCommand() { return std::make_unique<ExportModelCommand>(); }
std::unique_ptr<Command> NewPredictCommand() { return std::make_unique<PredictCommand>(); }

}  // namespace sweep
