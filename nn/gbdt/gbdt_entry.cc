// The C entry points of libsweep_nn_gbdt.so, the module that holds
// gradient-boosted trees on XGBoost's C API (booster.h opens it the first
// time a process trains or reads a tree model, so no other process loads
// XGBoost). Errors come back as text in `err`, never as exceptions across
// the module's edge. Buffers handed out are XGBoost's, valid until the next
// call on the same booster.
#include <xgboost/c_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include "nn/module_entry.h"

namespace {

struct Gbdt {
  std::string params;  // set again after a model is loaded, which replaces them
  BoosterHandle booster = nullptr;
  DMatrixHandle sets[2] = {nullptr, nullptr};  // train, validation (either may be absent)
};

// XGBoost's last error as the result of a failed call.
int Failed(const char* what, char* err, size_t n) {
  std::snprintf(err, n, "XGBoost: %s: %s", what, XGBGetLastError());
  return 1;
}

int Matrix(const float* x, const float* y, int64_t rows, int64_t cols, DMatrixHandle* out,
           char* err, size_t n) {
  if (XGDMatrixCreateFromMat(x, static_cast<bst_ulong>(rows), static_cast<bst_ulong>(cols), NAN,
                             out) != 0)
    return Failed("making a matrix", err, n);
  if (y && XGDMatrixSetFloatInfo(*out, "label", y, static_cast<bst_ulong>(rows)) != 0)
    return Failed("setting labels", err, n);
  return 0;
}

// `params`: "name=value" lines, set in order.
int SetParams(BoosterHandle b, const char* params, char* err, size_t n) {
  std::string all = params ? params : "";
  size_t at = 0;
  while (at < all.size()) {
    size_t end = all.find('\n', at);
    if (end == std::string::npos) end = all.size();
    std::string line = all.substr(at, end - at);
    at = end + 1;
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    if (XGBoosterSetParam(b, line.substr(0, eq).c_str(), line.substr(eq + 1).c_str()) != 0)
      return Failed(("parameter " + line).c_str(), err, n);
  }
  return 0;
}

}  // namespace

#define SWEEP_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// Runs an entry point's body: an exception (out of memory) comes back as
// text, never as a throw across the edge.
template <typename F>
int Guarded(char* err, size_t n, F&& f) {
  return sweep::nn::GuardedEntry("gradient-boosted trees", err, n, f);
}

}  // namespace

// A booster on `rows` training rows (x row-major, y labels) and `val_rows`
// validation rows, whose predictions XGBoost keeps up to date as it boosts;
// rows == 0: a booster for a model loaded later.
static int Gbdt_new(const char* params, const float* x, const float* y, int64_t rows, int64_t cols,
                    const float* vx, const float* vy, int64_t val_rows, void** out, char* err,
                    size_t n) {
  auto* g = new Gbdt();
  int count = 0;
  int rc = 0;
  if (rows > 0) rc = Matrix(x, y, rows, cols, &g->sets[count++], err, n);
  if (rc == 0 && rows > 0 && val_rows > 0)
    rc = Matrix(vx, vy, val_rows, cols, &g->sets[count++], err, n);
  if (rc == 0 && XGBoosterCreate(g->sets, static_cast<bst_ulong>(count), &g->booster) != 0)
    rc = Failed("making a booster", err, n);
  if (rc == 0) {
    g->params = params ? params : "";
    rc = SetParams(g->booster, params, err, n);
  }
  if (rc != 0) {
    if (g->booster) XGBoosterFree(g->booster);
    for (DMatrixHandle m : g->sets)
      if (m) XGDMatrixFree(m);
    delete g;
    return rc;
  }
  *out = g;
  return 0;
}

SWEEP_EXPORT void sweep_gbdt_free(void* p) {
  auto* g = static_cast<Gbdt*>(p);
  if (!g) return;
  XGBoosterFree(g->booster);
  for (DMatrixHandle m : g->sets)
    if (m) XGDMatrixFree(m);
  delete g;
}

// A new booster in place of the old, with its model and parameters, on the
// same matrices (their histogram cuts are kept): XGBoost seeds its column
// sampling once per booster, so a trial that starts each step afresh grows
// the trees a trial resumed from a checkpoint grows.
static int Gbdt_renew(void* p, char* err, size_t n) {
  auto* g = static_cast<Gbdt*>(p);
  bst_ulong size = 0;
  const char* bytes = nullptr;
  if (XGBoosterSaveModelToBuffer(g->booster, "{\"format\": \"ubj\"}", &size, &bytes) != 0)
    return Failed("saving the model", err, n);
  const std::string model(bytes, size);
  BoosterHandle fresh = nullptr;
  const bst_ulong count = (g->sets[0] ? 1 : 0) + (g->sets[1] ? 1 : 0);
  if (XGBoosterCreate(g->sets, count, &fresh) != 0) return Failed("making a booster", err, n);
  if (XGBoosterLoadModelFromBuffer(fresh, model.data(), size) != 0) {
    XGBoosterFree(fresh);
    return Failed("loading the model", err, n);
  }
  XGBoosterFree(g->booster);
  g->booster = fresh;
  return SetParams(g->booster, g->params.c_str(), err, n);
}

// Boosts rounds [first, first + count) on the training rows.
static int Gbdt_boost(void* p, int first, int count, char* err, size_t n) {
  auto* g = static_cast<Gbdt*>(p);
  for (int i = first; i < first + count; ++i)
    if (XGBoosterUpdateOneIter(g->booster, i, g->sets[0]) != 0) return Failed("boosting", err, n);
  return 0;
}

static int Gbdt_rounds(void* p, int* out, char* err, size_t n) {
  if (XGBoosterBoostedRounds(static_cast<Gbdt*>(p)->booster, out) != 0)
    return Failed("counting rounds", err, n);
  return 0;
}

namespace {

const char kPredict[] =
    "{\"type\": 0, \"training\": false, \"iteration_begin\": 0, \"iteration_end\": 0, "
    "\"strict_shape\": false}";

int Predicted(int rc, bst_ulong const* shape, bst_ulong dim, const float* result, const float** out,
              uint64_t* len, char* err, size_t n) {
  if (rc != 0) return Failed("predicting", err, n);
  uint64_t total = 1;
  for (bst_ulong i = 0; i < dim; ++i) total *= shape[i];
  *out = result;
  *len = total;
  return 0;
}

}  // namespace

// Predictions for the training (set 0) or validation (set 1) rows, from
// XGBoost's cache: probabilities (a row's classes, or class 1's for two) or
// values.
static int Gbdt_predict_set(void* p, int set, const float** out, uint64_t* len, char* err,
                            size_t n) {
  auto* g = static_cast<Gbdt*>(p);
  bst_ulong const* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  int rc = XGBoosterPredictFromDMatrix(g->booster, g->sets[set], kPredict, &shape, &dim, &result);
  return Predicted(rc, shape, dim, result, out, len, err, n);
}

// Predictions for other rows (x row-major, NaN for a missing value).
static int Gbdt_predict(void* p, const float* x, int64_t rows, int64_t cols, const float** out,
                        uint64_t* len, char* err, size_t n) {
  auto* g = static_cast<Gbdt*>(p);
  DMatrixHandle m = nullptr;
  if (Matrix(x, nullptr, rows, cols, &m, err, n) != 0) return 1;
  bst_ulong const* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  int rc = XGBoosterPredictFromDMatrix(g->booster, m, kPredict, &shape, &dim, &result);
  rc = Predicted(rc, shape, dim, result, out, len, err, n);
  XGDMatrixFree(m);
  return rc;
}

// The model in XGBoost's own binary JSON (UBJSON), or in JSON text
// (`json`: the ONNX export reads it), with its parameters.
static int Gbdt_save(void* p, int json, const char** out, uint64_t* len, char* err, size_t n) {
  bst_ulong size = 0;
  const char* format = json ? "{\"format\": \"json\"}" : "{\"format\": \"ubj\"}";
  if (XGBoosterSaveModelToBuffer(static_cast<Gbdt*>(p)->booster, format, &size, out) != 0)
    return Failed("saving the model", err, n);
  *len = size;
  return 0;
}

static int Gbdt_load(void* p, const char* bytes, uint64_t len, char* err, size_t n) {
  auto* g = static_cast<Gbdt*>(p);
  if (XGBoosterLoadModelFromBuffer(g->booster, bytes, static_cast<bst_ulong>(len)) != 0)
    return Failed("loading the model", err, n);
  return SetParams(g->booster, g->params.c_str(), err, n);
}

SWEEP_EXPORT int sweep_gbdt_new(const char* params, const float* x, const float* y, int64_t rows,
                                int64_t cols, const float* vx, const float* vy, int64_t val_rows,
                                void** out, char* err, size_t n) {
  return Guarded(err, n,
                 [&] { return Gbdt_new(params, x, y, rows, cols, vx, vy, val_rows, out, err, n); });
}

SWEEP_EXPORT int sweep_gbdt_renew(void* p, char* err, size_t n) {
  return Guarded(err, n, [&] { return Gbdt_renew(p, err, n); });
}

SWEEP_EXPORT int sweep_gbdt_boost(void* p, int first, int count, char* err, size_t n) {
  return Guarded(err, n, [&] { return Gbdt_boost(p, first, count, err, n); });
}

SWEEP_EXPORT int sweep_gbdt_rounds(void* p, int* out, char* err, size_t n) {
  return Guarded(err, n, [&] { return Gbdt_rounds(p, out, err, n); });
}

SWEEP_EXPORT int sweep_gbdt_predict_set(void* p, int set, const float** out, uint64_t* len,
                                        char* err, size_t n) {
  return Guarded(err, n, [&] { return Gbdt_predict_set(p, set, out, len, err, n); });
}

SWEEP_EXPORT int sweep_gbdt_predict(void* p, const float* x, int64_t rows, int64_t cols,
                                    const float** out, uint64_t* len, char* err, size_t n) {
  return Guarded(err, n, [&] { return Gbdt_predict(p, x, rows, cols, out, len, err, n); });
}

// (Named apart from the version before it, which took no format: a module
// of that build fails to bind here instead of being called wrongly.)
SWEEP_EXPORT int sweep_gbdt_save_as(void* p, int json, const char** out, uint64_t* len, char* err,
                                    size_t n) {
  return Guarded(err, n, [&] { return Gbdt_save(p, json, out, len, err, n); });
}

SWEEP_EXPORT int sweep_gbdt_load(void* p, const char* bytes, uint64_t len, char* err, size_t n) {
  return Guarded(err, n, [&] { return Gbdt_load(p, bytes, len, err, n); });
}
