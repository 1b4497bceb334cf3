// Decoding feed bytes into position records and rule-1 rejections (semantics.md sections 1-2).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/codec/format.h"
#include "frota/model/position.h"
#include "frota/model/record_interner.h"
#include "frota/model/rejection.h"

namespace frota::codec {

/// How to label and time what a decoder produces.
struct DecodeOptions {
  std::string feed_id;              // empty: the format's name
  std::optional<model::Mode> mode;  // empty: DefaultMode(format)
  model::SourceId source = 0;       // provenance of every record
  std::int64_t first_offset = 0;    // offset of the first record decoded
  /// The ingest time a collector recorded for this response. When absent, each format's
  /// rule applies: GTFS-RT header timestamp; OpenSky `time`; Rio SPPO `datahoraservidor`
  /// (per record); Rio BRT the largest `dataHora` of the response; Rio archive
  /// `timestamp_captura` (per row). A GTFS-RT or OpenSky response without a usable time
  /// of its own falls back to its newest event time.
  std::optional<base::Timestamp> ingest_time;
  /// Zone of naive local timestamps (the Rio archive's); IANA name.
  std::string time_zone = "America/Sao_Paulo";
};

/// Records decoded from one source, in offset order within each vector.
struct DecodedBatch {
  std::vector<model::Position> positions;
  std::vector<model::Rejection> rejections;

  void clear() {
    positions.clear();
    rejections.clear();
  }
  [[nodiscard]] std::size_t size() const { return positions.size() + rejections.size(); }
};

/// Records decoded and interned as they were read (model::RecordInterner), each with the
/// hashes of its key's texts, in offset order within each vector.
struct InternedBatch {
  std::vector<model::PositionRecord> positions;
  std::vector<model::KeyTextHashes> position_keys;  // positions[i]'s
  std::vector<model::RejectionRecord> rejections;
  std::vector<model::KeyTextHashes> rejection_keys;  // rejections[i]'s

  void clear() {
    positions.clear();
    position_keys.clear();
    rejections.clear();
    rejection_keys.clear();
  }
  [[nodiscard]] std::size_t size() const { return positions.size() + rejections.size(); }
  /// Interns `batch`, one response of a feed, in offset order and appends its records
  /// (RecordInterner::BeginResponse first).
  void Append(DecodedBatch&& batch, model::RecordInterner& interner);
};

/// What a whole response said about itself besides its records.
struct ResponseInfo {
  std::optional<base::Timestamp> header_time;  // GTFS-RT header / OpenSky `time`
  std::int64_t records = 0;                    // positions + rejections appended
  /// GTFS-RT entities that are not position records: trip updates, alerts, shapes,
  /// stops, trip modifications, deletions and empty entities.
  std::int64_t skipped_entities = 0;
};

/// Decodes one whole response (GTFS-RT FeedMessage, Rio SPPO or BRT JSON, OpenSky JSON;
/// a Rio archive CSV held in memory also works) and appends its records to `out`.
/// Record offsets are options.first_offset + the record's ordinal in the response.
///
/// Malformed records become rejections with the rule-1 reason; the call fails, appending
/// nothing, only when the bytes are not this format at all (e.g. not JSON, a protobuf
/// that does not parse, a GTFS-RT feed with no VehiclePosition entity but other kinds).
base::Result<ResponseInfo> DecodeResponse(Format format, std::string_view bytes,
                                          const DecodeOptions& options, DecodedBatch& out);

/// Streams a Rio archive CSV (.csv or .csv.gz, detected by content) in bounded memory.
///
/// Offsets are options.first_offset + the data row's ordinal (the header and blank lines
/// are not records). Not thread-safe.
class ArchiveCsvReader {
 public:
  virtual ~ArchiveCsvReader() = default;
  static base::Result<std::unique_ptr<ArchiveCsvReader>> Open(const std::filesystem::path& path,
                                                              DecodeOptions options);
  /// The same over bytes in memory (.csv or .csv.gz); `bytes` must outlive the reader.
  /// `name` stands for the file in error messages.
  static base::Result<std::unique_ptr<ArchiveCsvReader>> FromBytes(std::string_view bytes,
                                                                   DecodeOptions options,
                                                                   std::string name = "<memory>");
  /// Appends up to `max_records` records to `out`; returns false once the file is done.
  /// An I/O or gzip error is an error naming the file and the byte offset.
  virtual base::Result<bool> Next(DecodedBatch& out, std::size_t max_records) = 0;
  /// The same, each record interned by `interner` as its row is read: a position's texts
  /// go from the file's buffer to the dictionary without a copy in between. A row that
  /// repeats the same vehicle's row of the previous capture (timestamp_captura) in every
  /// column but the capture time takes that row's record, with its own capture time and
  /// offset, instead of being decoded again: the same record, in a fraction of the time.
  virtual base::Result<bool> Next(InternedBatch& out, std::size_t max_records,
                                  model::RecordInterner& interner) = 0;
  /// Rows Next(InternedBatch&...) took from the previous capture so far.
  [[nodiscard]] virtual std::int64_t repeated_rows() const = 0;
};

}  // namespace frota::codec
