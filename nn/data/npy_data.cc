// The .npy reader: the magic, the header's Python dict, then the elements.
#include "nn/data/npy_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "common/json.h"
#include "nn/data/data_file.h"

namespace sweep::nn {

namespace {

// The value of `key` in the header dict, e.g. '<f4', False or (100, 3).
std::string DictValue(const std::string& h, const std::string& key) {
  size_t k = h.find("'" + key + "'");
  if (k == std::string::npos) return "";
  size_t colon = h.find(':', k);
  if (colon == std::string::npos) return "";
  size_t p = colon + 1;
  while (p < h.size() && h[p] == ' ') ++p;
  size_t end = p;
  if (p < h.size() && h[p] == '(') {
    end = h.find(')', p);
    return end == std::string::npos ? "" : h.substr(p, end - p + 1);
  }
  if (p < h.size() && (h[p] == '\'' || h[p] == '"')) {
    end = h.find(h[p], p + 1);
    return end == std::string::npos ? "" : h.substr(p, end - p + 1);
  }
  while (end < h.size() && h[end] != ',' && h[end] != '}') ++end;
  while (end > p && h[end - 1] == ' ') --end;
  return h.substr(p, end - p);
}

}  // namespace

int64_t NpyArray::count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

double NpyArray::at(size_t i) const {
  const uint8_t* p = data.data() + i * static_cast<size_t>(item);
  switch (kind) {
    case 'f':
      if (item == 4) {
        float f;
        std::memcpy(&f, p, 4);
        return f;
      } else {
        double d;
        std::memcpy(&d, p, 8);
        return d;
      }
    case 'b':
      return p[0] != 0;
    case 'u': {
      uint64_t u = 0;
      std::memcpy(&u, p, static_cast<size_t>(item));
      return static_cast<double>(u);
    }
    default: {
      int64_t s = 0;
      std::memcpy(&s, p, static_cast<size_t>(item));
      if (item < 8 && (s >> (item * 8 - 1)) & 1) s -= int64_t{1} << (item * 8);  // sign-extend
      return static_cast<double>(s);
    }
  }
}

Result<NpyArray> ParseNpy(std::vector<uint8_t> b, const std::string& file) {
  auto bad = [&](const std::string& why) { return Status::InvalidArgument(file + ": " + why); };
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0)
    return bad("not a NumPy .npy file (no \\x93NUMPY magic)");
  const int major = b[6];
  size_t header_len, start;
  if (major == 1) {
    header_len = b[8] | (size_t{b[9]} << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return bad("truncated header");
    header_len = b[8] | (size_t{b[9]} << 8) | (size_t{b[10]} << 16) | (size_t{b[11]} << 24);
    start = 12;
  } else {
    return bad(".npy format version " + std::to_string(major) + " is not supported (1 to 3)");
  }
  if (header_len > (1 << 20) || start + header_len > b.size()) return bad("truncated header");
  std::string h(b.begin() + static_cast<long>(start),
                b.begin() + static_cast<long>(start + header_len));
  NpyArray a;
  a.file = file;
  std::string descr = DictValue(h, "descr");
  if (descr.size() != 5 || (descr[1] != '<' && descr[1] != '|' && descr[1] != '='))
    return bad("dtype " + descr +
               " is not supported (float32, float64, integers, bool; little-endian)");
  a.kind = descr[2];
  a.item = descr[3] - '0';
  bool ok = (a.kind == 'f' && (a.item == 4 || a.item == 8)) ||
            ((a.kind == 'u' || a.kind == 'i') &&
             (a.item == 1 || a.item == 2 || a.item == 4 || a.item == 8)) ||
            (a.kind == 'b' && a.item == 1);
  if (!ok) return bad("dtype " + descr + " is not supported (float32, float64, integers, bool)");
  if (DictValue(h, "fortran_order") != "False") {
    return bad("is in Fortran order; save it in C order (np.save(f, np.ascontiguousarray(a)))");
  }
  std::string shape = DictValue(h, "shape");
  if (shape.size() < 2 || shape.front() != '(') return bad("the header has no shape");
  size_t p = 1;
  uint64_t total = 1;
  while (p < shape.size() - 1) {
    while (p < shape.size() && (shape[p] == ' ' || shape[p] == ',')) ++p;
    if (p >= shape.size() - 1) break;
    size_t q = p;
    while (q < shape.size() && std::isdigit(static_cast<unsigned char>(shape[q]))) ++q;
    if (q == p || q - p > 12) return bad("cannot read the shape " + shape);
    int64_t d = std::stoll(shape.substr(p, q - p));
    // Bounded before the product: no dimension list can wrap it around.
    const uint64_t limit = uint64_t{1} << 40;
    if (static_cast<uint64_t>(d) > limit || total > limit / std::max<uint64_t>(d, 1))
      return bad("the shape " + shape + " is implausibly large");
    total *= static_cast<uint64_t>(std::max<int64_t>(d, 1));
    a.shape.push_back(d);
    p = q;
  }
  if (a.shape.empty()) return bad("holds a single value, not an array of examples");
  const uint64_t want = static_cast<uint64_t>(a.count()) * static_cast<uint64_t>(a.item);
  const uint64_t have = b.size() - start - header_len;
  if (have != want) {
    return bad((have < want ? "truncated (" : "has trailing bytes (") + std::to_string(have) +
               " data bytes, the shape " + shape + " needs " + std::to_string(want) + ")");
  }
  a.data.assign(b.begin() + static_cast<long>(start + header_len), b.end());
  return a;
}

Result<NpyArray> ReadNpy(const std::string& path) {
  ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadDataFile(path));
  return ParseNpy(std::move(bytes), path);
}

Result<Examples> NpyFeatures(const NpyArray& x) {
  const size_t dims = x.shape.size();
  if (dims < 2 || dims > 4) {
    return Status::InvalidArgument(x.file + ": has " + std::to_string(dims) +
                                   " dimensions; expected N x F, N x H x W or N x H x W x C");
  }
  if (x.kind != 'f' && !(x.kind == 'u' && x.item == 1)) {
    return Status::InvalidArgument(x.file + ": features must be float32, float64 or uint8");
  }
  const int64_t n = x.shape[0];
  if (n < 1) return Status::InvalidArgument(x.file + ": holds no examples");
  for (int64_t d : x.shape) {
    if (d < 1 || d > (1 << 24))
      return Status::InvalidArgument(x.file + ": a dimension of " + std::to_string(d));
  }
  Examples e;
  e.n = static_cast<int>(n);
  int64_t h = 1, w = 1, c = 1;
  if (dims == 2) c = x.shape[1];
  if (dims >= 3) h = x.shape[1], w = x.shape[2];
  if (dims == 4) c = x.shape[3];
  if (c * h * w > (1 << 26))
    return Status::InvalidArgument(x.file + ": over 2^26 values per example");
  e.c = static_cast<int>(c);
  e.h = static_cast<int>(h);
  e.w = static_cast<int>(w);
  const size_t px = e.example_size();
  // Channels last (NHWC) in the file, channels first (NCHW) in the network.
  auto from = [&](size_t i, size_t k) {
    if (dims != 4) return i * px + k;
    size_t ch = k / static_cast<size_t>(h * w), yx = k % static_cast<size_t>(h * w);
    return i * px + yx * static_cast<size_t>(c) + ch;
  };
  const bool bytes = x.kind == 'u' && e.image();
  if (bytes) {
    e.pixels.resize(static_cast<size_t>(n) * px);
    for (size_t i = 0; i < static_cast<size_t>(n); ++i)
      for (size_t k = 0; k < px; ++k) e.pixels[i * px + k] = x.data[from(i, k)];
  } else {
    e.values.resize(static_cast<size_t>(n) * px);
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      for (size_t k = 0; k < px; ++k) {
        // Checked as the float the network sees: 1e300 is finite only as a double.
        const float v = static_cast<float>(x.at(from(i, k)));
        if (!std::isfinite(v)) {
          return Status::InvalidArgument(x.file + ": example " + std::to_string(i) +
                                         " holds a NaN or infinite value (or one beyond float32)");
        }
        e.values[i * px + k] = v;
      }
    }
  }
  return e;
}

Result<Examples> NpyExamples(const NpyArray& x, const NpyArray& y, Problem problem,
                             std::vector<double>* classes) {
  const int64_t n = x.shape.empty() ? 0 : x.shape[0];
  int64_t rows = y.shape.empty() ? 0 : y.shape[0];
  if (y.shape.size() > 2 || (y.shape.size() == 2 && y.shape[1] != 1)) {
    return Status::InvalidArgument(y.file + ": must hold one value per example (shape N or N x 1)");
  }
  if (rows != n) {
    return Status::InvalidArgument(y.file + ": has " + std::to_string(rows) + " values, " + x.file +
                                   " " + std::to_string(n) + " examples");
  }
  ASSIGN_OR_RETURN(Examples e, NpyFeatures(x));
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
    double v = y.at(i);
    if (!std::isfinite(v) || !std::isfinite(static_cast<float>(v))) {
      return Status::InvalidArgument(y.file + ": value " + std::to_string(i) +
                                     " is NaN or infinite (or beyond float32)");
    }
    if (problem == Problem::kRegression) {
      e.targets.push_back(static_cast<float>(v));
      continue;
    }
    if (v != std::floor(v)) {
      return Status::InvalidArgument(y.file + ": value " + std::to_string(i) + " (" +
                                     FormatDouble(v) +
                                     ") is not a whole number; a class label must be one");
    }
    e.labels.push_back(0);
  }
  if (problem == Problem::kClassification) {
    if (classes->empty()) {
      std::set<double> seen;
      for (size_t i = 0; i < static_cast<size_t>(n); ++i) seen.insert(y.at(i));
      if (seen.size() < 2) {
        return Status::InvalidArgument(y.file + ": one class only (" + FormatDouble(*seen.begin()) +
                                       "): there is nothing to tell apart");
      }
      if (seen.size() > 100000) return Status::InvalidArgument(y.file + ": over 100,000 classes");
      classes->assign(seen.begin(), seen.end());
    }
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      auto it = std::lower_bound(classes->begin(), classes->end(), y.at(i));
      if (it == classes->end() || *it != y.at(i)) {
        return Status::InvalidArgument(y.file + ": value " + std::to_string(i) + " (class " +
                                       FormatDouble(y.at(i)) +
                                       ") does not occur in the training labels");
      }
      e.labels[i] = static_cast<int32_t>(it - classes->begin());
    }
  }
  return e;
}

}  // namespace sweep::nn
