// Routes /api paths to the views (docs/dashboard.md documents each).
#include "dashboard/api.h"

#include <cstdlib>
#include <vector>

#include "common/json_writer.h"
#include "dashboard/views.h"

namespace sweep {
namespace {

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> parts;
  for (size_t start = 1; start <= path.size();) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// A positive decimal id, or -1.
int64_t Id(const std::string& s) {
  if (s.empty() || s.size() > 18) return -1;
  for (char c : s)
    if (c < '0' || c > '9') return -1;
  return std::strtoll(s.c_str(), nullptr, 10);
}

}  // namespace

bool Api::Cacheable(const std::string& path) {
  auto parts = Split(path);
  if (parts.empty() || parts[0] != "api") return false;
  return (parts.size() == 3 && parts[1] == "trials") ||
         (parts.size() == 4 && parts[1] == "studies");
}

Result<std::unique_ptr<Api>> Api::Open(const std::string& db) {
  ASSIGN_OR_RETURN(auto reader, Reader::Open(db));
  return std::unique_ptr<Api>(new Api(std::move(reader)));
}

Result<std::string> Api::Get(const std::string& path, double now, bool* cacheable_out) {
  bool ignored = false;
  bool* cacheable = cacheable_out ? cacheable_out : &ignored;
  *cacheable = false;
  auto parts = Split(path);
  auto not_found = Status::NotFound(path + ": not in the API (see docs/dashboard.md)");
  if (parts.size() < 2 || parts[0] != "api") return not_found;
  if (parts.size() == 2 && parts[1] == "version") {
    ASSIGN_OR_RETURN(int64_t version, reader_->DataVersion());
    JsonWriter w;
    w.BeginObject().Key("version").Int(version).Key("now").Number(now).EndObject();
    return w.Take();
  }
  if (parts.size() == 2 && parts[1] == "studies") return StudiesJson(*reader_, now);
  if (parts.size() == 2 && parts[1] == "pool") return PoolJson(*reader_, now);
  if (parts.size() == 3 && parts[1] == "trials") {
    int64_t id = Id(parts[2]);
    if (id < 0) return not_found;
    *cacheable = true;
    return TrialJson(*reader_, id);
  }
  if (parts[1] != "studies" || parts.size() > 4) return not_found;
  int64_t id = Id(parts[2]);
  if (id < 0) return not_found;
  if (parts.size() == 3) return StudyJson(*reader_, id, now);
  *cacheable = true;
  const std::string& view = parts[3];
  if (view == "trials") return TrialsJson(*reader_, id);
  if (view == "curves") return CurvesJson(*reader_, id);
  if (view == "importance") return ImportanceJson(*reader_, id);
  if (view == "rungs") return RungsJson(*reader_, id);
  if (view == "lineage") return LineageJson(*reader_, id);
  if (view == "front") return FrontJson(*reader_, id);
  return not_found;
}

}  // namespace sweep
