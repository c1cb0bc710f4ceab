// From a DataSpec to the pool and the test set.
#include "nn/data/data_source.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>

#include "common/json.h"
#include "common/rng.h"
#include "nn/data/csv_file.h"
#include "nn/data/mnist.h"
#include "nn/data/npy_data.h"
#include "nn/data/table_data.h"

namespace sweep::nn {

namespace {

// The fixed seed of the test split carved from a training file.
constexpr uint64_t kTestSplitSeed = 0x7E57;

double TestFraction(const pb::TrainData& d) {
  return d.has_test_fraction() ? d.test_fraction() : kDefaultTestFraction;
}

// Indices of the rows that stay for training and of the test rows.
void SplitOff(int n, double fraction, std::vector<int32_t>* order, size_t* test) {
  *order = EpochOrder(n, kTestSplitSeed, -2);
  *test = static_cast<size_t>(TestRows(n, fraction));
}

// Reads a table, with its label column from a file of its own where the
// study names one.
Result<CsvTable> ReadTable(const std::string& path, const std::string& labels_path,
                           const pb::CsvData& c) {
  ASSIGN_OR_RETURN(CsvTable t, ReadCsv(path, CsvOptionsOf(c)));
  if (labels_path.empty()) return t;
  // The same delimiter and header; skip_rows is the features file's.
  CsvOptions label_options = CsvOptionsOf(c);
  label_options.skip_rows = 0;
  ASSIGN_OR_RETURN(CsvTable y, ReadCsv(labels_path, label_options));
  if (y.names.size() != 1) {
    return Status::InvalidArgument(labels_path + ": has " + std::to_string(y.names.size()) +
                                   " columns; a labels file holds one value per row");
  }
  if (y.rows.size() != t.rows.size()) {
    return Status::InvalidArgument(labels_path + ": has " + std::to_string(y.rows.size()) +
                                   " rows, " + path + " " + std::to_string(t.rows.size()));
  }
  const std::string name = c.label().empty() ? "label" : c.label();
  if (t.column(name) >= 0)
    return Status::InvalidArgument(path + ": already has a column '" + name + "'");
  // The label cells are views into the labels file's text, which the table
  // then keeps alive as well.
  t.names.push_back(name);
  for (size_t r = 0; r < t.rows.size(); ++r) t.rows[r].push_back(y.rows[r][0]);
  t.label_file = y.file;
  t.label_lines = y.lines;
  struct Both {
    std::shared_ptr<std::string> a, b;
  };
  auto both = std::make_shared<Both>(Both{t.text, y.text});
  t.text = std::shared_ptr<std::string>(both, both->a.get());
  return t;
}

Result<Splits> LoadCsv(const DataSpec& spec) {
  const pb::CsvData& c = spec.files.csv();
  const TableOptions o = TableOptionsOf(c, spec.problem);
  ASSIGN_OR_RETURN(CsvTable all, ReadTable(c.train(), c.train_labels(), c));
  CsvTable train, test;
  const CsvTable* classes_from = nullptr;
  if (c.has_test()) {
    train = std::move(all);
    ASSIGN_OR_RETURN(test, ReadTable(c.test(), c.test_labels(), c));
  } else {
    std::vector<int32_t> order;
    size_t n_test;
    SplitOff(static_cast<int>(all.rows.size()), TestFraction(spec.files), &order, &n_test);
    if (all.rows.size() < n_test + 2) {
      return Status::InvalidArgument(c.train() + ": " + std::to_string(all.rows.size()) +
                                     " rows are too few to set a test set apart");
    }
    test = all.Rows(order, 0, n_test);
    train = all.Rows(order, n_test, order.size());
    classes_from = &all;
  }
  ASSIGN_OR_RETURN(TableEncoding code, FitTable(train, o, classes_from));
  Splits s;
  s.problem = spec.problem;
  ASSIGN_OR_RETURN(s.train, EncodeTable(train, code, o));
  ASSIGN_OR_RETURN(s.test, EncodeTable(test, code, o));
  s.classes = static_cast<int>(code.classes.size());
  s.class_names = code.classes;
  s.target_mean = code.target_mean;
  s.target_stddev = code.target_stddev;
  s.feature_names = code.FeatureNames();
  s.table = std::make_shared<const TableEncoding>(std::move(code));
  return s;
}

// Standardises float examples with the pool's statistics: per feature for a
// table, over every value for images.
void Standardise(Splits* s) {
  Examples& pool = s->train;
  if (pool.values.empty()) return;
  const size_t per = pool.image() ? 1 : pool.example_size();
  std::vector<double> sum(per), sq(per);
  for (size_t i = 0; i < pool.values.size(); ++i) sum[i % per] += pool.values[i];
  const double count = static_cast<double>(pool.values.size() / per);
  std::vector<double> mean(per), scale(per);
  for (size_t k = 0; k < per; ++k) mean[k] = sum[k] / count;
  for (size_t i = 0; i < pool.values.size(); ++i) {
    double d = pool.values[i] - mean[i % per];
    sq[i % per] += d * d;
  }
  for (size_t k = 0; k < per; ++k) {
    double sd = std::sqrt(sq[k] / count);
    scale[k] = sd > 1e-12 ? 1 / sd : 1;
  }
  for (size_t k = 0; k < per; ++k) {
    s->input_mean.push_back(static_cast<float>(mean[k]));
    s->input_scale.push_back(static_cast<float>(scale[k]));
  }
  for (Examples* e : {&s->train, &s->test})
    for (size_t i = 0; i < e->values.size(); ++i)
      e->values[i] = (e->values[i] - s->input_mean[i % per]) * s->input_scale[i % per];
}

Result<Splits> LoadNpy(const DataSpec& spec) {
  const pb::NpyData& d = spec.files.npy();
  ASSIGN_OR_RETURN(NpyArray x, ReadNpy(d.train_x()));
  ASSIGN_OR_RETURN(NpyArray y, ReadNpy(d.train_y()));
  std::vector<double> classes;
  ASSIGN_OR_RETURN(Examples all, NpyExamples(x, y, spec.problem, &classes));
  Splits s;
  s.problem = spec.problem;
  if (d.has_test_x()) {
    ASSIGN_OR_RETURN(NpyArray tx, ReadNpy(d.test_x()));
    ASSIGN_OR_RETURN(NpyArray ty, ReadNpy(d.test_y()));
    ASSIGN_OR_RETURN(s.test, NpyExamples(tx, ty, spec.problem, &classes));
    if (s.test.c != all.c || s.test.h != all.h || s.test.w != all.w) {
      return Status::InvalidArgument(d.test_x() + ": its examples are shaped unlike " +
                                     d.train_x() + "'s");
    }
    // uint8 images are pixels, normalised with the training pixels'
    // statistics; floats are taken as they are. Mixed, the test set would
    // be scaled unlike the training set.
    if (s.test.pixels.empty() != all.pixels.empty()) {
      return Status::InvalidArgument(
          d.test_x() + ": holds " + (s.test.pixels.empty() ? "floats" : "uint8 pixels") + ", " +
          d.train_x() + " " + (all.pixels.empty() ? "floats" : "uint8 pixels") +
          "; give both the same dtype");
    }
    s.train = std::move(all);
  } else {
    std::vector<int32_t> order;
    size_t n_test;
    SplitOff(all.n, TestFraction(spec.files), &order, &n_test);
    if (static_cast<size_t>(all.n) < n_test + 2) {
      return Status::InvalidArgument(d.train_x() + ": " + std::to_string(all.n) +
                                     " examples are too few to set a test set apart");
    }
    s.test = Subset(all, order, 0, n_test);
    s.train = Subset(all, order, n_test, order.size());
  }
  if (spec.problem == Problem::kRegression) {
    double sum = 0, sq = 0;
    for (float t : s.train.targets) sum += t;
    s.target_mean = sum / s.train.n;
    for (float t : s.train.targets) sq += (t - s.target_mean) * (t - s.target_mean);
    double sd = std::sqrt(sq / s.train.n);
    s.target_stddev = sd > 1e-12 ? sd : 1;
    for (Examples* e : {&s.train, &s.test})
      for (float& t : e->targets) t = static_cast<float>((t - s.target_mean) / s.target_stddev);
  } else {
    s.classes = static_cast<int>(classes.size());
    for (double v : classes) s.class_names.push_back(FormatDouble(v));
  }
  Standardise(&s);
  return s;
}

}  // namespace

CsvOptions CsvOptionsOf(const pb::CsvData& c) {
  CsvOptions o;
  if (c.has_delimiter()) o.delimiter = c.delimiter() == "\\t" ? '\t' : c.delimiter()[0];
  o.header = !c.has_header() || c.header();
  o.skip_rows = c.skip_rows();
  return o;
}

TableOptions TableOptionsOf(const pb::CsvData& c, Problem problem) {
  TableOptions o;
  o.label = c.label().empty() ? "label" : c.label();
  o.ignore.assign(c.ignore().begin(), c.ignore().end());
  o.problem = problem;
  o.impute_mean = c.missing() == "mean";
  o.missing_nan = c.missing() == "native";
  return o;
}

Problem ProblemOf(const pb::TrainTask& task) {
  return task.problem() == "regression" ? Problem::kRegression : Problem::kClassification;
}

std::string DataSpec::Key() const {
  std::string bytes;
  files.SerializeToString(&bytes);
  return idx_dir + '\0' + bytes + '\0' + (problem == Problem::kRegression ? "r" : "c");
}

std::string DataSpec::Describe() const {
  if (files.has_csv()) return files.csv().train();
  if (files.has_npy()) return files.npy().train_x();
  return idx_dir;
}

namespace {

Result<Splits> LoadPool(const DataSpec& spec) {
  if (spec.files.has_csv()) return LoadCsv(spec);
  if (spec.files.has_npy()) return LoadNpy(spec);
  if (spec.problem == Problem::kRegression) {
    return Status::InvalidArgument(spec.idx_dir +
                                   ": an IDX data set has classes; regression needs csv or npy "
                                   "data");
  }
  return LoadIdxFolder(spec.idx_dir);
}

}  // namespace

Result<Splits> LoadData(const DataSpec& spec) {
  ASSIGN_OR_RETURN(Splits s, LoadPool(spec));
  s.fingerprint = Fingerprint(s);
  return s;
}

uint64_t Fingerprint(const Splits& s) {
  uLong crc = crc32(0, nullptr, 0), adler = adler32(0, nullptr, 0);
  auto add = [&](const void* p, size_t bytes) {
    // zlib takes at most 4 GiB a call.
    const auto* b = static_cast<const Bytef*>(p);
    for (size_t done = 0; done < bytes;) {
      const uInt n = static_cast<uInt>(std::min<size_t>(bytes - done, 1u << 30));
      crc = crc32(crc, b + done, n);
      adler = adler32(adler, b + done, n);
      done += n;
    }
  };
  auto vec = [&](const auto& v) {
    const uint64_t n = v.size();
    add(&n, sizeof n);
    if (n) add(v.data(), n * sizeof(v[0]));
  };
  for (const Examples* e : {&s.train, &s.test}) {
    const int shape[4] = {e->n, e->c, e->h, e->w};
    add(shape, sizeof shape);
    vec(e->pixels);
    vec(e->values);
    vec(e->labels);
    vec(e->targets);
  }
  const double stats[2] = {s.target_mean, s.target_stddev};
  add(stats, sizeof stats);
  vec(s.input_mean);
  vec(s.input_scale);
  for (const auto& name : s.class_names) add(name.data(), name.size() + 1);
  return HashKey({static_cast<uint64_t>(crc), static_cast<uint64_t>(adler),
                  static_cast<uint64_t>(s.classes)}) |
         1;  // never 0, which means "not known"
}

int TestRows(int n, double fraction) {
  return static_cast<int>(std::max(1.0, std::round(fraction * n)));
}

int DefaultValidation(const DataSpec& spec, const Splits& pool) {
  if (!spec.files.has_csv() && !spec.files.has_npy()) return 5000;
  return std::max(1, pool.train.n / 5);
}

namespace {

// All of `pool` but its examples.
Splits WithoutExamples(const Splits& pool) {
  Splits s;
  s.problem = pool.problem;
  s.classes = pool.classes;
  s.class_names = pool.class_names;
  s.target_mean = pool.target_mean;
  s.target_stddev = pool.target_stddev;
  s.feature_names = pool.feature_names;
  s.table = pool.table;
  s.input_mean = pool.input_mean;
  s.input_scale = pool.input_scale;
  s.fingerprint = pool.fingerprint;
  return s;
}

}  // namespace

Result<Splits> CarveSplits(const Splits& pool, int validation, uint64_t seed) {
  Splits s = WithoutExamples(pool);
  s.test = pool.test;
  RETURN_IF_ERROR(CarveValidation(pool.train, validation, seed, &s));
  PixelStatistics(&s);
  return s;
}

Result<Splits> KeptSplits(const Splits& pool, int validation, int folds, uint64_t seed) {
  return CarveSplits(pool, folds >= 2 ? 0 : validation, seed);
}

Result<std::vector<Splits>> TrialSplits(const Splits& pool, int validation, int folds,
                                        uint64_t seed) {
  std::vector<Splits> out;
  ASSIGN_OR_RETURN(Splits kept, KeptSplits(pool, validation, folds, seed));
  out.push_back(std::move(kept));
  if (folds < 2) return out;
  const int n = pool.train.n;
  if (folds > n) {
    return Status::InvalidArgument("folds (" + std::to_string(folds) +
                                   ") is more than the training set's " + std::to_string(n) +
                                   " examples");
  }
  const std::vector<int32_t> perm = EpochOrder(n, seed, -1);
  for (int k = 0; k < folds; ++k) {
    const size_t begin = static_cast<size_t>(k) * n / folds,
                 end = static_cast<size_t>(k + 1) * n / folds;
    std::vector<int32_t> order(perm.begin() + begin, perm.begin() + end);  // validation first
    order.insert(order.end(), perm.begin(), perm.begin() + begin);
    order.insert(order.end(), perm.begin() + end, perm.end());
    Splits fold = WithoutExamples(pool);  // no test split: only the kept model is tested
    fold.validation = Subset(pool.train, order, 0, end - begin);
    fold.train = Subset(pool.train, order, end - begin, order.size());
    PixelStatistics(&fold);
    out.push_back(std::move(fold));
  }
  return out;
}

}  // namespace sweep::nn
