#include <cmath>
#include <string>

#include "adapters.h"
#include "simdjson.h"

namespace bench {
namespace {
namespace od = simdjson::ondemand;
using simdjson::error_code;

struct Ctx {
  const char* base;  // the padded copy
  size_t size;
  od::document* doc;
  bool walk;  // check nested values (else skip them)
};

Status Error(Ctx& c, const std::string& what, error_code e) {
  size_t at = c.size;
  const char* p = nullptr;
  if (!c.doc->current_location().get(p)) at = static_cast<size_t>(p - c.base);
  return Status::InvalidArgument(what + " (" + simdjson::error_message(e) + ") at byte " +
                                 std::to_string(at));
}

// NaN / Infinity / -Infinity: simdjson refuses them, so read the raw token.
bool Special(od::value& v, double* out) {
  std::string_view tok = v.raw_json_token();
  while (!tok.empty() &&
         (tok.back() == ' ' || tok.back() == '\t' || tok.back() == '\n' || tok.back() == '\r'))
    tok.remove_suffix(1);
  if (tok == "NaN")
    *out = std::nan("");
  else if (tok == "Infinity")
    *out = HUGE_VAL;
  else if (tok == "-Infinity")
    *out = -HUGE_VAL;
  else
    return false;
  return true;
}

Status Value(Ctx& c, od::value v, JsonField* f, int depth);

Status Nested(Ctx& c, od::value& v, od::json_type t, int depth) {
  if (!c.walk) {
    // Skipped by the iterator when the next field is read.
    return Status::Ok();
  }
  if (t == od::json_type::array) {
    od::array a;
    if (auto e = v.get_array().get(a)) return Error(c, "bad array", e);
    for (auto el : a) {
      od::value ev;
      if (auto e = el.get(ev)) return Error(c, "bad array element", e);
      RETURN_IF_ERROR(Value(c, ev, nullptr, depth + 1));
    }
    return Status::Ok();
  }
  od::object o;
  if (auto e = v.get_object().get(o)) return Error(c, "bad object", e);
  for (auto field : o) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return Error(c, "expected a quoted key", e);
    od::value fv;
    if (auto e = field.value().get(fv)) return Error(c, "expected a value", e);
    RETURN_IF_ERROR(Value(c, fv, nullptr, depth + 1));
  }
  return Status::Ok();
}

Status Value(Ctx& c, od::value v, JsonField* f, int depth) {
  if (depth > kMaxDepth) return Error(c, "nested deeper than 64 levels", simdjson::DEPTH_ERROR);
  od::json_type t;
  if (auto e = v.type().get(t)) {
    double d;
    if (!Special(v, &d)) return Error(c, "expected a value", e);
    if (f) f->kind = JsonField::Kind::kNumber, f->number = d;
    return Status::Ok();
  }
  switch (t) {
    case od::json_type::number: {
      double d;
      if (auto e = v.get_double().get(d)) {
        if (!Special(v, &d)) return Error(c, "bad number", e);
      }
      if (f) f->kind = JsonField::Kind::kNumber, f->number = d;
      return Status::Ok();
    }
    case od::json_type::string: {
      std::string_view s;
      if (auto e = v.get_string().get(s)) return Error(c, "bad string", e);
      if (f) f->kind = JsonField::Kind::kString, f->text.assign(s);
      return Status::Ok();
    }
    case od::json_type::boolean: {
      bool b;
      if (auto e = v.get_bool().get(b)) return Error(c, "expected a value", e);
      if (f) f->kind = JsonField::Kind::kBool, f->flag = b;
      return Status::Ok();
    }
    case od::json_type::null: {
      bool is = false;
      if (auto e = v.is_null().get(is); e || !is) return Error(c, "expected a value", e);
      if (f) f->kind = JsonField::Kind::kNull;
      return Status::Ok();
    }
    default:
      if (f) f->kind = JsonField::Kind::kOther;
      return Nested(c, v, t, depth);
  }
}

Result<Fields> Parse(std::string_view text, bool walk) {
  static thread_local od::parser parser;
  static thread_local std::string buf;
  // simdjson reads up to SIMDJSON_PADDING bytes past the end: a padded copy.
  buf.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  buf.assign(text);
  od::document doc;
  Ctx c{buf.data(), buf.size(), &doc, walk};
  if (auto e = parser.iterate(buf.data(), buf.size(), buf.capacity()).get(doc))
    return Status::InvalidArgument(std::string("bad JSON (") + simdjson::error_message(e) + ")");
  od::object obj;
  if (auto e = doc.get_object().get(obj)) return Error(c, "expected '{'", e);
  Fields fields;
  for (auto field : obj) {
    JsonField f;
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return Error(c, "expected a quoted key", e);
    f.key.assign(key);
    od::value v;
    if (auto e = field.value().get(v)) return Error(c, "expected a value", e);
    RETURN_IF_ERROR(Value(c, v, &f, 1));
    fields.push_back(std::move(f));
  }
  const char* p;
  if (doc.current_location().get(p) == simdjson::SUCCESS)
    return Status::InvalidArgument("unexpected text after the object at byte " +
                                   std::to_string(p - c.base));
  return fields;
}
}  // namespace

Result<Fields> ParseSimdjson(std::string_view text) { return Parse(text, true); }
Result<Fields> ParseSimdjsonSkip(std::string_view text) { return Parse(text, false); }
}  // namespace bench
