// The same file, not formatted (indentation, spacing, braces): scripts/format-check.sh
// must name it and fail.
#include <string>

namespace frota::format_fixture {

int Sum(int a,int b){return a+b;}

std::string Greeting(const std::string& name)
{
    if(name.empty()) { return "hello"; }
    return "hello "+name;
}

}  // namespace frota::format_fixture
