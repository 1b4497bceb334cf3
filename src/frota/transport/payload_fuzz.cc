// Fuzz target: decoding arbitrary bytes as a Kafka payload never crashes, and whatever
// it accepts re-encodes (in either form) to bytes that decode to the same record.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "frota/transport/payload.h"

namespace {

using frota::transport::PayloadFormat;
using frota::transport::PayloadRecord;

std::string Encode(const PayloadRecord& record, const frota::model::SourceCatalog& catalog,
                   PayloadFormat format) {
  std::string out;
  if (const auto* p = std::get_if<frota::model::Position>(&record)) {
    frota::transport::EncodePosition(*p, catalog.Name(p->source.source), format, out);
  } else if (const auto* r = std::get_if<frota::model::Rejection>(&record)) {
    frota::transport::EncodeRejection(*r, catalog.Name(r->source.source), format, out);
  } else if (const auto* poll = std::get_if<frota::model::PollRow>(&record)) {
    frota::transport::EncodePoll(*poll, format, out);
  } else {
    frota::transport::EncodeEndOfInput(std::get<frota::transport::EndOfInput>(record), format, out);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  frota::model::SourceCatalog catalog;
  const auto decoded = frota::transport::DecodePayload(bytes, catalog);
  if (!decoded.ok()) {
    return 0;
  }
  // Binary: one round normalises (e.g. a NaN sent as present becomes absent); after
  // that, encoding is a fixed point.
  const std::string once = Encode(*decoded, catalog, PayloadFormat::kBinary);
  const auto again = frota::transport::DecodePayload(once, catalog);
  if (!again.ok() || Encode(*again, catalog, PayloadFormat::kBinary) != once) {
    std::abort();
  }
  // JSON always decodes back (strings may have had invalid UTF-8 replaced).
  const std::string json = Encode(*decoded, catalog, PayloadFormat::kJson);
  if (!frota::transport::DecodePayload(json, catalog).ok()) {
    std::abort();
  }
  return 0;
}
