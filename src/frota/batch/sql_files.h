// The batch SQL of sql/, one std::string_view per file, embedded into frota_batch at build
// time (frota_embed_files in CMakeLists.txt: staging.sql -> kStagingSql).
#pragma once

#include <string_view>

namespace frota::batch::sql {
extern const std::string_view kStagingSql;
extern const std::string_view kFunctionsSql;
extern const std::string_view kLocalTimeSql;
extern const std::string_view kAdmissionSql;
extern const std::string_view kLateRoundSql;
extern const std::string_view kKeyRulesSql;
extern const std::string_view kWalkRoundSql;
extern const std::string_view kKeyResultsSql;
extern const std::string_view kJobsSql;
extern const std::string_view kCompareSql;
extern const std::string_view kHeadwaysSql;
}  // namespace frota::batch::sql
