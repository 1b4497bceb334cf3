// Timestamps in the regularity jobs' saved state (Stream::Snapshot, VehicleTrack::Snapshot).
#pragma once

#include "frota/base/bytes.h"
#include "frota/base/status.h"
#include "frota/base/time.h"

namespace frota::regularity {

inline void WriteTime(base::ByteWriter& w, base::Timestamp t) { w.I64(base::ToUnixMicros(t)); }

inline base::Result<base::Timestamp> ReadTime(base::ByteReader& r) {
  FROTA_ASSIGN_OR_RETURN(const auto us, r.I64());
  return base::FromUnixMicros(us);
}

}  // namespace frota::regularity
