# Target helpers: one call per library, test, benchmark or fuzzer, so every
# module's CMakeLists.txt reads as a list of what it contains and depends on.
include_guard(GLOBAL)

# frota_module_include_root(MODULE job OUT var)
#   Sets var to an include root that holds only frota/<MODULE> (a link to
#   src/frota/<MODULE>), so `#include "frota/<MODULE>/..."` resolves and no other
#   module's header does. A library's include roots are its own and, through its
#   PUBLIC DEPS, those of the modules it may use (src/frota/README.md): an #include of
#   any other module fails to compile. scripts/check-modules.sh checks the same table
#   without a build.
function(frota_module_include_root)
  cmake_parse_arguments(ARG "" "MODULE;OUT" "" ${ARGN})
  set(root ${PROJECT_BINARY_DIR}/module-include/${ARG_MODULE})
  if(NOT EXISTS ${root}/frota/${ARG_MODULE})
    file(MAKE_DIRECTORY ${root}/frota)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/frota/${ARG_MODULE} ${root}/frota/${ARG_MODULE} SYMBOLIC)
  endif()
  set(${ARG_OUT} ${root} PARENT_SCOPE)
endfunction()

# frota_cc_library(NAME engine SRCS a.cc b.cc DEPS frota::base [PRIVATE_DEPS ...])
#   -> static library frota_engine, alias frota::engine. Its module is the folder it is
#   declared in (src/frota/engine); it sees that module's headers and its DEPS' alone,
#   plus the generated frota/version.h.
function(frota_cc_library)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(frota_${ARG_NAME} ${ARG_SRCS})
  add_library(frota::${ARG_NAME} ALIAS frota_${ARG_NAME})
  get_filename_component(module ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  frota_module_include_root(MODULE ${module} OUT module_root)
  target_include_directories(frota_${ARG_NAME} PUBLIC ${module_root} ${PROJECT_BINARY_DIR}/src)
  target_link_libraries(frota_${ARG_NAME} PUBLIC ${ARG_DEPS} PRIVATE frota::options ${ARG_PRIVATE_DEPS})
  if(FROTA_CLANG_TIDY)  # libraries only: gtest/benchmark macros trip many checks
    set_target_properties(frota_${ARG_NAME} PROPERTIES CXX_CLANG_TIDY clang-tidy)
  endif()
endfunction()

# frota_discovered_test_properties(TARGET LABELS a b [RESOURCE_LOCK r] [TIMEOUT s])
#   Sets properties on every test gtest_discover_tests found in TARGET, once ctest has
#   read them. gtest_discover_tests's own PROPERTIES writes its values out flattened: a
#   list of labels kept only its first ("integration"), the next label became a property
#   name, and the properties after it shifted, so `ctest -L needs-postgres` selected none
#   of these tests and the scale-out tests lost their RESOURCE_LOCK and TIMEOUT.
function(frota_discovered_test_properties TARGET)
  cmake_parse_arguments(ARG "" "RESOURCE_LOCK;TIMEOUT" "LABELS" ${ARGN})
  set(properties "LABELS [==[${ARG_LABELS}]==]")
  if(ARG_RESOURCE_LOCK)
    string(APPEND properties " RESOURCE_LOCK ${ARG_RESOURCE_LOCK}")
  endif()
  if(ARG_TIMEOUT)
    string(APPEND properties " TIMEOUT ${ARG_TIMEOUT}")
  endif()
  set(file "${CMAKE_CURRENT_BINARY_DIR}/${TARGET}_properties.cmake")
  # ${TARGET}_TESTS: the list gtest_discover_tests's own include file fills (TEST_LIST).
  file(WRITE "${file}" "if(${TARGET}_TESTS)\n  set_tests_properties(\${${TARGET}_TESTS} PROPERTIES ${properties})\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${file}")
endfunction()

# frota_cc_test(NAME engine SRCS watermark_test.cc DEPS frota::engine [LABELS unit])
#   -> gtest binary NAME_test, each TEST() registered with ctest as NAME.Suite.Case.
function(frota_cc_test)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS;LABELS" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  add_executable(${ARG_NAME}_test ${ARG_SRCS})
  target_link_libraries(${ARG_NAME}_test PRIVATE ${ARG_DEPS} frota::options frota::testing GTest::gtest GTest::gmock GTest::gtest_main)
  # Where tests find data and the frota binary is compiled into frota::testing
  # (src/frota/testing/CMakeLists.txt); environment variables override it.
  gtest_discover_tests(${ARG_NAME}_test TEST_PREFIX "${ARG_NAME}." DISCOVERY_TIMEOUT 60)
  frota_discovered_test_properties(${ARG_NAME}_test LABELS ${ARG_LABELS})
endfunction()

# frota_cc_benchmark(NAME codec_gtfs_rt SRCS gtfs_rt_benchmark.cc DEPS frota::codec)
#   Built only with FROTA_BENCHMARKS; registered as a 'benchmark' ctest that runs briefly.
function(frota_cc_benchmark)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  if(NOT FROTA_BENCHMARKS)
    return()
  endif()
  add_executable(${ARG_NAME}_benchmark ${ARG_SRCS})
  target_link_libraries(${ARG_NAME}_benchmark PRIVATE ${ARG_DEPS} frota::options frota::testing benchmark::benchmark_main)
  add_test(NAME ${ARG_NAME}.benchmark COMMAND ${ARG_NAME}_benchmark --benchmark_min_time=0.01)
  set_tests_properties(${ARG_NAME}.benchmark PROPERTIES LABELS benchmark)
endfunction()

# frota_cc_fuzz(NAME codec_gtfs_rt SRCS gtfs_rt_fuzz.cc DEPS frota::codec
#               CORPUS ${PROJECT_SOURCE_DIR}/tests/data/fuzz/gtfs_rt)
#   FROTA_FUZZING=ON (clang): a libFuzzer binary plus a 10 s 'fuzz' ctest.
#   Otherwise: the same harness linked with fuzz_replay_main.cc, replaying the
#   committed corpus (regressions included) as an ordinary 'unit' test.
function(frota_cc_fuzz)
  cmake_parse_arguments(ARG "" "NAME;CORPUS" "SRCS;DEPS" ${ARGN})
  add_executable(${ARG_NAME}_fuzz ${ARG_SRCS})
  target_link_libraries(${ARG_NAME}_fuzz PRIVATE ${ARG_DEPS} frota::options)
  if(FROTA_FUZZING)
    target_compile_options(${ARG_NAME}_fuzz PRIVATE -fsanitize=fuzzer)
    target_link_options(${ARG_NAME}_fuzz PRIVATE -fsanitize=fuzzer)
    # libFuzzer writes new inputs into the FIRST directory: keep that one in the
    # build tree so the committed corpus only changes by hand.
    set(work_corpus ${CMAKE_CURRENT_BINARY_DIR}/${ARG_NAME}_corpus)
    file(MAKE_DIRECTORY ${work_corpus})
    add_test(NAME ${ARG_NAME}.fuzz
             COMMAND ${ARG_NAME}_fuzz -max_total_time=10 ${work_corpus} ${ARG_CORPUS})
    set_tests_properties(${ARG_NAME}.fuzz PROPERTIES LABELS fuzz)
  else()
    target_sources(${ARG_NAME}_fuzz PRIVATE ${PROJECT_SOURCE_DIR}/src/frota/testing/fuzz_replay_main.cc)
    add_test(NAME ${ARG_NAME}.corpus_replay COMMAND ${ARG_NAME}_fuzz ${ARG_CORPUS})
    set_tests_properties(${ARG_NAME}.corpus_replay PROPERTIES LABELS unit)
  endif()
endfunction()

# frota_embed_files(TARGET frota_sink NAMESPACE frota::sink::sql
#                   FILES sql/schema.sql sql/export.sql)
#   Each FILE becomes `extern const std::string_view k<CamelName>` (schema.sql ->
#   kSchemaSql) in NAMESPACE, compiled into TARGET; regenerated when the file changes.
function(frota_embed_files)
  cmake_parse_arguments(ARG "" "TARGET;NAMESPACE" "FILES" ${ARGN})
  foreach(file ${ARG_FILES})
    frota_embed_concat(TARGET ${ARG_TARGET} NAMESPACE ${ARG_NAMESPACE} NAME ${file} PARTS ${file})
  endforeach()
endfunction()

# frota_embed_concat(TARGET frota_dashboard NAMESPACE frota::dashboard::assets
#                    NAME assets/dashboard.js PARTS assets/dashboard/core.js ...)
#   The PARTS, concatenated byte for byte in the order given, become one
#   `extern const std::string_view k<CamelName of NAME>` (dashboard.js -> kDashboardJs):
#   one embedded file kept in several source files, each a concern.
function(frota_embed_concat)
  cmake_parse_arguments(ARG "" "TARGET;NAMESPACE;NAME" "PARTS" ${ARGN})
  get_filename_component(name ${ARG_NAME} NAME)
  string(REGEX REPLACE "[^A-Za-z0-9]+" ";" words "${name}")
  set(symbol "k")
  foreach(word ${words})
    string(SUBSTRING ${word} 0 1 first)
    string(TOUPPER ${first} first)
    string(SUBSTRING ${word} 1 -1 rest)
    string(APPEND symbol "${first}${rest}")
  endforeach()
  set(inputs "")
  foreach(part ${ARG_PARTS})
    get_filename_component(abs ${part} ABSOLUTE)
    list(APPEND inputs ${abs})
  endforeach()
  # `|` joins the parts on the command line (a `;` would split the argument).
  string(REPLACE ";" "|" input_arg "${inputs}")
  string(REGEX REPLACE "[^A-Za-z0-9]" "_" stem "${ARG_NAME}")
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded/${stem}.cc)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} "-DINPUT=${input_arg}" -DOUTPUT=${out} -DSYMBOL=${symbol}
            -DNAMESPACE=${ARG_NAMESPACE} -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake
    DEPENDS ${inputs} ${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake
    COMMENT "Embedding ${ARG_NAME}"
    VERBATIM)
  target_sources(${ARG_TARGET} PRIVATE ${out})
endfunction()
