// The Kafka message of one record: a position, a rule-1 rejection or an end-of-input marker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "frota/base/status.h"
#include "frota/model/position.h"
#include "frota/model/rejection.h"
#include "frota/model/source.h"
#include "frota/model/tables.h"

namespace frota::transport {

/// The two encodings a producer can write. A consumer reads both (they differ in their
/// first byte: kPayloadMagic, or '{').
enum class PayloadFormat { kBinary, kJson };

/// First byte of a binary payload, then the version byte (docs/scale-out.md, "Payload").
inline constexpr std::uint8_t kPayloadMagic = 0xF5;
inline constexpr std::uint8_t kPayloadVersion = 1;

/// Published once to every partition after the last record of a recorded input
/// (`frota replay --to-kafka`, or a collector stopping with `--end-marker`): the
/// partition's input is complete, so its watermark may jump to the end and every open
/// stop, trip and hour becomes final, as at the end of an embedded replay.
struct EndOfInput {
  std::string run_id;        // the producer run that published it
  std::int64_t records = 0;  // records that run published to this partition before it
  bool operator==(const EndOfInput&) const = default;
};

/// A decoded message. Positions and rejections keep their ORIGINAL provenance (the
/// source name, interned into the catalog given to the decoder, and the offset in it):
/// rule 5 breaks ties by (event_time, source name, offset), and the output tables show
/// it, so a consumer's rows equal an embedded run's.
/// A poll (a collector's request, for `collector_polls`) is not a record of the jobs: a
/// consumer writes it as it is, in the epoch that commits its offset.
using PayloadRecord = std::variant<model::Position, model::Rejection, EndOfInput, model::PollRow>;

/// The message key of a record: "feed_id/vehicle_id" (rejections without a vehicle:
/// "feed_id/"), so every message of a vehicle lands in one partition, in order.
std::string MessageKey(std::string_view feed_id, std::string_view vehicle_id);
/// The same into `out` (replaced), which keeps its capacity between messages.
void AssignMessageKey(std::string_view feed_id, std::string_view vehicle_id, std::string& out);

/// Appends the encoding of a record to `out` (cleared first). `source_name` is the name
/// of the record's `source.source` in the producer's catalog.
void EncodePosition(const model::Position& position, std::string_view source_name,
                    PayloadFormat format, std::string& out);
void EncodeRejection(const model::Rejection& rejection, std::string_view source_name,
                     PayloadFormat format, std::string& out);
void EncodeEndOfInput(const EndOfInput& marker, PayloadFormat format, std::string& out);
void EncodePoll(const model::PollRow& poll, PayloadFormat format, std::string& out);

/// Decodes either encoding. Source names are interned into `catalog`. Any defect
/// (truncation, a newer version, an unknown kind, mode or reason, trailing bytes, bad
/// JSON) is an InvalidInput error whose message becomes the `bad_payload` detail.
base::Result<PayloadRecord> DecodePayload(std::string_view bytes, model::SourceCatalog& catalog);

}  // namespace frota::transport
