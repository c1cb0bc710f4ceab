// The WAL's sync thread: see wal_sync.h.
#include "storage/wal_sync.h"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/posix_error.h"

namespace sweep {

Result<std::unique_ptr<WalSync>> WalSync::Start(int db_fd, const std::string& wal_path) {
  std::string dir = ".";
  size_t slash = wal_path.rfind('/');
  if (slash != std::string::npos) dir = slash == 0 ? "/" : wal_path.substr(0, slash);
  std::unique_ptr<WalSync> w(new WalSync(db_fd, wal_path, dir));
  w->event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (w->event_fd_ < 0) return PosixError("eventfd", "for syncing " + w->wal_path_, errno);
  w->thread_ = std::thread([p = w.get()] { p->Loop(); });
  return w;
}

WalSync::WalSync(int db_fd, std::string wal_path, std::string dir)
    : db_fd_(db_fd), wal_path_(std::move(wal_path)), dir_(std::move(dir)) {}

WalSync::~WalSync() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (wal_fd_ >= 0) close(wal_fd_);
  if (event_fd_ >= 0) close(event_fd_);
}

uint64_t WalSync::Request() {
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ticket = ++requested_;
  }
  work_.notify_one();
  return ticket;
}

uint64_t WalSync::durable() const {
  std::lock_guard<std::mutex> lock(mu_);
  return durable_;
}

uint64_t WalSync::requested() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requested_;
}

bool WalSync::Syncing() const {
  std::lock_guard<std::mutex> lock(mu_);
  return durable_ < requested_;
}

Status WalSync::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

void WalSync::Drain() {
  uint64_t n;
  ssize_t ignored = read(event_fd_, &n, sizeof n);
  (void)ignored;
}

Status WalSync::Wait(uint64_t ticket) {
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [&] { return durable_ >= ticket || !error_.ok(); });
  return durable_ >= ticket ? Status::Ok() : error_;
}

void WalSync::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_.wait(lock, [&] { return stop_ || requested_ > durable_; });
    if (requested_ <= durable_ || !error_.ok()) {
      if (stop_) return;
      if (!error_.ok()) {  // nothing more can be made durable
        work_.wait(lock, [&] { return stop_; });
        return;
      }
      continue;
    }
    // Every commit before this ticket's Request is in the WAL file already:
    // the fdatasync that starts now covers them all.
    uint64_t target = requested_;
    lock.unlock();
    Status st = SyncOnce();
    lock.lock();
    if (st.ok()) {
      durable_ = target;
    } else {
      error_ = st;
    }
    done_.notify_all();
    uint64_t one = 1;
    ssize_t ignored = write(event_fd_, &one, sizeof one);
    (void)ignored;
  }
}

Status WalSync::SyncOnce() {
  struct stat at_path, open_file;
  // SQLite makes the WAL when it opens the database in WAL mode, before any
  // commit: a WAL that is not there is an error, never "nothing to sync".
  if (stat(wal_path_.c_str(), &at_path) != 0) return PosixError("stat", wal_path_, errno);
  if (wal_fd_ >= 0 && (fstat(wal_fd_, &open_file) != 0 || open_file.st_ino != at_path.st_ino ||
                       open_file.st_dev != at_path.st_dev)) {
    close(wal_fd_);
    wal_fd_ = -1;
  }
  if (wal_fd_ < 0) {
    wal_fd_ = open(wal_path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (wal_fd_ < 0) return PosixError("open", wal_path_, errno);
    // A new file's name must survive a crash too, and so must the database
    // file's header (the WAL is read only when it says WAL mode).
    if (fsync(db_fd_) != 0) return PosixError("fsync", "the database file", errno);
    int fd = open(dir_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return PosixError("open", dir_, errno);
    int rc = fsync(fd);
    int err = errno;
    close(fd);
    if (rc != 0) return PosixError("fsync", dir_, err);
  }
  if (fdatasync(wal_fd_) != 0) return PosixError("fdatasync", wal_path_, errno);
  return Status::Ok();
}

}  // namespace sweep
