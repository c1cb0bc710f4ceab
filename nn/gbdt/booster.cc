// Trees on XGBoost through libsweep_nn_gbdt.so; see booster.h.
#include "nn/gbdt/booster.h"

#include <zlib.h>

#include <cmath>
#include <cstring>
#include <mutex>

#include "nn/byte_fields.h"
#include "nn/module_loader.h"

namespace sweep::nn {

namespace {

constexpr char kMagic[4] = {'S', 'W', 'G', 'B'};
constexpr uint32_t kVersion = 1;
constexpr size_t kErr = 512;
constexpr char kModule[] = "libsweep_nn_gbdt.so";

struct Entry {
  std::string error;  // why the module is not there, when it is not
  int (*make)(const char*, const float*, const float*, int64_t, int64_t, const float*, const float*,
              int64_t, void**, char*, size_t) = nullptr;
  void (*free)(void*) = nullptr;
  int (*boost)(void*, int, int, char*, size_t) = nullptr;
  int (*renew)(void*, char*, size_t) = nullptr;
  int (*rounds)(void*, int*, char*, size_t) = nullptr;
  int (*predict_set)(void*, int, const float**, uint64_t*, char*, size_t) = nullptr;
  int (*predict)(void*, const float*, int64_t, int64_t, const float**, uint64_t*, char*,
                 size_t) = nullptr;
  int (*save)(void*, int, const char**, uint64_t*, char*, size_t) = nullptr;
  int (*load)(void*, const char*, uint64_t, char*, size_t) = nullptr;
};

template <typename Fn>
bool Bind(void* handle, const char* name, Fn* fn, std::string* error) {
  return BindSymbol(handle, name, kModule, "gradient-boosted trees", fn, error);
}

// Looks in $SWEEP_GBDT_MODULE, beside the binary, in ../lib, where the build
// put it, then the library path (module_loader.h). Never closed.
const Entry& Module() {
  static Entry m;
  static std::once_flag once;
  std::call_once(once, [] {
    Result<void*> handle =
        OpenModule(kModule, "SWEEP_GBDT_MODULE", SWEEP_GBDT_MODULE_PATH, "gradient-boosted trees");
    if (!handle.ok()) {
      m.error = handle.status().message();
      return;
    }
    Entry e;
    if (Bind(*handle, "sweep_gbdt_new", &e.make, &m.error) &&
        Bind(*handle, "sweep_gbdt_free", &e.free, &m.error) &&
        Bind(*handle, "sweep_gbdt_boost", &e.boost, &m.error) &&
        Bind(*handle, "sweep_gbdt_renew", &e.renew, &m.error) &&
        Bind(*handle, "sweep_gbdt_rounds", &e.rounds, &m.error) &&
        Bind(*handle, "sweep_gbdt_predict_set", &e.predict_set, &m.error) &&
        Bind(*handle, "sweep_gbdt_predict", &e.predict, &m.error) &&
        Bind(*handle, "sweep_gbdt_save_as", &e.save, &m.error) &&
        Bind(*handle, "sweep_gbdt_load", &e.load, &m.error)) {
      m = e;
    }
  });
  return m;
}

Status Check(int rc, const char* err) { return rc == 0 ? Status::Ok() : Status::Internal(err); }

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// XGBoost's parameters for `c` on `data`, as "name=value" lines.
std::string Params(const TreeConfig& c, const Splits& data) {
  std::string p;
  auto add = [&](const std::string& k, const std::string& v) { p += k + "=" + v + "\n"; };
  if (data.problem == Problem::kRegression) {
    add("objective", "reg:squarederror");
    add("base_score", "0");  // the target is standardised
  } else if (data.classes == 2) {
    add("objective", "binary:logistic");
  } else {
    add("objective", "multi:softprob");
    add("num_class", std::to_string(data.classes));
  }
  add("tree_method", "hist");
  add("nthread", std::to_string(std::max(1, c.threads)));
  // Each round's sampling seeded by its number: a model resumed from a
  // checkpoint grows the trees an uninterrupted one would.
  add("seed", std::to_string(c.seed % 2147483647));
  add("seed_per_iteration", "true");
  add("eta", Number(c.eta));
  add("max_depth", std::to_string(c.max_depth));
  if (c.max_leaves > 0) add("max_leaves", std::to_string(c.max_leaves));
  add("min_child_weight", Number(c.min_child_weight));
  add("subsample", Number(c.subsample));
  add("colsample_bytree", Number(c.colsample_bytree));
  add("alpha", Number(c.reg_alpha));
  add("lambda", Number(c.reg_lambda));
  add("verbosity", "0");
  return p;
}

// The label of each row as XGBoost takes it.
std::vector<float> Labels(const Examples& e, Problem problem) {
  if (problem == Problem::kRegression) return e.targets;
  return std::vector<float>(e.labels.begin(), e.labels.end());
}

uint32_t Crc(const char* p, size_t n) {
  return static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(p), n));
}

}  // namespace

Booster::~Booster() {
  if (handle_) Module().free(handle_);
}

Status Booster::Make(const std::string& params, bool with_rows) {
  const Entry& m = Module();
  if (!m.error.empty()) return Status::FailedPrecondition(m.error);
  const Examples& train = data_->train;
  const Examples& val = data_->validation;
  std::vector<float> y, vy;
  if (with_rows) y = Labels(train, data_->problem), vy = Labels(val, data_->problem);
  char err[kErr] = "";
  return Check(m.make(params.c_str(), with_rows ? train.values.data() : nullptr, y.data(),
                      with_rows ? train.n : 0, columns_, val.values.data(), vy.data(),
                      with_rows && !val.values.empty() ? val.n : 0, &handle_, err, kErr),
               err);
}

Result<std::unique_ptr<Booster>> Booster::Train(const TreeConfig& config, const Splits& data) {
  if (data.train.values.empty() || data.train.n == 0)
    return Status::InvalidArgument(
        "model gbdt trains on tables (task.train.data: csv or npy rows of numbers), not images");
  std::unique_ptr<Booster> b(new Booster(data));
  b->columns_ = static_cast<int>(data.train.example_size());
  // Without sampling, nothing is drawn: the booster goes on as it is.
  b->samples_ = config.subsample < 1 || config.colsample_bytree < 1;
  RETURN_IF_ERROR(b->Make(Params(config, data), /*with_rows=*/true));
  return b;
}

Result<std::unique_ptr<Booster>> Booster::ForPrediction(const Splits& data) {
  std::unique_ptr<Booster> b(new Booster(data));
  b->columns_ = static_cast<int>(data.train.example_size());
  RETURN_IF_ERROR(b->Make(Params(TreeConfig(), data), /*with_rows=*/false));
  return b;
}

Status Booster::Boost(int count) {
  char err[kErr] = "";
  if (rounds_ > 0 && samples_) RETURN_IF_ERROR(Check(Module().renew(handle_, err, kErr), err));
  RETURN_IF_ERROR(Check(Module().boost(handle_, rounds_, count, err, kErr), err));
  rounds_ += count;
  return Status::Ok();
}

Result<std::string> Booster::Model(bool json) const {
  const char* model = nullptr;
  uint64_t len = 0;
  char err[kErr] = "";
  RETURN_IF_ERROR(Check(Module().save(handle_, json ? 1 : 0, &model, &len, err, kErr), err));
  return std::string(model, len);
}

Status Booster::LoadModel(const std::string& model) {
  char err[kErr] = "";
  return Check(Module().load(handle_, model.data(), model.size(), err, kErr), err);
}

Result<std::vector<float>> Booster::Outputs(const float* p, uint64_t len, int rows) const {
  const int k = data_->outputs();
  std::vector<float> out(static_cast<size_t>(rows) * k);
  if (data_->problem == Problem::kClassification && k == 2 && len == static_cast<uint64_t>(rows)) {
    for (int i = 0; i < rows; ++i) out[2 * i] = 1 - p[i], out[2 * i + 1] = p[i];
    return out;
  }
  if (len != out.size())
    return Status::Internal("XGBoost returned " + std::to_string(len) + " predictions for " +
                            std::to_string(rows) + " rows of " + std::to_string(k) + " outputs");
  std::memcpy(out.data(), p, out.size() * sizeof(float));
  return out;
}

Result<std::vector<float>> Booster::PredictSet(bool validation) {
  const Examples& set = validation ? data_->validation : data_->train;
  if (set.n == 0 || set.values.empty()) return std::vector<float>();
  const float* p = nullptr;
  uint64_t len = 0;
  char err[kErr] = "";
  RETURN_IF_ERROR(
      Check(Module().predict_set(handle_, validation ? 1 : 0, &p, &len, err, kErr), err));
  return Outputs(p, len, set.n);
}

Result<std::vector<float>> Booster::Predict(const std::vector<float>& x, int rows) {
  if (rows == 0) return std::vector<float>();
  if (x.size() != static_cast<size_t>(rows) * columns_)
    return Status::InvalidArgument("rows of " + std::to_string(x.size() / std::max(rows, 1)) +
                                   " values for a model of " + std::to_string(columns_));
  const float* p = nullptr;
  uint64_t len = 0;
  char err[kErr] = "";
  RETURN_IF_ERROR(
      Check(Module().predict(handle_, x.data(), rows, columns_, &p, &len, err, kErr), err));
  return Outputs(p, len, rows);
}

Result<std::string> Booster::SaveCheckpoint() const {
  ASSIGN_OR_RETURN(std::string model, Model());
  std::string out(kMagic, 4);
  PutField(&out, kVersion);
  PutField(&out, data_->fingerprint);
  PutField(&out, static_cast<int64_t>(rounds_));
  PutField(&out, static_cast<uint64_t>(model.size()));
  out += model;
  PutField(&out, Crc(out.data(), out.size()));
  return out;
}

bool Booster::IsCheckpoint(const std::string& bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), kMagic, 4) == 0;
}

Status Booster::LoadCheckpoint(const std::string& in) {
  if (!IsCheckpoint(in) || in.size() < 8)
    return Status::Corruption("checkpoint: not a tree model's checkpoint");
  uint32_t stored;
  std::memcpy(&stored, in.data() + in.size() - 4, 4);
  if (Crc(in.data(), in.size() - 4) != stored)
    return Status::Corruption("checkpoint: checksum mismatch (the file is corrupt)");
  size_t pos = 4;
  uint32_t version = 0;
  uint64_t fingerprint = 0, len = 0;
  int64_t rounds = 0;
  if (!GetField(in, &pos, &version) || version != kVersion)
    return Status::FailedPrecondition("checkpoint: tree format version " + std::to_string(version) +
                                      " is not supported (expected " + std::to_string(kVersion) +
                                      ")");
  if (!GetField(in, &pos, &fingerprint) || !GetField(in, &pos, &rounds) ||
      !GetField(in, &pos, &len))
    return Status::Corruption("checkpoint: truncated header");
  if (fingerprint && data_->fingerprint && fingerprint != data_->fingerprint)
    return Status::FailedPrecondition(
        "checkpoint: written for other data than this trial's (the data files, or how they are "
        "read, changed since it trained)");
  // pos is within the bytes before the CRC (the header did not reach into it).
  if (rounds < 0 || rounds > (1 << 30) || pos > in.size() - 4 || len != in.size() - 4 - pos)
    return Status::Corruption("checkpoint: an impossible round count or model size");
  RETURN_IF_ERROR(LoadModel(in.substr(pos, len)));
  int boosted = 0;
  char err[kErr] = "";
  RETURN_IF_ERROR(Check(Module().rounds(handle_, &boosted, err, kErr), err));
  if (boosted != rounds)
    return Status::Corruption("checkpoint: says " + std::to_string(rounds) +
                              " rounds, and its model has " + std::to_string(boosted));
  rounds_ = static_cast<int>(rounds);
  return Status::Ok();
}

}  // namespace sweep::nn
