// Fuzz target: reading arbitrary bytes as a bronze pack never crashes, and a pack whose
// every member reads back packs again to the same members.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "frota/source/bronze_pack.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using frota::source::PackMember;
  using frota::source::PackReader;
  auto reader =
      PackReader::FromBytes("fuzz.pack", std::string(reinterpret_cast<const char*>(data), size));
  if (!reader.ok()) {
    return 0;
  }
  frota::source::PackWriter writer;
  std::vector<PackMember> members;
  for (std::size_t i = 0; i < (*reader)->entries().size(); ++i) {
    const auto read = (*reader)->Read(i);
    if (!read.ok()) {
      return 0;
    }
    const auto& e = (*reader)->entries()[i];
    PackMember m;
    m.name = e.name;
    m.ingest_time = e.ingest_time;
    m.repeat = e.repeat;
    m.records = e.records;
    if (e.has_envelope) {
      m.envelope = std::string(read->envelope);
    }
    m.body = std::string(read->body);
    if (!writer.Add(m).ok()) {
      std::abort();  // the reader accepted names out of order
    }
    members.push_back(std::move(m));
  }
  auto bytes = writer.Finish();
  if (!bytes.ok()) {
    std::abort();
  }
  auto again = PackReader::FromBytes("again.pack", std::move(*bytes));
  if (!again.ok() || (*again)->entries().size() != members.size()) {
    std::abort();
  }
  for (std::size_t i = 0; i < members.size(); ++i) {
    const auto read = (*again)->Read(i);
    if (!read.ok() || read->body != members[i].body ||
        read->envelope != members[i].envelope.value_or("")) {
      std::abort();
    }
  }
  return 0;
}
