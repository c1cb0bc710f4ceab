// CURVE key pairs and key files.
#include "common/curve_keys.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <cerrno>
#include <sstream>

#include "common/posix_error.h"
#include "common/small_file.h"

namespace sweep {

namespace {

constexpr size_t kZ85KeyLength = 40;
constexpr size_t kMaxKeyFileBytes = 4096;

bool IsZ85Key(const std::string& k) {
  if (k.size() != kZ85KeyLength) return false;
  uint8_t raw[32];
  return zmq_z85_decode(raw, k.c_str()) != nullptr;
}

// A key file that is a symlink is refused, not followed, as every file
// in a key folder; the cap stops a hostile file before it is read.
Result<std::string> ReadKeyFile(const std::string& path, bool secret) {
  ASSIGN_OR_RETURN(CheckedFile file, CheckedFile::Open(path, {.what = "key file",
                                                              .max_bytes = kMaxKeyFileBytes,
                                                              .follow_symlinks = false}));
  const struct stat& st = file.stat();
  if (secret && ((st.st_mode & 077) != 0 || st.st_uid != geteuid())) {
    return Status::FailedPrecondition(
        path + ": a secret key file must be yours and readable by you alone (chmod 600 " + path +
        ")");
  }
  return file.ReadAll();
}

Status WriteNew(const std::string& path, const std::string& text, mode_t mode) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    if (errno == EEXIST)
      return Status::FailedPrecondition(path + " exists; remove it first or pick another name");
    return PosixError("create", path, errno);
  }
  ssize_t n = write(fd, text.data(), text.size());
  int err = errno;
  if (n != static_cast<ssize_t>(text.size()) || fsync(fd) != 0) {
    if (n >= 0) err = errno ? errno : EIO;
    close(fd);
    unlink(path.c_str());
    return PosixError("write", path, err);
  }
  if (close(fd) != 0) return PosixError("close", path, errno);
  return Status::Ok();
}

}  // namespace

Result<CurveKeyPair> NewCurveKeyPair() {
  char pub[41], sec[41];
  if (zmq_curve_keypair(pub, sec) != 0) {
    return Status::Unavailable(
        "this libzmq cannot make CURVE keys (built without libsodium); runners cannot be "
        "authenticated");
  }
  return CurveKeyPair{pub, sec};
}

std::string FormatCurveKeys(const CurveKeyPair& keys, bool with_secret) {
  std::string out = "public-key = " + keys.public_key + "\n";
  if (with_secret) out += "secret-key = " + keys.secret_key + "\n";
  return out;
}

namespace {

// The value of the `name = value` line, or "".
std::string KeyLine(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  auto trim = [](const std::string& s) {
    size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
  };
  while (std::getline(in, line)) {
    size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    if (trim(line.substr(0, eq)) == name) return trim(line.substr(eq + 1));
  }
  return "";
}

}  // namespace

Result<CurveKeyPair> ParseCurveKeys(const std::string& text, const std::string& what,
                                    bool need_secret) {
  CurveKeyPair k{KeyLine(text, "public-key"), KeyLine(text, "secret-key")};
  if (!IsZ85Key(k.public_key))
    return Status::InvalidArgument(what + ": no valid 'public-key = ...' line (40 Z85 characters)");
  if (need_secret && !IsZ85Key(k.secret_key))
    return Status::InvalidArgument(what + ": no valid 'secret-key = ...' line (40 Z85 characters)");
  return k;
}

Result<std::string> ParseCurveServerKey(const std::string& text, const std::string& what) {
  std::string k = KeyLine(text, "server-key");
  if (!IsZ85Key(k))
    return Status::InvalidArgument(what + ": no valid 'server-key = ...' line (40 Z85 characters)");
  return k;
}

Result<std::string> WriteCurveKeyFiles(const std::string& dir, const std::string& name,
                                       const CurveKeyPair& keys) {
  if (name.empty() || name.find('/') != std::string::npos || name[0] == '.')
    return Status::InvalidArgument("key name '" + name + "' must be a plain file name");
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return PosixError("mkdir", dir, errno);
  std::string key = dir + "/" + name + ".key", pub = dir + "/" + name + ".pub";
  RETURN_IF_ERROR(WriteNew(
      key, "# sweep CURVE key pair: keep this file secret\n" + FormatCurveKeys(keys, true), 0600));
  Status st = WriteNew(pub, FormatCurveKeys(keys, false), 0644);
  if (!st.ok()) {
    unlink(key.c_str());
    return st;
  }
  return key;
}

Result<CurveKeyPair> ReadCurveSecretFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadKeyFile(path, true));
  return ParseCurveKeys(text, path, true);
}

Result<std::string> ReadCurvePublicFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadKeyFile(path, false));
  ASSIGN_OR_RETURN(CurveKeyPair k, ParseCurveKeys(text, path, false));
  return k.public_key;
}

Result<std::set<std::string>> ReadCurveAllowList(const std::string& dir,
                                                 const std::string& except) {
  ASSIGN_OR_RETURN(auto named, ReadCurveNamedKeys(dir, except));
  std::set<std::string> keys;
  for (const auto& [key, name] : named) keys.insert(key);
  return keys;
}

Result<std::map<std::string, std::string>> ReadCurveNamedKeys(const std::string& dir,
                                                              const std::string& except) {
  // Whoever can add a file here can admit a runner: the folder must be
  // ours, a real folder, and writable by us alone.
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return PosixError("open", dir, errno);
  struct stat st_dir;
  if (fstat(fd, &st_dir) != 0 || st_dir.st_uid != geteuid() || (st_dir.st_mode & 022) != 0) {
    close(fd);
    return Status::FailedPrecondition(
        dir + ": a key folder must be yours and writable by you alone (chmod 700 " + dir +
        "), since any .pub file in it admits a runner");
  }
  DIR* d = fdopendir(fd);
  if (!d) {
    int err = errno;
    close(fd);
    return PosixError("opendir", dir, err);
  }
  std::map<std::string, std::string> keys;
  Status st;
  while (dirent* e = readdir(d)) {
    std::string f = e->d_name;
    if (f.size() < 5 || f.compare(f.size() - 4, 4, ".pub") != 0 || f == except) continue;
    auto k = ReadCurvePublicFile(dir + "/" + f);
    if (!k.ok()) {
      st = k.status();
      break;
    }
    keys.emplace(*k, f.substr(0, f.size() - 4));
  }
  closedir(d);
  RETURN_IF_ERROR(st);
  return keys;
}

}  // namespace sweep
