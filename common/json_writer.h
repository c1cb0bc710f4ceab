// Writes JSON text in one pass, with the commas placed for the caller:
//   JsonWriter w; w.BeginObject().Key("n").Int(3).Key("xs").BeginArray()...
// NaN and infinities are written as null (JSON has no word for them).
// REQUIRES: external synchronization.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"

namespace sweep {

class JsonWriter {
 public:
  JsonWriter& BeginObject() { return Open('{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray() { return Open('['); }
  JsonWriter& EndArray() { return Close(']'); }
  JsonWriter& Key(std::string_view k) {
    Comma();
    AppendJsonString(&out_, k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter& String(std::string_view v) {
    Comma();
    AppendJsonString(&out_, v);
    return *this;
  }
  JsonWriter& StringOrNull(const std::optional<std::string>& v) { return v ? String(*v) : Null(); }
  JsonWriter& Number(double v) { return Raw(JsonNumber(v)); }
  JsonWriter& Number(std::optional<double> v) { return v ? Number(*v) : Null(); }
  JsonWriter& Int(int64_t v) { return Raw(std::to_string(v)); }
  JsonWriter& Int(std::optional<int64_t> v) { return v ? Int(*v) : Null(); }
  JsonWriter& Bool(bool v) { return Raw(v ? "true" : "false"); }
  JsonWriter& Null() { return Raw("null"); }
  // `json` must already be one valid JSON value.
  JsonWriter& Raw(std::string_view json) {
    Comma();
    out_ += json;
    return *this;
  }
  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  JsonWriter& Open(char c) {
    Comma();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& Close(char c) {
    out_ += c;
    first_.pop_back();
    return *this;
  }
  void Comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace sweep
