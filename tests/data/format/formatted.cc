// A file formatted as .clang-format says: scripts/format-check.sh accepts it.
#include <string>

namespace frota::format_fixture {

int Sum(int a, int b) { return a + b; }

std::string Greeting(const std::string& name) {
  if (name.empty()) {
    return "hello";
  }
  return "hello " + name;
}

}  // namespace frota::format_fixture
