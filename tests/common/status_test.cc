// Status codes, and each foreign error space converted to a code once.
#include "common/status.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "common/posix_error.h"
#include "common/trial_status.h"
#include "common/wire.h"
#include "common/zmq_socket.h"

namespace sweep {
namespace {

TEST(StatusTest, OkIsFreeAndErrorsCarryTheirCodeThroughWrap) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), StatusCode::kOk);
  Status nf = Status::NotFound("trial 7");
  EXPECT_FALSE(nf.ok());
  EXPECT_TRUE(nf.IsNotFound());
  Status wrapped = nf.Wrap("loading study");
  EXPECT_TRUE(wrapped.IsNotFound());
  EXPECT_EQ(wrapped.message(), "loading study: trial 7");
  EXPECT_EQ(Status(StatusCode::kOk, "ignored").code(), StatusCode::kOk);
  EXPECT_STREQ(StatusCodeName(StatusCode::kCorruption), "corruption");
}

TEST(StatusTest, ErrnoIsConvertedByKind) {
  EXPECT_TRUE(PosixError("open", "/x", ENOENT).IsNotFound());
  EXPECT_EQ(PosixError("write", "/x", ENOSPC).code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(PosixError("open", "/x", EACCES).IsIOError());
  EXPECT_EQ(PosixError("open", "/x", EACCES).message(), "open /x: Permission denied");
}

TEST(StatusTest, ErrnoWithTheCallersWordsAndAHint) {
  Status st = PosixError("/x: cannot open study file", ENOENT);
  EXPECT_TRUE(st.IsNotFound());
  EXPECT_EQ(st.message(), "/x: cannot open study file: No such file or directory");
  st = PosixError("--bind a:1: cannot listen there", EADDRINUSE, "is another program using it?");
  EXPECT_TRUE(st.IsIOError());
  EXPECT_EQ(st.message(),
            "--bind a:1: cannot listen there: Address already in use (is another program using "
            "it?)");
  EXPECT_EQ(PosixError("write /x", ENOSPC, "free some").message(),
            "write /x: No space left on device (disk full) (free some)");
}

TEST(StatusTest, ZeroMqErrorsNameTheCallAndHaveACode) {
  ZmqContext ctx;
  auto sock = ZmqSocket::Open(ctx, ZMQ_ROUTER);
  ASSERT_TRUE(sock.ok()) << sock.status().message();
  Status bad = sock->Bind("nonsense://here");
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(bad.IsInvalidArgument()) << StatusCodeName(bad.code()) << ": " << bad.message();
  EXPECT_EQ(bad.message().rfind("cannot listen on nonsense://here: ", 0), 0u) << bad.message();
  Status opt = sock->SetInt(-12345, 1, "NO_SUCH_OPTION");
  EXPECT_TRUE(opt.IsInvalidArgument());
  EXPECT_NE(opt.message().find("zmq_setsockopt(NO_SUCH_OPTION)"), std::string::npos);
}

TEST(StatusTest, BadMessagesAreInvalidArgumentsAndOversizedOnesExhaustion) {
  EXPECT_TRUE(DecodeEnvelope("\xff\xff\xff", 3).status().IsInvalidArgument());
  EXPECT_EQ(DecodeEnvelope("", kMaxMessageBytes + 1).status().code(),
            StatusCode::kResourceExhausted);
  pb::Envelope env;
  env.mutable_heartbeat();
  env.set_version(kProtocolVersion + 1);
  std::string bytes = env.SerializeAsString();
  EXPECT_TRUE(DecodeEnvelope(bytes.data(), bytes.size()).status().IsInvalidArgument());
}

TEST(TrialStatusTest, NamesRoundTripAndFinishedStatesNeverChange) {
  for (int i = 0; i < kTrialStatusCount; ++i) {
    auto s = static_cast<TrialStatus>(i);
    EXPECT_EQ(ParseTrialStatus(TrialStatusName(s)), s);
    for (int j = 0; j < kTrialStatusCount; ++j) {
      if (IsFinished(s)) EXPECT_FALSE(CanTransition(s, static_cast<TrialStatus>(j)));
    }
  }
  EXPECT_FALSE(ParseTrialStatus("done").has_value());
  EXPECT_TRUE(CanTransition(TrialStatus::kQueued, TrialStatus::kRunning));
  EXPECT_TRUE(CanTransition(TrialStatus::kRunning, TrialStatus::kPaused));
  EXPECT_TRUE(CanTransition(TrialStatus::kPaused, TrialStatus::kQueued));
  EXPECT_FALSE(CanTransition(TrialStatus::kPaused, TrialStatus::kRunning));
  EXPECT_FALSE(CanTransition(TrialStatus::kQueued, TrialStatus::kCompleted));
  EXPECT_FALSE(CanTransition(TrialStatus::kRunning, TrialStatus::kRunning));
}

}  // namespace
}  // namespace sweep
