#include "frota/sink/csv_writer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace frota::sink {
namespace {

TEST(CsvWriter, PrintsEveryTypeTheSameWayEveryTime) {
  const auto path = std::filesystem::temp_directory_path() / "frota-csv-writer-test.csv";
  {
    auto w = CsvWriter::Create(path);
    ASSERT_TRUE(w.ok());
    (*w)->Text("plain");
    (*w)->Text("a,b");
    (*w)->Text(" padded");
    (*w)->Int(-5);
    (*w)->Double(0.1 + 0.2);
    (*w)->Double(-0.0);
    (*w)->Float(1.5F);
    (*w)->Bool(true);
    (*w)->Null();
    (*w)->TimestampMicros(1'656'570'891'000'250);
    (*w)->DateDays(19173);
    (*w)->EndRow();
    ASSERT_TRUE((*w)->Close().ok());
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "plain,\"a,b\",\" padded\",-5,0.30000000000000004,0,1.5,true,,"
            "2022-06-30T06:34:51.000250Z,2022-06-30\n");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace frota::sink
