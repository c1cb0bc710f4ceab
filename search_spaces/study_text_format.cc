// The protobuf text-format study reader: the Study message as protobuf
// parses it, with every field's location recorded under the paths the YAML
// reader uses, so validation errors point at the same place in either syntax.
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "search_spaces/study_parser.h"

namespace sweep {

namespace gp = google::protobuf;

namespace {

// Records text-format locations under the same paths the YAML reader uses.
void RecordTextLocations(const gp::Message& msg, const gp::TextFormat::ParseInfoTree* tree,
                         const std::string& path, SourceMap* source) {
  const gp::Reflection* r = msg.GetReflection();
  std::vector<const gp::FieldDescriptor*> fields;
  r->ListFields(msg, &fields);
  for (const gp::FieldDescriptor* f : fields) {
    int count = f->is_repeated() ? r->FieldSize(msg, f) : 1;
    for (int i = 0; i < count; ++i) {
      int index = f->is_repeated() ? i : -1;
      std::string child = JoinFieldPath(path, f->name());
      if (f->is_repeated()) {
        bool keyed = false;
        if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) {
          const gp::Message& e = r->GetRepeatedMessage(msg, f, i);
          const gp::FieldDescriptor* k = e.GetDescriptor()->FindFieldByNumber(1);
          if (k && k->type() == gp::FieldDescriptor::TYPE_STRING &&
              e.GetDescriptor() != pb::Value::descriptor()) {
            child = JoinFieldPath(child, e.GetReflection()->GetString(e, k));
            keyed = true;
          }
        }
        if (!keyed) child += "[" + std::to_string(i) + "]";
      }
      gp::TextFormat::ParseLocation loc = tree->GetLocation(f, index);
      if (loc.line >= 0) source->Record(child, loc.line + 1, loc.column + 1);
      if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) {
        const gp::Message& sub =
            f->is_repeated() ? r->GetRepeatedMessage(msg, f, i) : r->GetMessage(msg, f);
        const gp::TextFormat::ParseInfoTree* subtree = tree->GetTreeForNested(f, index);
        if (subtree) RecordTextLocations(sub, subtree, child, source);
      }
    }
  }
}

class TextErrors : public gp::io::ErrorCollector {
 public:
  explicit TextErrors(std::string file) : file_(std::move(file)) {}
  void AddError(int line, gp::io::ColumnNumber column, const std::string& message) override {
    if (first_.empty()) {
      first_ = file_ + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " +
               message;
    }
  }
  const std::string& first() const { return first_; }

 private:
  std::string file_;
  std::string first_;
};

}  // namespace

Result<ParsedStudy> ParseStudyTextProto(const std::string& text, const std::string& filename) {
  ParsedStudy out{pb::Study(), SourceMap(filename), {}, {}};
  gp::TextFormat::Parser parser;
  gp::TextFormat::ParseInfoTree tree;
  TextErrors errors(filename);
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(text, &out.study)) {
    return Status::InvalidArgument(errors.first().empty() ? filename + ": invalid text format"
                                                          : errors.first());
  }
  RecordTextLocations(out.study, &tree, "", &out.source);
  return out;
}

}  // namespace sweep
