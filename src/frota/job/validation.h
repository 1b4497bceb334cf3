// The record-level validation rules 2-4 of semantics.md section 2 (future, stale, out_of_area).
#pragma once

#include <optional>
#include <string>

#include "frota/job/config.h"
#include "frota/model/position.h"
#include "frota/model/position_record.h"
#include "frota/model/rejection.h"

namespace frota::job {

/// The first of rules 2-4 that `position` fails, or nullopt. Rule 1 is the decoders';
/// rules 5-7 need the key's history and the watermark, so the pipeline applies them.
/// `Record`: model::Position or model::PositionRecord.
template <typename Record>
std::optional<model::RejectReason> CheckRecordRules(const Record& position,
                                                    const JobConfig& config);

/// A rejection record for `position` refused for `reason`, with the values that failed
/// in `detail`.
model::Rejection MakeRejection(const model::Position& position, model::RejectReason reason,
                               std::string detail);

/// The detail text of a record-level rejection: the values the rule compared.
template <typename Record>
std::string DescribeRecordRuleFailure(const Record& position, model::RejectReason reason);

}  // namespace frota::job
