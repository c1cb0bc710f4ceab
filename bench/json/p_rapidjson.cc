#include <cmath>
#include <string>

#include "adapters.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/reader.h"

namespace bench {
namespace {
namespace rj = rapidjson;
constexpr unsigned kFlags =
    rj::kParseNanAndInfFlag | rj::kParseFullPrecisionFlag | rj::kParseIterativeFlag;

struct Handler : rj::BaseReaderHandler<rj::UTF8<>, Handler> {
  Fields* out;
  int open = 0;           // containers open, the top object included
  bool too_deep = false;  // why the handler stopped the parse
  bool bad_root = false;  // the text is not an object
  std::string last_key;

  bool Value(JsonField::Kind k) {
    if (open == 0) return !(bad_root = true);
    if (open > kMaxDepth) return !(too_deep = true);
    if (open == 1) out->back().kind = k;
    return true;
  }
  bool Null() { return Value(JsonField::Kind::kNull); }
  bool Bool(bool b) {
    if (!Value(JsonField::Kind::kBool)) return false;
    if (open == 1) out->back().flag = b;
    return true;
  }
  bool Int(int i) { return Double(i); }
  bool Uint(unsigned i) { return Double(i); }
  bool Int64(int64_t i) { return Double(static_cast<double>(i)); }
  bool Uint64(uint64_t i) { return Double(static_cast<double>(i)); }
  bool Double(double d) {
    if (!Value(JsonField::Kind::kNumber)) return false;
    if (open == 1) out->back().number = d;
    return true;
  }
  bool String(const char* s, rj::SizeType n, bool) {
    if (!Value(JsonField::Kind::kString)) return false;
    if (open == 1) out->back().text.assign(s, n);
    return true;
  }
  bool Key(const char* s, rj::SizeType n, bool) {
    if (open == 1) {
      out->emplace_back();
      out->back().key.assign(s, n);
    }
    return true;
  }
  bool Start() {
    if (open > 0 && !Value(JsonField::Kind::kOther)) return false;
    ++open;
    return true;
  }
  bool StartObject() { return Start(); }
  bool StartArray() { return open == 0 ? !(bad_root = true) : Start(); }
  bool EndObject(rj::SizeType) { return --open, true; }
  bool EndArray(rj::SizeType) { return --open, true; }
};

// Our wording for RapidJSON's error codes; `text` and the offset refine it.
std::string What(rj::ParseErrorCode code, std::string_view text, size_t at, const Handler& h) {
  char c = at < text.size() ? text[at] : '\0';
  switch (code) {
    case rj::kParseErrorDocumentEmpty:
      return "expected '{'";
    case rj::kParseErrorDocumentRootNotSingular:
      return "unexpected text after the object";
    case rj::kParseErrorValueInvalid:
      return "expected a value";
    case rj::kParseErrorObjectMissName:
      return "expected a quoted key";
    case rj::kParseErrorObjectMissColon:
      return "expected ':'";
    case rj::kParseErrorObjectMissCommaOrCurlyBracket:
      return "expected ',' or '}'";
    case rj::kParseErrorArrayMissCommaOrSquareBracket:
      return "expected ',' or ']'";
    case rj::kParseErrorStringUnicodeEscapeInvalidHex:
      return "bad \\u escape";
    case rj::kParseErrorStringUnicodeSurrogateInvalid:
      return "lone surrogate in a \\u escape";
    case rj::kParseErrorStringEscapeInvalid:
      if (static_cast<unsigned char>(c) < 0x20) return "control character in a string";
      return std::string("bad escape ") + std::string(text.substr(at, 2));
    case rj::kParseErrorStringMissQuotationMark:
      return "unterminated string";
    case rj::kParseErrorNumberTooBig:
      return "number too big";
    case rj::kParseErrorNumberMissFraction:
      return "expected a digit after '.'";
    case rj::kParseErrorNumberMissExponent:
      return "expected a digit in the exponent";
    case rj::kParseErrorTermination:
      if (h.too_deep) return "nested deeper than 64 levels";
      if (h.bad_root) return "expected '{'";
      return "stopped";
    default:
      return rj::GetParseError_En(code);
  }
}
}  // namespace

Result<Fields> ParseRapidSax(std::string_view text) {
  Fields fields;
  Handler h;
  h.out = &fields;
  rj::MemoryStream ms(text.data(), text.size());
  rj::Reader reader;
  rj::ParseResult r = reader.Parse<kFlags>(ms, h);
  if (r.IsError())
    return Status::InvalidArgument(What(r.Code(), text, r.Offset(), h) + " at byte " +
                                   std::to_string(r.Offset()));
  // A NUL reads as the end of input to RapidJSON: refuse text after one.
  if (ms.Tell() != text.size())
    return Status::InvalidArgument("unexpected text after the object at byte " +
                                   std::to_string(ms.Tell()));
  return fields;
}

Result<Fields> ParseRapidDom(std::string_view text) {
  rj::Document d;
  d.Parse<kFlags>(text.data(), text.size());
  if (d.HasParseError())
    return Status::InvalidArgument(std::string(rj::GetParseError_En(d.GetParseError())) +
                                   " at byte " + std::to_string(d.GetErrorOffset()));
  if (!d.IsObject()) return Status::InvalidArgument("expected '{' at byte 0");
  Fields fields;
  fields.reserve(d.MemberCount());
  for (auto& m : d.GetObject()) {
    JsonField f;
    f.key.assign(m.name.GetString(), m.name.GetStringLength());
    const auto& v = m.value;
    if (v.IsNumber()) {
      f.kind = JsonField::Kind::kNumber;
      f.number = v.GetDouble();
    } else if (v.IsBool()) {
      f.kind = JsonField::Kind::kBool;
      f.flag = v.GetBool();
    } else if (v.IsString()) {
      f.kind = JsonField::Kind::kString;
      f.text.assign(v.GetString(), v.GetStringLength());
    } else if (v.IsNull()) {
      f.kind = JsonField::Kind::kNull;
    } else {
      f.kind = JsonField::Kind::kOther;
    }
    fields.push_back(std::move(f));
  }
  return fields;
}
}  // namespace bench
