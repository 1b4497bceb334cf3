// The Rio archive reader's repeated rows: a row that repeats its vehicle's row of the previous
// capture. Part of archive_csv.cc's reader, apart so each file holds one concern; included only
// there.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frota/base/bytes.h"
#include "frota/codec/decode_internal.h"
#include "frota/model/record_interner.h"

namespace frota::codec::archive_csv_internal {
using internal::Trim;

// --- repeated rows ----------------------------------------------------------------------

// A Rio archive says most things twice: every capture (each 15 s or so) lists each
// vehicle's latest GPS row, and a vehicle reports less often than that, so most rows
// repeat, byte for byte, the same vehicle's row one capture earlier; only the capture
// time differs (57 % of the rows of the simulated Rio day). RepeatedRows remembers the
// accepted rows of the previous capture in order, as the texts of every column decoding
// reads except the capture time, with the records they were decoded and interned into. A
// row whose texts equal those of the same vehicle's row there takes that record (with its
// own capture time and offset) instead of being parsed and interned again: such a row
// costs the reading thread about two fifths of what decoding it did (100 ns against 250
// on source_replay_benchmark). The texts are compared whole, so a row gets the record
// decoding it would give; the records' ids are the interner's they came from.
//
// Captures are told apart by their capture-time text. A feed lists its vehicles in much
// the same order in every capture, so the same vehicle's row is looked for at a cursor
// (and one or two past it: vehicles that left), like RecordInterner's responses.
class RepeatedRows {
 public:
  // The columns compared: every column decoding reads but `skipped`, as runs of adjacent
  // columns (a run's texts are one span of an unquoted row). `vehicle` is the key's.
  void SetColumns(const std::vector<std::optional<std::size_t>>& read, std::size_t skipped,
                  std::size_t vehicle) {
    std::vector<bool> compared;
    for (const auto& column : read) {
      if (column && *column != skipped) {
        if (compared.size() <= *column) {
          compared.resize(*column + 1, false);
        }
        compared[*column] = true;
      }
    }
    runs_.clear();
    for (std::size_t c = 0; c < compared.size(); ++c) {
      if (!compared[c]) {
        continue;
      }
      if (!runs_.empty() && runs_.back().second + 1 == c) {
        runs_.back().second = c;
      } else {
        runs_.emplace_back(c, c);
      }
    }
    vehicle_ = vehicle;
    enabled_ = true;
  }

  [[nodiscard]] bool enabled() const { return enabled_; }

  // A row of `capture` (its capture-time text) is next: a new text starts a capture.
  // Rows without one (rejected) do not: they would split a capture in two.
  void AtCapture(std::string_view capture) {
    if (!enabled_ || base::SameText(capture, capture_) || Trim(capture).empty()) {
      return;
    }
    capture_.assign(capture);
    std::swap(previous_, current_);
    current_.clear();
    cursor_ = 0;
  }

  // The previous capture's record for the row split into `fields` when every compared
  // text is the same, else nullptr. `interner` must be the one the records came from.
  const model::PositionRecord* Find(const std::vector<std::string_view>& fields,
                                    const model::RecordInterner* interner,
                                    const model::KeyTextHashes** keys) {
    if (!enabled_ || interner != interner_) {
      return nullptr;
    }
    const std::string_view vehicle = fields[vehicle_];
    const auto& rows = previous_.rows;
    for (std::size_t k = cursor_; k < rows.size() && k < cursor_ + 3; ++k) {
      const Row& row = rows[k];
      if (!base::SameText(vehicle, Text(previous_, row.vehicle_at, row.vehicle_size))) {
        continue;
      }
      cursor_ = k + 1;
      std::size_t at = row.at;
      for (const auto& [first, last] : runs_) {
        const std::string_view span = Span(fields, first, last);
        if (at + span.size() > row.at + row.size ||
            std::memcmp(previous_.texts.data() + at, span.data(), span.size()) != 0) {
          return nullptr;
        }
        at += span.size();
      }
      if (at != row.at + row.size) {
        return nullptr;
      }
      *keys = &row.keys;
      return &row.record;
    }
    return nullptr;
  }

  // Remembers the accepted row split into `fields` (unquoted: its fields are spans of the
  // row) and what it gave, for the next capture.
  void Remember(const std::vector<std::string_view>& fields, const model::RecordInterner* interner,
                const model::PositionRecord& record, const model::KeyTextHashes& keys) {
    if (!enabled_ || current_.rows.size() >= kMaxRows) {
      return;
    }
    if (interner != interner_) {
      previous_.clear();
      current_.clear();
      interner_ = interner;
    }
    Row row{static_cast<std::uint32_t>(current_.texts.size()), 0, 0, 0, record, keys};
    const std::string_view vehicle = fields[vehicle_];
    for (const auto& [first, last] : runs_) {
      const std::string_view span = Span(fields, first, last);
      if (vehicle.data() >= span.data() && vehicle.data() <= span.data() + span.size()) {
        row.vehicle_at = row.at + static_cast<std::uint32_t>(row.size) +
                         static_cast<std::uint32_t>(vehicle.data() - span.data());
      }
      row.size += static_cast<std::uint32_t>(span.size());
    }
    // A capture too large to index with 32 bits: not kept.
    if (current_.texts.size() + row.size > 0xffffffffU) {
      return;
    }
    row.vehicle_size = static_cast<std::uint32_t>(vehicle.size());
    for (const auto& [first, last] : runs_) {
      current_.texts.append(Span(fields, first, last));
    }
    current_.rows.push_back(row);
  }

 private:
  struct Row {
    std::uint32_t at;  // the compared texts, one run after the other, in texts
    std::uint32_t size;
    std::uint32_t vehicle_at;  // the vehicle id's text, inside the above
    std::uint32_t vehicle_size;
    model::PositionRecord record;
    model::KeyTextHashes keys;
  };
  struct Capture {
    std::vector<Row> rows;
    std::string texts;
    void clear() {
      rows.clear();
      texts.clear();
    }
  };
  // Rows of a capture remembered at most (the rest are decoded): a capture of a whole
  // file, or of a fleet far larger than Rio's 3,600 vehicles, costs no more than about
  // 15 MB here.
  static constexpr std::size_t kMaxRows = 1 << 16;
  static std::string_view Span(const std::vector<std::string_view>& fields, std::size_t first,
                               std::size_t last) {
    const char* begin = fields[first].data();
    return {begin, static_cast<std::size_t>(fields[last].data() + fields[last].size() - begin)};
  }
  static std::string_view Text(const Capture& capture, std::uint32_t at, std::uint32_t size) {
    return {capture.texts.data() + at, size};
  }

  bool enabled_ = false;
  std::vector<std::pair<std::size_t, std::size_t>> runs_;
  std::size_t vehicle_ = 0;
  const model::RecordInterner* interner_ = nullptr;
  std::string capture_;
  Capture previous_;
  Capture current_;
  std::size_t cursor_ = 0;
};

}  // namespace frota::codec::archive_csv_internal
