// The Slurm launcher's parts that need no cluster: sbatch options split as
// a shell splits words, squeue's output read (recorded lines of Slurm
// 22.05), GRES read, job ids checked, the launch folder made and reused
// (never loosened), and running programs with a deadline. The launcher
// against a real slurmctld: tests/slurm/slurm_test.cc.
#include "tuner/slurm_launcher.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "common/slurm_job.h"
#include "common/subprocess.h"
#include "tuner/launch_folder.h"

namespace sweep {
namespace {

TEST(SlurmLauncherTest, SbatchOptionsSplitAsAShellSplitsWordsWithoutExpanding) {
  auto w = SplitShellWords("  -p gpu  -t 4:00:00 --comment='two words' --x=\"a b\"$HOME ");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, (std::vector<std::string>{"-p", "gpu", "-t", "4:00:00", "--comment=two words",
                                          "--x=a b$HOME"}));
  EXPECT_TRUE(SplitShellWords("")->empty());
  EXPECT_EQ(*SplitShellWords("''"), std::vector<std::string>{""});
  EXPECT_FALSE(SplitShellWords("-p 'gpu").ok());
}

TEST(SlurmLauncherTest, SqueueLinesAreReadAndAnythingElseIsLeftOut) {
  const std::string out =
      "1234|PENDING|Resources|gres/gpu:2|\n"
      "1235|RUNNING|None|N/A|node-7\n"
      "1236_3|RUNNING|None|gres:gpu:a100:1|node-8\n"
      "1237_[1-4]|PENDING|Priority|N/A|\n"  // a pending array: not one of ours
      "garbage\n"
      "12;rm|RUNNING|None|N/A|x\n";
  const std::vector<SqueueJob> jobs = ParseSqueue(out);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].job, "1234");
  EXPECT_EQ(jobs[0].state, "PENDING");
  EXPECT_EQ(jobs[0].reason, "Resources");
  EXPECT_EQ(jobs[0].gpus, 2);
  EXPECT_EQ(jobs[1].reason, "");
  EXPECT_EQ(jobs[1].gpus, 0);
  EXPECT_EQ(jobs[1].nodes, "node-7");
  EXPECT_EQ(jobs[2].job, "1236_3");
  EXPECT_EQ(jobs[2].gpus, 1);
  EXPECT_TRUE(ParseSqueue("").empty());
}

TEST(SlurmLauncherTest, GresAndJobIds) {
  EXPECT_EQ(GpusOfGres("gpu:4"), 4);
  EXPECT_EQ(GpusOfGres("gpu"), 1);
  EXPECT_EQ(GpusOfGres("N/A"), 0);
  EXPECT_EQ(GpusOfGres("(null)"), 0);
  for (const char* ok : {"1", "1234", "1234_5"}) EXPECT_TRUE(IsSlurmJobId(ok)) << ok;
  for (const char* bad : {"", "_1", "1_", "1_2_3", "12a", "1 2", "../x", "1;rm"})
    EXPECT_FALSE(IsSlurmJobId(bad)) << bad;
  EXPECT_FALSE(IsSlurmJobId(std::string(41, '1')));
}

TEST(SlurmLauncherTest, ProgramsRunWithTheirOutputExitCodeAndEnvironmentUnderADeadline) {
  auto r = RunSubprocess({"sh", "-c", "echo out; echo err >&2; echo $SWEEP_T; exit 3"},
                         {{"SWEEP_T", "set"}}, 10000);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->out, "out\nset\n");
  EXPECT_EQ(r->err, "err\n");
  auto missing = RunSubprocess({"sweep-no-such-program"}, {}, 10000);
  EXPECT_FALSE(missing.ok());
  // Past its deadline it is killed, even when it closed its outputs.
  auto start = std::chrono::steady_clock::now();
  auto slow = RunSubprocess({"sh", "-c", "exec >/dev/null 2>&1; sleep 30"}, {}, 500);
  EXPECT_FALSE(slow.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(SlurmLauncherTest, TheLaunchFolderIsMadePrivateOrTakenOnlyIfPrivateAndItsKeyKept) {
  const std::string base = testing::TempDir() + "launch_folder_" + std::to_string(getpid());
  std::filesystem::remove_all(base);
  const std::string dir = base + "/a/b";
  auto f = PrepareLaunchFolder(dir, "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7");
  ASSERT_TRUE(f.ok()) << f.status().message();
  struct stat st {};
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat(f->runner_key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(f->runner_public_key.size(), 40u);
  EXPECT_TRUE(std::filesystem::exists(f->script));
  // Again: the same key.
  auto again = PrepareLaunchFolder(dir, "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->runner_public_key, f->runner_public_key);
  // A folder others may enter is refused, and left as it was.
  const std::string open = base + "/open";
  ASSERT_EQ(mkdir(open.c_str(), 0755), 0);
  ASSERT_EQ(chmod(open.c_str(), 0755), 0);
  auto refused = PrepareLaunchFolder(open, "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7");
  EXPECT_FALSE(refused.ok());
  ASSERT_EQ(stat(open.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  EXPECT_FALSE(std::filesystem::exists(open + "/runner.key"));
  std::filesystem::remove_all(base);
}

}  // namespace
}  // namespace sweep
