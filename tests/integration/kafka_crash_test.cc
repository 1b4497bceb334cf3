// Exactly once, whatever crashes: consumers of the real Rio BRT archive (Kafka, 6
// partitions, into PostgreSQL) are SIGKILLed at random moments, between COPY and COMMIT,
// during rebalances and while another member joins; PostgreSQL goes down and comes back;
// the broker restarts; the broker is even down when the first member starts. Afterwards
// `frota export` is byte-identical to the uninterrupted embedded run, and the departures,
// headways and alerts of the members' regularity follower are the embedded run's.
//
// Default: 20 kills, PostgreSQL down 5 s, one broker restart (a few minutes on a loaded
// 2-core machine). FROTA_FULL_CRASH_TEST=1: 60 kills, PostgreSQL down 30 s, two broker
// restarts. The kills and where they fell are printed and recorded as test properties.
#include <gtest/gtest.h>
#include <signal.h>

#include <iomanip>
#include <iostream>
#include <random>
#include <thread>

#include "frota/sink/pg_connection.h"
#include "frota/sink/testing/test_database.h"
#include "scale_out_fixture.h"

namespace frota::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

enum class KillKind { kRandom, kBetweenCopyAndCommit, kDuringRebalance, kWhileAnotherJoins };

const char* Name(KillKind k) {
  switch (k) {
    case KillKind::kRandom:
      return "random moment";
    case KillKind::kBetweenCopyAndCommit:
      return "between COPY and COMMIT";
    case KillKind::kDuringRebalance:
      return "during a rebalance";
    case KillKind::kWhileAnotherJoins:
      return "while another member joins";
  }
  return "?";
}

struct Kill {
  KillKind kind;
  double at_s;
  std::int64_t committed_epochs;  // ledger rows when it fell (-1: database down)
  std::string where;              // what the victim was doing (its last log line)
};

std::string LastLine(const std::string& log) {
  auto end = log.find_last_not_of('\n');
  if (end == std::string::npos) {
    return "";
  }
  const auto start = log.rfind('\n', end);
  std::string line = log.substr(start == std::string::npos ? 0 : start + 1,
                                end - (start == std::string::npos ? 0 : start + 1) + 1);
  // Drop spdlog's "[date time] [level] " prefix.
  const auto level = line.find("] ");
  if (line.starts_with("[") && level != std::string::npos) {
    const auto second = line.find("] ", level + 2);
    if (second != std::string::npos) {
      line = line.substr(second + 2);
    }
  }
  return line.substr(0, 110);
}

class ScaleOutCrash : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto env = ReadServiceEnv();
    ASSERT_TRUE(env.has_value()) << kNoServices;
    env_ = *env;
    const auto archive = FindBrtArchive();
    if (!archive) {
      FROTA_SHARED_MISSING("real Rio BRT archive not found under " << SharedDataDir());
    }
    archive_ = *archive;
    full_ = std::getenv("FROTA_FULL_CRASH_TEST") != nullptr &&
            std::string(std::getenv("FROTA_FULL_CRASH_TEST")) == "1";
  }

  std::int64_t CommittedEpochs(const std::string& dsn) {
    auto db = sink::PgConnection::Open(dsn + "?connect_timeout=2");
    if (!db.ok()) {
      return -1;
    }
    auto n = (*db)->Query("SELECT count(*) FROM batches");
    return n.ok() ? n->Int(0, 0) : -1;
  }

  ServiceEnv env_;
  BrtArchive archive_;
  bool full_ = false;
  TempDir tmp_{"scale-out-crash"};
};

TEST_F(ScaleOutCrash, ExportIsByteIdenticalAfterKillsRebalancesAndServerRestarts) {
  const int kills_wanted = full_ ? 60 : 20;
  const auto pg_down = full_ ? seconds(30) : seconds(5);
  const int broker_restarts = full_ ? 2 : 1;
  std::cerr << "crash test: " << (full_ ? "full" : "default") << " version, " << kills_wanted
            << " kills, PostgreSQL down " << pg_down.count() << " s, " << broker_restarts
            << " broker restart(s)\n";

  const Tree baseline = EmbeddedBaseline(archive_, tmp_.path());
  ASSERT_FALSE(baseline.empty());

  // A broker and a server of our own: this test stops and restarts them.
  OwnKafka kafka(env_, tmp_.path() / "kafka");
  ASSERT_TRUE(kafka.ok()) << kafka.error();
  OwnPostgres postgres(env_, tmp_.path() / "pg");
  ASSERT_TRUE(postgres.ok()) << postgres.error();
  sink::testing::TestDatabase db(postgres.dsn(), "crash");
  ASSERT_TRUE(db.ok()) << db.error();
  const std::string topic = "brt-crash";
  std::string error;
  ASSERT_TRUE(CreateTopic(env_, kafka.dir().string(), topic, 6, &error)) << error;
  const auto published = Publish(archive_, kafka.brokers(), topic);
  ASSERT_EQ(published.exit_code, 0) << published.err;

  // Small epochs and a pause between COPY and COMMIT keep the members busy for long
  // enough to be killed many times, and make "between COPY and COMMIT" a window a kill
  // can aim at; a pause inside revocations does the same for rebalances (the fault
  // injection of docs/scale-out.md, "Test hooks").
  const std::vector<std::string> hooks = {
      "--fault", full_ ? "pg-pause-before-commit-ms=300" : "pg-pause-before-commit-ms=250",
      "--fault", "rebalance-pause-ms=300",
      // Each member takes at most 4,000 messages a second: the topic then lasts the
      // whole kill plan instead of being done before half of it.
      "--fault", "messages-per-second=4000"};
  int started = 0;
  std::vector<std::unique_ptr<ChildProcess>> members;
  const auto start_member = [&] {
    const int n = started++;
    members.push_back(std::make_unique<ChildProcess>(
        ConsumerArgs(archive_, kafka.brokers(), topic, "crash-group", db.dsn(),
                     Concat({"--epoch-records", "500", "--epoch-seconds", "0.5",
                             "--session-timeout", "3", "--kafka-wait", "120"},
                            hooks)),
        tmp_.path() / ("member-" + std::to_string(n) + ".log")));
    return members.back().get();
  };
  const auto running = [&] {
    std::vector<ChildProcess*> out;
    for (auto& m : members) {
      if (m->Running()) {
        out.push_back(m.get());
      }
    }
    return out;
  };

  // The broker is down when the first member starts: it waits, saying so, and goes on
  // once the broker is back.
  ASSERT_TRUE(kafka.Stop());
  ChildProcess* first = start_member();
  EXPECT_TRUE(first->WaitForLog("kafka brokers unreachable, retrying", seconds(60)))
      << first->Log();
  ASSERT_TRUE(kafka.Start()) << kafka.error();
  EXPECT_TRUE(first->WaitForLog("partition acquired", minutes(3))) << first->Log();
  start_member();
  start_member();

  std::mt19937 rng(20221130);
  std::vector<KillKind> plan;
  for (int i = 0; i < kills_wanted; ++i) {
    plan.push_back(static_cast<KillKind>(i % 4));
  }
  std::shuffle(plan.begin(), plan.end(), rng);
  const auto t0 = std::chrono::steady_clock::now();
  const auto since = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<Kill> kills;
  bool pg_restarted = false;
  int broker_restarted = 0;
  for (const KillKind kind : plan) {
    auto alive = running();
    if (alive.empty()) {
      break;  // everything finished: no more kills possible
    }
    ChildProcess* victim = alive[rng() % alive.size()];
    switch (kind) {
      case KillKind::kRandom:
        std::this_thread::sleep_for(milliseconds(200 + rng() % 1300));
        break;
      case KillKind::kBetweenCopyAndCommit:
        if (!victim->WaitForLog("test hook: rows copied", seconds(20), victim->Log().size())) {
          continue;  // it had nothing to commit in time: not this kind of kill
        }
        break;
      case KillKind::kDuringRebalance: {
        const std::size_t from = victim->Log().size();
        start_member();  // its joining makes the others revoke partitions
        if (!victim->WaitForLog("kafka rebalance:", seconds(30), from)) {
          continue;
        }
        break;
      }
      case KillKind::kWhileAnotherJoins: {
        start_member();
        std::this_thread::sleep_for(milliseconds(rng() % 300));
        break;
      }
    }
    if (!victim->Running()) {
      continue;
    }
    victim->Signal(SIGKILL);
    victim->Wait(seconds(10));
    kills.push_back({kind, since(), CommittedEpochs(db.dsn()), LastLine(victim->Log())});
    while (running().size() < 3) {
      start_member();
    }
    if (!pg_restarted && static_cast<int>(kills.size()) >= kills_wanted / 2) {
      pg_restarted = true;
      std::cerr << "PostgreSQL down for " << pg_down.count() << " s at " << since() << " s\n";
      ASSERT_TRUE(postgres.Pause());
      std::this_thread::sleep_for(pg_down);
      ASSERT_TRUE(postgres.Resume());
    }
    if (broker_restarted < broker_restarts &&
        static_cast<int>(kills.size()) >=
            kills_wanted * (broker_restarted + 2) / (broker_restarts + 2)) {
      ++broker_restarted;
      std::cerr << "broker restart at " << since() << " s\n";
      ASSERT_TRUE(kafka.Restart());
    }
  }

  // Where the kills fell.
  std::map<KillKind, int> by_kind;
  std::cerr << "kills (" << kills.size() << "):\n";
  for (std::size_t i = 0; i < kills.size(); ++i) {
    const auto& k = kills[i];
    ++by_kind[k.kind];
    std::cerr << "  #" << i + 1 << " t=" << std::fixed << std::setprecision(1) << k.at_s
              << "s  " << Name(k.kind) << "  epochs committed=" << k.committed_epochs
              << "  victim was: " << k.where << "\n";
  }
  for (const auto& [kind, n] : by_kind) {
    std::cerr << "  " << Name(kind) << ": " << n << "\n";
    ::testing::Test::RecordProperty(Name(kind), n);
  }
  ::testing::Test::RecordProperty("kills", static_cast<int>(kills.size()));
  EXPECT_GE(static_cast<int>(kills.size()), kills_wanted)
      << "the members finished before every kill could happen";
  EXPECT_TRUE(pg_restarted);
  EXPECT_EQ(broker_restarted, broker_restarts);
  for (const auto kind : {KillKind::kRandom, KillKind::kBetweenCopyAndCommit,
                          KillKind::kDuringRebalance, KillKind::kWhileAnotherJoins}) {
    EXPECT_GT(by_kind[kind], 0) << Name(kind);
  }

  // The survivors run to the end of the topic and stop by themselves.
  if (running().empty()) {
    start_member();
  }
  for (auto& m : members) {
    if (m->Running()) {
      EXPECT_TRUE(m->Wait(minutes(15))) << "a member did not finish:\n" << m->Log();
      EXPECT_EQ(m->exit_code(), 0) << m->Log();
    }
  }
  bool waited_for_postgres = false;
  for (auto& m : members) {
    waited_for_postgres = waited_for_postgres ||
                          m->Log().find("postgres unavailable, waiting") != std::string::npos;
  }
  EXPECT_TRUE(waited_for_postgres) << "no member noticed PostgreSQL going down";

  ExpectSameTables(baseline, ExportPostgres(db.dsn(), tmp_.path() / "export"));
  // The regularity follower was killed with the members that led it: its departures,
  // headways and alerts are still the embedded run's, none twice, none missing.
  ExpectSameRegularity(tmp_.path(), db.dsn());
}

}  // namespace
}  // namespace frota::testing
