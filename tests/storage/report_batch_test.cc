// Reports are buffered and written many rows per statement: every one is in
// the database after the commit, none after a rollback, and a re-sent report
// (same trial, attempt, step and metric: a step run again within one
// attempt) keeps the first, the report the algorithm judged.
#include <gtest/gtest.h>

#include "e2e/harness.h"
#include "storage/store_fixture.h"

namespace sweep {
namespace {

using ReportBatchTest = StoreFixture;

TEST_F(ReportBatchTest, EveryReportIsCommittedWhateverTheBatchSize) {
  std::string db = db_;
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok()) << store.status().message();
  Store& s = **store;
  auto study = s.OpenStudy(study_);
  ASSERT_TRUE(study.ok()) << study.status().message();
  ASSERT_TRUE(s.Begin().ok());
  pb::ParamSet ps;
  auto id = s.InsertRunningTrial(*study, 0, ps, "{}", "r0", 7, 1.0);
  ASSERT_TRUE(id.ok()) << id.status().message();
  // 32 + 32 + 7 rows: two full batches and a remainder.
  for (int step = 1; step <= 71; ++step)
    ASSERT_TRUE(s.InsertReport(*id, 1, step, "value", step * 0.5, 1.0).ok());
  ASSERT_TRUE(s.InsertReport(*id, 1, 3, "value", 99.0, 5.0).ok());  // step 3 again
  ASSERT_TRUE(s.Commit().ok());
  EXPECT_EQ(e2e::QueryInt(db, "SELECT count(*) FROM reports"), 71);
  EXPECT_EQ(e2e::QueryInt(db, "SELECT CAST(value * 2 AS INTEGER) FROM reports WHERE step=3"), 3);
  EXPECT_EQ(e2e::QueryInt(db, "SELECT CAST(at AS INTEGER) FROM reports WHERE step=3"), 1);
  EXPECT_EQ(e2e::QueryInt(db, "SELECT CAST(sum(value) * 2 AS INTEGER) FROM reports"), 71 * 72 / 2);
  EXPECT_EQ(e2e::QueryInt(db, "SELECT attempts FROM trials WHERE status='running' AND lease=7"), 1);
  // Buffered rows of a transaction that is rolled back never appear.
  ASSERT_TRUE(s.Begin().ok());
  for (int step = 100; step < 110; ++step)
    ASSERT_TRUE(s.InsertReport(*id, 1, step, "value", 1.0, 1.0).ok());
  s.Rollback();
  ASSERT_TRUE(s.Begin().ok());
  ASSERT_TRUE(s.Commit().ok());
  EXPECT_EQ(e2e::QueryInt(db, "SELECT count(*) FROM reports"), 71);
  // History sees buffered reports too (it flushes first).
  ASSERT_TRUE(s.Begin().ok());
  ASSERT_TRUE(s.InsertReport(*id, 1, 200, "value", 2.0, 1.0).ok());
  auto history = s.LoadHistory(*study, "value");
  ASSERT_TRUE(history.ok()) << history.status().message();
  EXPECT_EQ(history->size(), 72u);
  ASSERT_TRUE(s.Commit().ok());
}

}  // namespace
}  // namespace sweep
