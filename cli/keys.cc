// `sweep keys new`, and the key files of `sweep runner`.
#include "cli/keys.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "cli/commands.h"
#include "common/curve_keys.h"
#include "common/posix_error.h"

namespace sweep {

namespace {

// Everything a descriptor holds, then closes it (a local runner's keys).
Result<std::string> ReadDescriptor(int fd) {
  std::string text;
  char buf[512];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0 && text.size() < 4096) text.append(buf, n);
  int err = errno;
  close(fd);
  if (n < 0) return PosixError("read", "key descriptor " + std::to_string(fd), err);
  return text;
}

}  // namespace

int KeysNew(const std::string& name, const std::string& keys_dir, const std::string& role) {
  // A role's keys go into its folder of the service's --keys folder.
  const std::string dir = role.empty() ? keys_dir : keys_dir + "/" + role + "s";
  if (!role.empty() && mkdir(keys_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    fprintf(stderr, "sweep: %s\n", PosixError("mkdir", keys_dir, errno).message().c_str());
    return 1;
  }
  auto keys = NewCurveKeyPair();
  Result<std::string> path =
      keys.ok() ? WriteCurveKeyFiles(dir, name, *keys) : Result<std::string>(keys.status());
  if (!path.ok()) {
    fprintf(stderr, "sweep: %s\n", path.status().message().c_str());
    return 1;
  }
  printf("wrote %s (secret: keep it on this machine, mode 0600) and %s/%s.pub (public)\n",
         path->c_str(), dir.c_str(), name.c_str());
  if (role == "client" || role == "admin") {
    printf(
        "a %s of the service with --keys %s: sweep submit STUDY --server tcp://HOST:PORT "
        "--server-key %s/tuner.pub --key %s\n",
        role.c_str(), keys_dir.c_str(), keys_dir.c_str(), path->c_str());
  } else if (name == "tuner") {
    printf("a tuner: sweep run STUDY --bind tcp://0.0.0.0:5555 --keys %s\n", dir.c_str());
    printf("  (it admits the runners whose NAME.pub files are in %s)\n", dir.c_str());
  } else {
    printf("a runner: copy %s/%s.pub into the tuner's --keys folder, then\n", dir.c_str(),
           name.c_str());
    printf("  sweep runner --connect tcp://HOST:5555 --server-key tuner.pub --key %s\n",
           path->c_str());
    printf("  (add --allow-commands where its studies run your own program: task.command)\n");
  }
  return 0;
}

Status LoadRunnerKeys(const std::string& server_key_file, const std::string& key_file, int key_fd,
                      RunnerOptions* o) {
  if (key_fd >= 0) {
    ASSIGN_OR_RETURN(std::string text, ReadDescriptor(key_fd));
    ASSIGN_OR_RETURN(o->server_key, ParseCurveServerKey(text, "key descriptor"));
    ASSIGN_OR_RETURN(CurveKeyPair k, ParseCurveKeys(text, "key descriptor", true));
    o->keys = k;
    return Status::Ok();
  }
  if (server_key_file.empty() != key_file.empty()) {
    return Status::InvalidArgument(
        "--server-key (the tuner's public key) and --key (this runner's key file) go together");
  }
  if (key_file.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(o->server_key, ReadCurvePublicFile(server_key_file));
  ASSIGN_OR_RETURN(CurveKeyPair k, ReadCurveSecretFile(key_file));
  o->keys = k;
  return Status::Ok();
}

namespace {

class KeysCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("keys", "Make CURVE keys for a tuner and its runners");
    c->require_subcommand(1);
    new_ = c->add_subcommand("new", "Write NAME.key (secret) and NAME.pub");
    new_->add_option("name", name_, "tuner, or a runner's name")->required();
    new_->add_option("--dir", dir_, "Folder for the key files")->capture_default_str();
    new_->add_option("--role", role_,
                     "For a service's --keys folder: client (submits and acts on its own "
                     "studies), admin (acts on any study) or runner; the key goes into "
                     "DIR/clients, DIR/admins or DIR/runners")
        ->check(CLI::IsMember({"client", "runner", "admin"}));
    return c;
  }
  int Run(const CommandContext&) override {
    return new_->parsed() ? KeysNew(name_, dir_, role_) : 0;
  }

 private:
  CLI::App* new_ = nullptr;
  std::string name_, dir_ = ".", role_;
};

}  // namespace

std::unique_ptr<Command> NewKeysCommand() { return std::make_unique<KeysCommand>(); }

}  // namespace sweep
