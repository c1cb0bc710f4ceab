// A study file from disk: refused unless it is a regular file of at most
// 1 MiB (checked on the open descriptor, before reading: common/small_file.h),
// then read by the parser its extension names.
#include <filesystem>

#include "common/small_file.h"
#include "search_spaces/study_parser.h"

namespace sweep {

namespace {

// A study is a few kilobytes; the cap stops a hostile file before it is read.
constexpr size_t kMaxStudyBytes = 1 << 20;

}  // namespace

Result<ParsedStudy> LoadStudyFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text,
                   ReadSmallFile(path, {.what = "study file", .max_bytes = kMaxStudyBytes}));
  auto ends_with = [&](const char* ext) {
    std::string e(ext);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  auto parsed = ends_with(".pbtxt") || ends_with(".textproto") || ends_with(".txtpb")
                    ? ParseStudyTextProto(text, path)
                    : ParseStudyYaml(text, path);
  if (!parsed.ok()) return parsed;
  // A command's workdir and task.train.data's files are taken from the
  // study file's folder (data_dir is not: it names an installed data set).
  std::error_code ec;
  const auto folder = std::filesystem::absolute(std::filesystem::path(path).has_parent_path()
                                                    ? std::filesystem::path(path).parent_path()
                                                    : std::filesystem::path("."),
                                                ec);
  auto from_folder = [&](std::string* p) {
    std::filesystem::path f(*p);
    if (!ec && f.is_relative()) *p = (folder / f).lexically_normal().string();
    if (p->size() > 1 && p->back() == '/') p->pop_back();
  };
  pb::Task* task = parsed->study.mutable_task();
  if (task->has_command()) {
    pb::CommandTask* c = task->mutable_command();
    if (!c->has_workdir()) c->set_workdir(".");
    from_folder(c->mutable_workdir());
  }
  if (task->has_train() && task->train().has_data()) {
    pb::TrainData* d = task->mutable_train()->mutable_data();
    // (mutable_x() would mark an unset field as set: only set ones are touched.)
    if (d->has_csv()) {
      pb::CsvData* c = d->mutable_csv();
      if (c->has_train()) from_folder(c->mutable_train());
      if (c->has_test()) from_folder(c->mutable_test());
      if (c->has_train_labels()) from_folder(c->mutable_train_labels());
      if (c->has_test_labels()) from_folder(c->mutable_test_labels());
    }
    if (d->has_npy()) {
      pb::NpyData* n = d->mutable_npy();
      if (n->has_train_x()) from_folder(n->mutable_train_x());
      if (n->has_train_y()) from_folder(n->mutable_train_y());
      if (n->has_test_x()) from_folder(n->mutable_test_x());
      if (n->has_test_y()) from_folder(n->mutable_test_y());
    }
  }
  return parsed;
}

}  // namespace sweep
