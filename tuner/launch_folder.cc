// The launcher's folder (see launch_folder.h).
#include "tuner/launch_folder.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "common/curve_keys.h"
#include "common/posix_error.h"
#include "common/rng.h"

namespace sweep::assets {
extern const unsigned char kAsset_sweep_runners_sbatch[];
extern const size_t kAsset_sweep_runners_sbatch_size;
}  // namespace sweep::assets

namespace sweep {

namespace {

// Writes `path` whole, replacing what was there (a new file renamed over it).
Status WriteReplacing(const std::string& path, const std::string& text, mode_t mode) {
  const std::string tmp = path + ".tmp";
  unlink(tmp.c_str());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return PosixError("open", tmp, errno);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      int e = errno;
      close(fd);
      unlink(tmp.c_str());
      return PosixError("write", tmp, e);
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return PosixError("close", tmp, errno);
  if (rename(tmp.c_str(), path.c_str()) != 0) return PosixError("rename", tmp, errno);
  return Status::Ok();
}

std::string Home() {
  const char* home = getenv("HOME");
  if (home && *home) return home;
  struct passwd* pw = getpwuid(getuid());
  return pw && pw->pw_dir ? pw->pw_dir : "/tmp";
}

std::string UserName() {
  struct passwd* pw = getpwuid(getuid());
  return pw && pw->pw_name ? pw->pw_name : std::to_string(getuid());
}

// STEM-HASH: the database's file stem and a hash of its absolute path, so
// that two services of one user never share jobs or keys.
std::string ServiceTag(const std::string& db_path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(db_path, ec);
  const std::string full = ec ? db_path : abs.lexically_normal().string();
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : full) h = (h ^ c) * 1099511628211ull;
  char hash[9];
  snprintf(hash, sizeof hash, "%08x", static_cast<unsigned>(SplitMix64(h)));
  std::string stem;
  for (char c : std::filesystem::path(db_path).stem().string())
    stem += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return stem.substr(0, 32) + "-" + hash;
}

}  // namespace

std::string DefaultLaunchFolder(const std::string& db_path) {
  return Home() + "/.sweep/slurm/" + ServiceTag(db_path);
}

std::string LaunchJobName(const std::string& db_path) {
  return "sweep-" + UserName() + "-" + ServiceTag(db_path);
}

Result<LaunchFolder> PrepareLaunchFolder(const std::string& dir,
                                         const std::string& server_public_key) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) return Status::IOError("cannot make the launch folder " + dir + ": " + ec.message());
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return PosixError("mkdir", dir, errno);
  // A folder made before is taken only as this user's alone: its mode is
  // never changed (a --launch-dir of ~ must not be made private).
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) return PosixError("stat", dir, errno);
  if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) != 0)
    return Status::FailedPrecondition(
        "the launch folder " + dir +
        " must be a folder of yours that nobody else may enter (mode 0700): it holds the "
        "runners' key (choose another with --launch-dir)");
  LaunchFolder f;
  f.dir = dir;
  f.runner_key = dir + "/runner.key";
  f.server_key = dir + "/tuner.pub";
  f.script = dir + "/sweep-runners.sbatch";
  f.logs = dir + "/logs";
  if (access(f.runner_key.c_str(), F_OK) != 0) {
    unlink((dir + "/runner.pub").c_str());  // a half-made pair's
    ASSIGN_OR_RETURN(CurveKeyPair k, NewCurveKeyPair());
    RETURN_IF_ERROR(WriteCurveKeyFiles(dir, "runner", k).status());
  }
  ASSIGN_OR_RETURN(CurveKeyPair runner, ReadCurveSecretFile(f.runner_key));
  f.runner_public_key = runner.public_key;
  RETURN_IF_ERROR(WriteReplacing(
      f.server_key, FormatCurveKeys(CurveKeyPair{server_public_key, ""}, false), 0644));
  RETURN_IF_ERROR(
      WriteReplacing(f.script,
                     std::string(reinterpret_cast<const char*>(assets::kAsset_sweep_runners_sbatch),
                                 assets::kAsset_sweep_runners_sbatch_size),
                     0700));
  if (mkdir(f.logs.c_str(), 0700) != 0 && errno != EEXIST)
    return PosixError("mkdir", f.logs, errno);
  return f;
}

}  // namespace sweep
