#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "adapters.h"

namespace bench {
namespace {
using json = nlohmann::json;

struct Sax {
  Fields* out;
  const Specials* specials;
  size_t next_special = 0;
  int number = 0;  // ordinal of the next number token
  int open = 0;
  bool too_deep = false, bad_root = false;
  size_t error_at = 0;
  std::string error;

  bool Value(JsonField::Kind k) {
    if (open == 0) return !(bad_root = true);
    if (open > kMaxDepth) return !(too_deep = true);
    if (open == 1) out->back().kind = k;
    return true;
  }
  bool null() { return Value(JsonField::Kind::kNull); }
  bool boolean(bool b) {
    if (!Value(JsonField::Kind::kBool)) return false;
    if (open == 1) out->back().flag = b;
    return true;
  }
  bool Number(double d) {
    if (next_special < specials->at.size() && specials->at[next_special].first == number) {
      d = specials->at[next_special++].second;
    }
    ++number;
    if (!Value(JsonField::Kind::kNumber)) return false;
    if (open == 1) out->back().number = d;
    return true;
  }
  bool number_integer(json::number_integer_t v) { return Number(static_cast<double>(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return Number(static_cast<double>(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return Number(v); }
  bool string(json::string_t& s) {
    if (!Value(JsonField::Kind::kString)) return false;
    if (open == 1) out->back().text = std::move(s);
    return true;
  }
  bool binary(json::binary_t&) { return false; }
  bool key(json::string_t& k) {
    if (open == 1) {
      out->emplace_back();
      out->back().key = std::move(k);
    }
    return true;
  }
  bool Start(bool array) {
    if (open == 0 && array) return !(bad_root = true);
    if (open > 0 && !Value(JsonField::Kind::kOther)) return false;
    ++open;
    return true;
  }
  bool start_object(std::size_t) { return Start(false); }
  bool start_array(std::size_t) { return Start(true); }
  bool end_object() { return --open, true; }
  bool end_array() { return --open, true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    error_at = position;
    error = e.what();
    return false;
  }
};
}  // namespace

Result<Fields> ParseNlohmannSax(std::string_view text) {
  std::string copy(text);
  Specials specials;
  RewriteSpecials(&copy, &specials);
  Fields fields;
  Sax sax;
  sax.out = &fields;
  sax.specials = &specials;
  bool ok = json::sax_parse(copy.begin(), copy.end(), &sax);
  if (ok) return fields;
  if (sax.too_deep) return Status::InvalidArgument("nested deeper than 64 levels");
  if (sax.bad_root) return Status::InvalidArgument("expected '{' at byte 0");
  return Status::InvalidArgument(sax.error + " (at byte " + std::to_string(sax.error_at) + ")");
}

// Counts the number tokens in `v`, in document order (ordered_json keeps it).
static int CountNumbers(const nlohmann::ordered_json& v) {
  if (v.is_number()) return 1;
  int n = 0;
  if (v.is_structured())
    for (const auto& e : v) n += CountNumbers(e);
  return n;
}

Result<Fields> ParseNlohmannDom(std::string_view text) {
  using ojson = nlohmann::ordered_json;
  std::string copy(text);
  Specials specials;
  RewriteSpecials(&copy, &specials);
  ojson doc;
  try {
    doc = ojson::parse(copy);
  } catch (const ojson::parse_error& e) {
    return Status::InvalidArgument(std::string(e.what()) + " (at byte " + std::to_string(e.byte) +
                                   ")");
  }
  if (!doc.is_object()) return Status::InvalidArgument("expected '{' at byte 0");
  Fields fields;
  fields.reserve(doc.size());
  size_t next = 0;
  int number = 0;
  for (auto& [k, v] : doc.items()) {
    JsonField f;
    f.key = k;
    if (v.is_number()) {
      f.kind = JsonField::Kind::kNumber;
      f.number = v.get<double>();
      if (next < specials.at.size() && specials.at[next].first == number)
        f.number = specials.at[next++].second;
      ++number;
    } else if (v.is_boolean()) {
      f.kind = JsonField::Kind::kBool;
      f.flag = v.get<bool>();
    } else if (v.is_string()) {
      f.kind = JsonField::Kind::kString;
      f.text = v.get_ref<const std::string&>();
    } else if (v.is_null()) {
      f.kind = JsonField::Kind::kNull;
    } else {
      f.kind = JsonField::Kind::kOther;
      number += CountNumbers(v);
      while (next < specials.at.size() && specials.at[next].first < number) ++next;
    }
    fields.push_back(std::move(f));
  }
  return fields;
}
}  // namespace bench
