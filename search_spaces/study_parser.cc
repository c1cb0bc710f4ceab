// The YAML (and JSON) study reader, and the source map every reader fills.
// The YAML walker is driven by the proto descriptor, so the schema is written
// once (proto/sweep.proto) and every unknown key or wrong type is caught with
// its line and column. Text format: study_text_format.cc; files:
// study_file.cc.
#include "search_spaces/study_parser.h"

#include <google/protobuf/descriptor.pb.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <set>
#include <sstream>

#include "common/nearest_word.h"

namespace sweep {

namespace gp = google::protobuf;

std::string JoinFieldPath(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

void SourceMap::Record(const std::string& path, int line, int column) {
  locations_[path] = {line, column};
}

std::string SourceMap::Where(const std::string& path) const {
  std::string p = path;
  while (true) {
    auto it = locations_.find(p);
    if (it != locations_.end()) {
      return file_ + ":" + std::to_string(it->second.first) + ":" +
             std::to_string(it->second.second) + ": ";
    }
    if (p.empty()) break;
    size_t dot = p.rfind('.');
    p.resize(dot == std::string::npos ? 0 : dot);
  }
  return file_ + ": ";
}

namespace {

// A study is a few kilobytes; the walk counts every node it visits, so YAML
// aliases (which share nodes) cannot expand into billions of values.
constexpr int64_t kMaxStudyNodes = 100000;

const char* NodeKind(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Null:
      return "nothing";
    default:
      return "an undefined node";
  }
}

bool IsPlain(const YAML::Node& n) { return n.Tag() != "!"; }

// YAML 1.2 core-schema number, including .inf/.nan spellings.
bool ParseDouble(const std::string& s, double* out) {
  static const std::regex kNum(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)");
  if (std::regex_match(s, kNum)) {
    *out = std::strtod(s.c_str(), nullptr);
    return true;
  }
  std::string l;
  for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == ".nan" || l == "nan") {
    *out = std::nan("");
    return true;
  }
  if (l == ".inf" || l == "+.inf" || l == "inf" || l == "+inf") {
    *out = INFINITY;
    return true;
  }
  if (l == "-.inf" || l == "-inf") {
    *out = -INFINITY;
    return true;
  }
  return false;
}

bool ParseInt(const std::string& s, int64_t* out) {
  static const std::regex kInt(R"([-+]?\d+)");
  if (!std::regex_match(s, kInt)) return false;
  errno = 0;
  long long v = std::strtoll(s.c_str(), nullptr, 10);
  if (errno == ERANGE) return false;
  *out = v;
  return true;
}

bool ParseBool(const std::string& s, bool* out) {
  if (s == "true" || s == "True" || s == "TRUE") {
    *out = true;
    return true;
  }
  if (s == "false" || s == "False" || s == "FALSE") {
    *out = false;
    return true;
  }
  return false;
}

// Enum names are written without their prefix, in lower case:
// GOAL_MINIMIZE is "minimize", PARAM_TYPE_FLOAT is "float".
std::string EnumShortName(const gp::EnumValueDescriptor* v) {
  std::string full = v->name();
  std::string prefix;
  for (char c : v->type()->name()) {
    if (std::isupper(static_cast<unsigned char>(c)) && !prefix.empty()) prefix += '_';
    prefix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  prefix += "_";
  if (full.rfind(prefix, 0) == 0) full = full.substr(prefix.size());
  std::string out;
  for (char c : full) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

class YamlReader {
 public:
  YamlReader(SourceMap* source, std::vector<std::string>* skipped, std::set<std::string>* refused)
      : source_(source), skipped_(skipped), refused_(refused) {}

  Status Fill(const YAML::Node& node, gp::Message* msg, const std::string& path,
              const gp::FieldDescriptor* key_field = nullptr) {
    RETURN_IF_ERROR(Count(node, path));
    if (node.IsNull()) return Status::Ok();
    if (!node.IsMap())
      return Error(node, path, std::string("expected a mapping, got ") + NodeKind(node));
    const gp::Descriptor* desc = msg->GetDescriptor();
    std::set<std::string> seen;
    std::vector<std::string> meant;  // the keys unknown ones were near
    for (auto it = node.begin(); it != node.end(); ++it) {
      YAML::Node k = it->first;
      YAML::Node v = it->second;
      if (!k.IsScalar()) return Error(k, path, "keys must be plain names");
      std::string key = k.Scalar();
      std::string child = JoinFieldPath(path, key);
      // A duplicate or unknown key is skipped and reported with the rest.
      if (!seen.insert(key).second) {
        Skip(Error(k, child, "duplicate key '" + key + "'"));
        continue;
      }
      const gp::FieldDescriptor* f = desc->FindFieldByName(key);
      if (f == nullptr || f == key_field) {
        std::vector<std::string> names = FieldNames(desc, key_field);
        auto near = NearestWord(key, names);
        if (near) meant.push_back(*near);
        Skip(Error(k, child,
                   "unknown key '" + key + "'" +
                       (near ? "; did you mean '" + *near + "'?"
                             : " (expected one of: " + JoinWords(names, 100) + ")")));
        continue;
      }
      Record(v.IsNull() ? k : v, child);
      // A wrong value is reported with the rest, and its field left unset.
      if (Status st = FillField(v, msg, f, child); !st.ok()) {
        if (too_big_) return st;
        Skip(st);
        refused_->insert(child);
        msg->GetReflection()->ClearField(msg, f);
      }
    }
    // A key a misspelt one meant, and missing: no second error for it.
    for (const std::string& key : meant)
      if (!seen.count(key)) refused_->insert(JoinFieldPath(path, key));
    return Status::Ok();
  }

 private:
  static std::vector<std::string> FieldNames(const gp::Descriptor* desc,
                                             const gp::FieldDescriptor* skip) {
    std::vector<std::string> names;
    for (int i = 0; i < desc->field_count(); ++i)
      if (desc->field(i) != skip) names.push_back(desc->field(i)->name());
    return names;
  }

  // Every node the walk visits counts, an aliased one each time it is used.
  Status Count(const YAML::Node& n, const std::string& path) {
    if (++visited_ <= kMaxStudyNodes) return Status::Ok();
    too_big_ = true;
    return Error(n, path,
                 "the study expands to more than " + std::to_string(kMaxStudyNodes) +
                     " values (YAML aliases repeating large lists?); a study needs far fewer");
  }

  void Record(YAML::Node n, const std::string& path) {
    YAML::Mark m = n.Mark();
    if (m.line >= 0) source_->Record(path, m.line + 1, m.column + 1);
  }

  void Skip(const Status& error) { skipped_->push_back(error.message()); }

  Status Error(const YAML::Node& n, const std::string& path, const std::string& what) {
    YAML::Mark m = n.Mark();
    std::string where =
        source_->file() + ":" +
        (m.line >= 0 ? std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1)
                     : std::string("?"));
    return Status::InvalidArgument(where + ": " + (path.empty() ? "" : path + ": ") + what);
  }

  Status FillField(const YAML::Node& v, gp::Message* msg, const gp::FieldDescriptor* f,
                   const std::string& path) {
    RETURN_IF_ERROR(Count(v, path));
    const gp::Reflection* r = msg->GetReflection();
    if (!f->is_repeated()) {
      if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) {
        gp::Message* sub = r->MutableMessage(msg, f);
        if (f->message_type() == pb::Value::descriptor()) {
          return ReadValue(v, static_cast<pb::Value*>(sub), path);
        }
        // `time_limit: 2h` is `time_limit: {after: 2h}`.
        if (f->message_type() == pb::TimeLimit::descriptor() && v.IsScalar())
          return SetScalar(v, sub, pb::TimeLimit::descriptor()->FindFieldByNumber(1), path);
        return Fill(v, sub, path);
      }
      return SetScalar(v, msg, f, path);
    }
    // Repeated fields.
    if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE &&
        f->message_type() != pb::Value::descriptor()) {
      const gp::Descriptor* elem = f->message_type();
      const gp::FieldDescriptor* key_field = elem->FindFieldByNumber(1);
      if (v.IsMap() && key_field && key_field->type() == gp::FieldDescriptor::TYPE_STRING) {
        // Keyed shorthand: `parameters: {x1: {...}}`, `when: {optimizer: sgd}`.
        std::set<std::string> seen;
        for (auto it = v.begin(); it != v.end(); ++it) {
          if (!it->first.IsScalar()) return Error(it->first, path, "keys must be plain names");
          std::string key = it->first.Scalar();
          std::string child = JoinFieldPath(path, key);
          if (!seen.insert(key).second) {
            Skip(Error(it->first, child, "duplicate name '" + key + "'"));
            continue;
          }
          Record(it->first, child);
          gp::Message* e = r->AddMessage(msg, f);
          e->GetReflection()->SetString(e, key_field, key);
          YAML::Node body = it->second;
          if (elem->options().map_entry()) {
            // map<string, string>: `env: {OMP_NUM_THREADS: "1"}`.
            RETURN_IF_ERROR(Count(body, child));
            RETURN_IF_ERROR(SetScalar(body, e, elem->FindFieldByNumber(2), child));
          } else if (body.IsMap()) {
            RETURN_IF_ERROR(Fill(body, e, child, key_field));
          } else {
            const gp::FieldDescriptor* second = elem->FindFieldByNumber(2);
            if (second == nullptr || !second->is_repeated()) {
              return Error(body, child, std::string("expected a mapping, got ") + NodeKind(body));
            }
            RETURN_IF_ERROR(FillField(body, e, second, child));
          }
        }
        return Status::Ok();
      }
      if (!v.IsSequence())
        return Error(v, path, std::string("expected a mapping or list, got ") + NodeKind(v));
      for (size_t i = 0; i < v.size(); ++i) {
        RETURN_IF_ERROR(Fill(v[i], r->AddMessage(msg, f), path + "[" + std::to_string(i) + "]"));
      }
      return Status::Ok();
    }
    if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_STRING) {
      // A list of strings (argv): each item as written, never split.
      if (!v.IsSequence())
        return Error(v, path, std::string("expected a list of strings, got ") + NodeKind(v));
      for (size_t i = 0; i < v.size(); ++i) {
        std::string child = path + "[" + std::to_string(i) + "]";
        Record(v[i], child);
        RETURN_IF_ERROR(Count(v[i], child));
        if (v[i].IsMap())
          return Error(v[i], child,
                       "expected a string, got a mapping (quote a template: \"{name}\")");
        if (!v[i].IsScalar())
          return Error(v[i], child, std::string("expected a string, got ") + NodeKind(v[i]));
        r->AddString(msg, f, v[i].Scalar());
      }
      return Status::Ok();
    }
    // Repeated scalars or Values: a list, or one scalar as a list of one.
    std::vector<YAML::Node> items;
    if (v.IsSequence()) {
      for (size_t i = 0; i < v.size(); ++i) items.push_back(v[i]);
    } else if (v.IsScalar()) {
      items.push_back(v);
    } else if (!v.IsNull()) {
      return Error(v, path, std::string("expected a list, got ") + NodeKind(v));
    }
    for (size_t i = 0; i < items.size(); ++i) {
      std::string child = path + "[" + std::to_string(i) + "]";
      Record(items[i], child);
      if (f->message_type() == pb::Value::descriptor()) {
        RETURN_IF_ERROR(ReadValue(items[i], static_cast<pb::Value*>(r->AddMessage(msg, f)), child));
      } else {
        return Error(items[i], child, "repeated scalar fields are not supported");
      }
    }
    return Status::Ok();
  }

  Status ReadValue(const YAML::Node& v, pb::Value* out, const std::string& path) {
    RETURN_IF_ERROR(Count(v, path));
    if (!v.IsScalar()) {
      return Error(v, path,
                   std::string("expected a number, string or boolean, got ") + NodeKind(v));
    }
    const std::string& s = v.Scalar();
    if (!IsPlain(v)) {
      out->set_text(s);
      return Status::Ok();
    }
    bool b;
    int64_t i;
    double d;
    if (ParseBool(s, &b)) {
      out->set_flag(b);
    } else if (ParseInt(s, &i)) {
      out->set_integer(i);
    } else if (ParseDouble(s, &d)) {
      out->set_number(d);
    } else if (s == "~" || s == "null" || s.empty()) {
      return Error(v, path, "expected a value, got null");
    } else {
      out->set_text(s);
    }
    return Status::Ok();
  }

  Status SetScalar(const YAML::Node& v, gp::Message* msg, const gp::FieldDescriptor* f,
                   const std::string& path) {
    const gp::Reflection* r = msg->GetReflection();
    if (!v.IsScalar()) return Error(v, path, std::string("expected a scalar, got ") + NodeKind(v));
    const std::string& s = v.Scalar();
    bool plain = IsPlain(v);
    switch (f->cpp_type()) {
      case gp::FieldDescriptor::CPPTYPE_STRING:
        r->SetString(msg, f, s);
        return Status::Ok();
      case gp::FieldDescriptor::CPPTYPE_BOOL: {
        bool b;
        if (!plain || !ParseBool(s, &b))
          return Error(v, path, "expected true or false, got '" + s + "'");
        r->SetBool(msg, f, b);
        return Status::Ok();
      }
      case gp::FieldDescriptor::CPPTYPE_DOUBLE:
      case gp::FieldDescriptor::CPPTYPE_FLOAT: {
        double d;
        if (!plain || !ParseDouble(s, &d))
          return Error(v, path, "expected a number, got '" + s + "'");
        if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_DOUBLE)
          r->SetDouble(msg, f, d);
        else
          r->SetFloat(msg, f, static_cast<float>(d));
        return Status::Ok();
      }
      case gp::FieldDescriptor::CPPTYPE_INT32:
      case gp::FieldDescriptor::CPPTYPE_INT64:
      case gp::FieldDescriptor::CPPTYPE_UINT32:
      case gp::FieldDescriptor::CPPTYPE_UINT64: {
        int64_t i;
        if (!plain || !ParseInt(s, &i))
          return Error(v, path, "expected an integer, got '" + s + "'");
        bool is_unsigned = f->cpp_type() == gp::FieldDescriptor::CPPTYPE_UINT32 ||
                           f->cpp_type() == gp::FieldDescriptor::CPPTYPE_UINT64;
        bool is32 = f->cpp_type() == gp::FieldDescriptor::CPPTYPE_INT32 ||
                    f->cpp_type() == gp::FieldDescriptor::CPPTYPE_UINT32;
        if (is_unsigned && i < 0) return Error(v, path, "must not be negative, got " + s);
        if (is32 && (i > INT32_MAX || i < INT32_MIN))
          return Error(v, path, "is out of range: " + s);
        switch (f->cpp_type()) {
          case gp::FieldDescriptor::CPPTYPE_INT32:
            r->SetInt32(msg, f, static_cast<int32_t>(i));
            break;
          case gp::FieldDescriptor::CPPTYPE_INT64:
            r->SetInt64(msg, f, i);
            break;
          case gp::FieldDescriptor::CPPTYPE_UINT32:
            r->SetUInt32(msg, f, static_cast<uint32_t>(i));
            break;
          default:
            r->SetUInt64(msg, f, static_cast<uint64_t>(i));
            break;
        }
        return Status::Ok();
      }
      case gp::FieldDescriptor::CPPTYPE_ENUM: {
        const gp::EnumDescriptor* e = f->enum_type();
        std::vector<std::string> names;
        for (int i = 0; i < e->value_count(); ++i) {
          const gp::EnumValueDescriptor* ev = e->value(i);
          if (ev->number() == 0) continue;
          std::string shortname = EnumShortName(ev);
          if (shortname == s) {
            r->SetEnum(msg, f, ev);
            return Status::Ok();
          }
          names.push_back(shortname);
        }
        return Error(v, path,
                     "unknown value '" + s + "'" + DidYouMean(s, names) +
                         " (expected one of: " + JoinWords(names, 100) + ")");
      }
      default:
        return Error(v, path, "unsupported field type");
    }
  }

  SourceMap* source_;
  std::vector<std::string>* skipped_;
  std::set<std::string>* refused_;
  int64_t visited_ = 0;
  bool too_big_ = false;  // Count's limit: the walk stops there
};

}  // namespace

Result<ParsedStudy> ParseStudyYaml(const std::string& text, const std::string& filename) {
  ParsedStudy out{pb::Study(), SourceMap(filename), {}, {}};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(filename + ":" + std::to_string(e.mark.line + 1) + ":" +
                                   std::to_string(e.mark.column + 1) + ": invalid YAML: " + e.msg);
  }
  if (!root.IsMap()) {
    return Status::InvalidArgument(filename + ":" + std::to_string(root.Mark().line + 1) + ":" +
                                   std::to_string(root.Mark().column + 1) +
                                   ": a study must be a mapping of keys to values");
  }
  out.source.Record("", root.Mark().line + 1, root.Mark().column + 1);
  YamlReader reader(&out.source, &out.skipped, &out.refused);
  RETURN_IF_ERROR(reader.Fill(root, &out.study, ""));
  return out;
}

}  // namespace sweep
