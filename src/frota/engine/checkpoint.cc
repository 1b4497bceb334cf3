#include "frota/engine/checkpoint.h"

#include "frota/base/bytes.h"
#include "frota/base/hash.h"

namespace frota::engine {

namespace {
constexpr std::string_view kMagic = "FROTACKP";
}  // namespace

std::string SealCheckpoint(std::string_view kind, std::uint32_t version, std::string_view payload) {
  return SealCheckpoint(kind, version, payload, {});
}

std::string SealCheckpoint(std::string_view kind, std::uint32_t version, std::string_view first,
                           std::string_view second) {
  base::ByteWriter w;
  w.Reserve(kMagic.size() + kind.size() + 32 + first.size() + second.size());
  w.Raw(kMagic);
  w.String(kind);
  w.U32(version);
  w.U64(first.size() + second.size());
  w.U32(base::Crc32c(second, base::Crc32c(first)));
  w.Raw(first);
  w.Raw(second);
  return w.Take();
}

base::Result<std::string_view> OpenCheckpoint(std::string_view bytes, std::string_view kind,
                                              std::uint32_t version) {
  FROTA_ASSIGN_OR_RETURN(const auto opened, OpenCheckpoint(bytes, kind, version, version));
  return opened.payload;
}

base::Result<OpenedCheckpoint> OpenCheckpoint(std::string_view bytes, std::string_view kind,
                                              std::uint32_t oldest, std::uint32_t newest) {
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    return base::InvalidInput("not a frota checkpoint (bad magic)");
  }
  base::ByteReader r(bytes.substr(kMagic.size()));
  const auto found_kind = r.String();
  if (!found_kind.ok()) {
    return base::InvalidInput("checkpoint header is truncated");
  }
  if (*found_kind != kind) {
    return base::InvalidInput("checkpoint holds '{}' state, expected '{}'", *found_kind, kind);
  }
  const auto found_version = r.U32();
  const auto size = r.U64();
  const auto crc = r.U32();
  if (!found_version.ok() || !size.ok() || !crc.ok()) {
    return base::InvalidInput("checkpoint header is truncated");
  }
  if (*found_version < oldest || *found_version > newest) {
    return base::InvalidInput(
        "checkpoint of '{}' state is format version {}, this frota reads version {}: it was "
        "written by another version of frota; replay into a new database",
        kind, *found_version,
        oldest == newest ? fmt::format("{}", newest) : fmt::format("{} to {}", oldest, newest));
  }
  if (*size != r.remaining()) {
    return base::InvalidInput("checkpoint of '{}' state is truncated: {} of {} payload bytes", kind,
                              r.remaining(), *size);
  }
  const auto payload = *r.Raw(r.remaining());
  if (base::Crc32c(payload) != *crc) {
    return base::InvalidInput("checkpoint of '{}' state is corrupt (checksum mismatch)", kind);
  }
  return OpenedCheckpoint{payload, *found_version};
}

}  // namespace frota::engine
