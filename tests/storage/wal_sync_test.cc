// The WAL's sync thread (storage/wal_sync.h) and the Store's two commits:
// tickets grow, each becomes durable, the event fd wakes a poller, a failed
// sync is final, and a commit that did not wait is durable once its ticket
// is (a fresh connection, as after a crash of the process, reads it back).
#include "storage/wal_sync.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "e2e/harness.h"
#include "storage/store_fixture.h"

namespace sweep {
namespace {

using WalSyncTest = StoreFixture;

bool Readable(int fd, int timeout_ms) {
  pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

TEST_F(WalSyncTest, TicketsGrowAndEachBecomesDurableAndWakesThePoller) {
  // Files of our own: the thread syncs whatever is at db and db-wal.
  std::string db = (dir_ / "w.db").string();
  for (const std::string& path : {db, db + "-wal"}) {
    FILE* f = fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fputs("bytes", f);
    fclose(f);
  }
  int db_fd = open(db.c_str(), O_RDWR);
  ASSERT_GE(db_fd, 0);
  auto w = WalSync::Start(db_fd, db + "-wal");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ((*w)->durable(), 0u);
  EXPECT_FALSE(Readable((*w)->fd(), 0));
  uint64_t a = (*w)->Request();
  uint64_t b = (*w)->Request();
  EXPECT_EQ(a, 1u);
  EXPECT_EQ(b, 2u);
  EXPECT_EQ((*w)->requested(), 2u);
  Status st = (*w)->Wait(b);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_GE((*w)->durable(), b);
  EXPECT_FALSE((*w)->Syncing());
  EXPECT_TRUE(Readable((*w)->fd(), 1000));
  (*w)->Drain();
  EXPECT_FALSE(Readable((*w)->fd(), 0));
  EXPECT_TRUE((*w)->error().ok());
  w->reset();
  close(db_fd);
}

TEST_F(WalSyncTest, AFailedSyncIsFinal) {
  // Something at db-wal that cannot be opened: a Unix socket (ENXIO).
  std::string db = (dir_ / "s.db").string();
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  std::string path = db + "-wal";
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::strcpy(addr.sun_path, path.c_str());
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << strerror(errno);
  auto w = WalSync::Start(-1, db + "-wal");  // never reached: the WAL fails first
  ASSERT_TRUE(w.ok());
  Status st = (*w)->Wait((*w)->Request());
  EXPECT_EQ(st.code(), StatusCode::kIOError) << st.message();
  EXPECT_NE(st.message().find("open " + path), std::string::npos) << st.message();
  EXPECT_TRUE(Readable((*w)->fd(), 1000));  // the poller hears of it too
  EXPECT_EQ((*w)->error().code(), StatusCode::kIOError);
  // Nothing later is trusted either.
  EXPECT_FALSE((*w)->Wait((*w)->Request()).ok());
  EXPECT_EQ((*w)->durable(), 0u);
  close(s);
}

TEST_F(WalSyncTest, ACommitThatDidNotWaitIsDurableOnceItsTicketIs) {
  auto s = Store::Open(db_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE((*s)->Begin().ok());
  auto id = (*s)->OpenStudy(study_);
  ASSERT_TRUE(id.ok()) << id.status().message();
  ASSERT_TRUE((*s)->Commit().ok());
  WalSync* sync = (*s)->durability();
  uint64_t before = sync->requested();
  EXPECT_GE(before, 1u);
  EXPECT_EQ(sync->durable(), before);  // Commit waited
  ASSERT_TRUE((*s)->Begin().ok());
  ASSERT_TRUE((*s)->InsertTrial(*id, 0, Params(0.5), "{\"x1\": 0.5}", 1.0).ok());
  auto ticket = (*s)->CommitNoWait();
  ASSERT_TRUE(ticket.ok()) << ticket.status().message();
  EXPECT_EQ(*ticket, before + 1);
  // Without an open transaction, the latest commit's ticket.
  auto again = (*s)->CommitNoWait();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *ticket);
  ASSERT_TRUE(sync->Wait(*ticket).ok());
  EXPECT_GE(sync->durable(), *ticket);
  // Another connection sees the row (a reader, or the next tuner after a
  // crash of this one).
  EXPECT_EQ(e2e::QueryInt(db_, "SELECT count(*) FROM trials"), 1);
}

TEST_F(WalSyncTest, ASymlinkedDatabaseIsSyncedWhereItsWalIs) {
  // SQLite follows the link: the WAL lies beside the real file, and that is
  // the one that must reach the disk.
  std::filesystem::create_directories(dir_ / "real");
  std::string real = (dir_ / "real" / "r.db").string(), link = (dir_ / "link.db").string();
  {
    auto s = Store::Open(real);
    ASSERT_TRUE(s.ok()) << s.status().message();
  }
  std::filesystem::create_symlink(real, link);
  auto s = Store::Open(link);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE((*s)->Begin().ok());
  auto id = (*s)->OpenStudy(study_);
  ASSERT_TRUE(id.ok()) << id.status().message();
  Status st = (*s)->Commit();
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_TRUE(std::filesystem::exists(real + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(link + "-wal"));
  EXPECT_GE((*s)->durability()->durable(), 1u);
}

TEST_F(WalSyncTest, ANewDatabaseIsMadeWithoutSyncsAndThenSyncedAsUsual) {
  // Made with synchronous=OFF; left at OFF, checkpoints would copy pages
  // into the database file without syncing it before reusing the WAL.
  std::string path = (dir_ / "new.db").string();
  auto s = Store::Open(path);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto mode = Stmt::Prepare((*s)->db(), "PRAGMA synchronous");
  ASSERT_TRUE(mode.ok());
  auto row = mode->Step();
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_EQ(mode->Int(0), 1) << "not synchronous=NORMAL";
  mode = Stmt();
  // The schema's sync was asked for, and it ends.
  WalSync* w = (*s)->durability();
  ASSERT_GE(w->requested(), 1u);
  Status st = w->Wait(w->requested());
  EXPECT_TRUE(st.ok()) << st.message();
}

}  // namespace
}  // namespace sweep
