// Scale-out: publish recorded inputs to Kafka, and consume a topic as one member of a group.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frota/base/clock.h"
#include "frota/base/status.h"
#include "frota/engine/partitioned_sink.h"
#include "frota/model/rows.h"
#include "frota/model/source.h"
#include "frota/runner/replay_runner.h"
#include "frota/runner/retention.h"
#include "frota/transport/consumer.h"
#include "frota/transport/producer.h"

namespace frota::runner {

// ---- producer: `frota replay INPUT... --to-kafka BROKERS --topic T` ----------------------

struct PublishConfig {
  ReplayConfig replay;  // inputs, feed_id, mode, time zone (via the context)
  transport::ProducerOptions producer;
  bool end_marker = true;  // EndOfInput to every partition after the last record
};

struct PublishReport {
  std::int64_t records = 0;
  std::int64_t positions = 0;
  std::int64_t rejections = 0;
  std::int32_t partitions = 0;
  double duration_s = 0;
  double messages_per_s = 0;
  std::int64_t input_bytes = 0;
};

/// Reads the inputs as `frota replay` does (source partitions merged in ingest-time
/// order) and publishes every record, positions and rule-1 rejections alike, in that
/// order, with its original source name and offset; then, unless told otherwise, an
/// end-of-input marker to every partition. Returns once everything is delivered.
base::Result<PublishReport> PublishReplay(const PublishConfig& config, const ReplayContext& context,
                                          model::SourceCatalog& catalog);

// ---- consumer: `frota run --kafka BROKERS --topic T --group G --postgres DSN` -------------

/// Fault injection for the crash and fault tests (`frota run --fault KEY=VALUE`,
/// docs/scale-out.md "Test hooks"): each widens a window in which a test kills the member
/// or stops a server. The pauses are real time (base/clock.h): they wait for another
/// process. All zero: none.
struct KafkaRunFaults {
  /// At each revocation, print "test hook: revoking partitions=P, pausing" on stderr and
  /// wait this long before committing.
  std::chrono::milliseconds rebalance_pause{0};
  /// Poll at most messages_per_second / 10 messages every 100 ms (at least 10 a second),
  /// so that a small topic outlasts a test's kill plan. 0: no limit.
  std::int64_t messages_per_second = 0;
};

/// What a member has done so far, told after every poll round (KafkaRunConfig::on_progress).
struct KafkaRunProgress {
  std::int64_t messages = 0;    // consumed
  std::int64_t epochs = 0;      // handed to the sink
  std::int64_t fenced = 0;      // commits refused by the fence
  std::int64_t rebalances = 0;  // assignment changes seen
  std::size_t partitions = 0;   // owned now
  /// Of the last epoch handed to the sink; min() before the first.
  base::Timestamp watermark = base::Timestamp::min();
};

struct KafkaRunConfig {
  transport::ConsumerOptions consumer;
  std::int64_t epoch_records = 200'000;
  std::chrono::milliseconds epoch_interval{2000};
  std::size_t threads = 1;
  std::size_t poll_records = 20'000;  // messages taken per poll
  /// Stop once every partition of the topic has committed its end-of-input marker (by
  /// whichever member): the end of a replay published with `--to-kafka`.
  bool until_end = false;
  bool progress = false;  // a progress line on stderr (terminals only)
  /// Processing time for epoch_interval and the --until-end check; null:
  /// base::SystemClock::Get().
  base::Clock* clock = nullptr;
  KafkaRunFaults faults;
  /// Told the topic's partition count once the member has joined (the regularity
  /// follower reads the group's frontier over them). May be empty.
  std::function<void(std::int32_t)> on_partition_count;
  /// Retention (`--retain-days`, `--retain-results-days`): none by default. Each member
  /// cuts by the newest data of the partitions it owns; the cuts are idempotent.
  RetentionPolicy retention;
  /// Told after every poll round, on the consuming thread (metrics and health: it must
  /// return quickly). May be empty.
  std::function<void(const KafkaRunProgress&)> on_progress;
};

struct KafkaRunReport {
  std::string topic;
  std::string group;
  std::int64_t messages = 0;
  std::int64_t stale_messages = 0;  // read again after a seek back; skipped
  std::int64_t accepted = 0;
  std::map<std::string, std::int64_t> rejected;  // by reason
  std::map<std::string, std::int64_t> rows;      // by table
  std::int64_t epochs = 0;
  std::int64_t fenced = 0;      // commits refused by the fence
  std::int64_t resets = 0;      // restarts of owned partitions from the sink
  std::int64_t rebalances = 0;  // assignment changes seen
  bool reached_end = false;     // --until-end: every partition finished
  std::string watermark;
  double duration_s = 0;
  std::int64_t peak_rss_bytes = 0;
  std::vector<job::RuleValue> rules;  // the rules the run applied
};

/// Consumes `config.consumer.topic` as a member of `config.consumer.group` until `stop`
/// becomes true (SIGINT/SIGTERM) or, with until_end, the whole topic is finished.
///
/// The exactly-once protocol (docs/scale-out.md lists every case):
///  - state partition = Kafka partition (job::Routing::kBySourcePartition); each keeps its
///    own watermark, which travels with its state;
///  - assigned partitions: the sink's committed offset, state and watermark of each are
///    restored (PartitionedSink::Acquire) and the consumer starts there; Kafka's committed
///    offsets are only informational;
///  - an epoch (N records or T of processing) commits, in one sink transaction, the
///    rows, and for every partition it read from: the next offset, the state with its
///    watermark, whether its end-of-input marker was read; fenced per partition;
///  - revoked (or lost) partitions: the open epoch is committed first, then their state
///    is dropped;
///  - a fenced commit (another member committed one of our partitions): nothing was
///    written; every owned partition is restored from the sink again and re-read from
///    its committed offset;
///  - the database down: the sink waits and retries the same epoch (consumption pauses);
///  - a message that does not decode: a `bad_payload` rejection (source topic/partition,
///    offset = the Kafka offset), and processing goes on.
base::Result<KafkaRunReport> RunKafka(const KafkaRunConfig& config, const ReplayContext& context,
                                      model::SourceCatalog& catalog,
                                      engine::PartitionedSink<model::EpochRows>& sink,
                                      const std::atomic<bool>& stop);

std::string PublishReportJson(const PublishReport& report);
std::string KafkaReportJson(const KafkaRunReport& report);

}  // namespace frota::runner
