# Run as a script: cmake -DINPUT=... -DOUTPUT=... -DSYMBOL=... -DNAMESPACE=... -P EmbedFile.cmake
# Writes OUTPUT (.cc) defining `extern const std::string_view SYMBOL` in NAMESPACE with the
# bytes of INPUT, so SQL, HTML and JS live in files a reader can study and still ship
# inside the binary. INPUT may name several files joined by `|`: their bytes, concatenated
# in that order.
string(REPLACE "|" ";" inputs "${INPUT}")
set(content "")
foreach(input ${inputs})
  file(READ "${input}" part HEX)
  string(APPEND content "${part}")
endforeach()
string(LENGTH "${content}" hex_length)
math(EXPR byte_count "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${content}")
# Break the initializer into lines of 16 bytes for the compiler's sake.
string(REGEX REPLACE "(('\\\\x[0-9a-f][0-9a-f]',){16})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}"
"// Generated from ${inputs} by cmake/EmbedFile.cmake; do not edit.\n"
"#include <string_view>\n"
"namespace ${NAMESPACE} {\n"
"namespace {\n"
"constexpr char kBytes[] = {\n${bytes}'\\0'};\n"
"}  // namespace\n"
"extern const std::string_view ${SYMBOL};\n"
"const std::string_view ${SYMBOL}(kBytes, ${byte_count});\n"
"}  // namespace ${NAMESPACE}\n")
