// A study file from disk: refused unless it is a regular file of at most
// 1 MiB (checked on the open descriptor, before reading), then read by the
// parser its extension names.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "common/posix_error.h"
#include "search_spaces/study_parser.h"

namespace sweep {

namespace {

// A study is a few kilobytes; the cap stops a hostile file before it is read.
constexpr size_t kMaxStudyBytes = 1 << 20;

}  // namespace

Result<ParsedStudy> LoadStudyFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer. The checks use the
  // opened descriptor, so the file cannot be swapped between them.
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return PosixError(path + ": cannot open study file", errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return PosixError(path + ": cannot stat study file", err);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return Status::InvalidArgument(path + ": a study file must be a regular file, this is " + kind);
  }
  auto too_large = [&] {
    return Status::InvalidArgument(path + ": study file is larger than " +
                                   std::to_string(kMaxStudyBytes) + " bytes");
  };
  if (static_cast<uint64_t>(st.st_size) > kMaxStudyBytes) {
    close(fd);
    return too_large();
  }
  // Read at most one byte past the cap, in case the file grew since fstat.
  std::string text;
  char buf[1 << 16];
  while (text.size() <= kMaxStudyBytes) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      return PosixError(path + ": cannot read study file", err);
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (text.size() > kMaxStudyBytes) return too_large();
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
