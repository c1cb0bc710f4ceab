// Reads a study file (YAML, JSON or protobuf text format) into pb::Study,
// remembering where each field was written so later errors can point at it.
// Schema checks (unknown keys, wrong types, duplicate keys) happen here;
// semantic checks live in validate.h.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "proto/sweep.pb.h"

namespace sweep {

// Field path -> (line, column), both 1-based. Paths look like
// "parameters.lr.min" or "algorithm.type"; a parameter is named by its key.
class SourceMap {
 public:
  explicit SourceMap(std::string file = "") : file_(std::move(file)) {}
  void Record(const std::string& path, int line, int column);
  // "study.yaml:14:7: " for the closest recorded prefix of `path`.
  std::string Where(const std::string& path) const;
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::map<std::string, std::pair<int, int>> locations_;
};

// "parameters" + "lr" -> "parameters.lr": the paths SourceMap records.
std::string JoinFieldPath(const std::string& path, const std::string& key);

struct ParsedStudy {
  pb::Study study;
  SourceMap source;
  // Entries the reader skipped, each a "file:line:col: path: what" error (a
  // duplicate or unknown key): ValidateStudy reports them with its own, so
  // one run names every mistake.
  std::vector<std::string> skipped;
  // The paths of fields whose value was refused (in `skipped`), and of those
  // an unknown key near their name probably meant: left unset, and not
  // reported again as missing.
  std::set<std::string> refused;
};

// Chooses the syntax by extension: .pbtxt/.textproto/.txtpb are protobuf text
// format, everything else is YAML (of which JSON is a subset).
Result<ParsedStudy> LoadStudyFile(const std::string& path);
Result<ParsedStudy> ParseStudyYaml(const std::string& text, const std::string& filename);
Result<ParsedStudy> ParseStudyTextProto(const std::string& text, const std::string& filename);

}  // namespace sweep
