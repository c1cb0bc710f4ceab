// What a study owes its runners: one Ack per trial (the latest), in the
// order first owed, none for a trial that left its runner.
#include "tuner/ack_queue.h"

#include <gtest/gtest.h>

namespace sweep {
namespace {

TEST(AckQueueTest, OneAckPerTrialTheLatestInTheOrderFirstOwed) {
  AckQueue q;
  q.Owe(7, "r1").set_step(1);
  q.Owe(3, "r2").set_step(4);
  pb::Ack& again = q.Owe(7, "r1b");  // a newer report, and a re-attached runner
  again.Clear();
  again.set_step(2);
  EXPECT_TRUE(q.Owes(7));
  auto sent = q.Take();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].first, "r1b");
  EXPECT_EQ(sent[0].second.step(), 2);
  EXPECT_EQ(sent[1].first, "r2");
  EXPECT_EQ(sent[1].second.step(), 4);
  EXPECT_FALSE(q.Owes(7));
  EXPECT_TRUE(q.Take().empty());
}

TEST(AckQueueTest, ATrialThatLeftItsRunnerIsOwedNothing) {
  AckQueue q;
  q.Owe(1, "r").set_step(5);
  q.Owe(2, "r").set_step(6);
  q.Cancel(1);
  q.Owe(1, "s").set_step(1);  // running again, elsewhere: owed anew, after 2
  auto sent = q.Take();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].second.step(), 6);
  EXPECT_EQ(sent[1].first, "s");
  EXPECT_EQ(sent[1].second.step(), 1);
}

}  // namespace
}  // namespace sweep
