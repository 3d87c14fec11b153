// Lab programs' options: good input sets the variables, bad input is an error message (the
// programs turn it into exit code 2; tests/harness/test_lab01_matmul_naive.cpp checks that end).
#include <doctest/doctest.h>

#include <vector>

#include "common/cli.h"

namespace {

struct Parsed {
  int64_t m = 4096;
  bool quiet = false;
  std::string file;
  std::vector<std::string> hidden;
  std::string error;
};

Parsed parse(std::vector<const char*> args) {
  Parsed p;
  lab::Cli cli("prog", "test");
  cli.add_int("m", &p.m, 0, 1000000, "rows");
  cli.add_flag("quiet", &p.quiet, "less output");
  cli.add_string("result", &p.file, "file");
  cli.add_strings("hide", &p.hidden, "folders, one per --hide");
  args.insert(args.begin(), "prog");
  p.error = cli.try_parse(int(args.size()), args.data());
  return p;
}

}  // namespace

TEST_SUITE("cli") {

TEST_CASE("good input sets the options") {
  Parsed p = parse({"--m", "17", "--quiet", "--result=out.txt"});
  CHECK(p.error == "");
  CHECK(p.m == 17);
  CHECK(p.quiet);
  CHECK(p.file == "out.txt");
  CHECK(parse({"--m=0"}).m == 0);
  CHECK(parse({}).m == 4096);  // defaults stay
  // An option given more than once keeps every value, in order; none given, none kept.
  CHECK(parse({"--hide", "a", "--hide=b c"}).hidden == std::vector<std::string>{"a", "b c"});
  CHECK(parse({}).hidden.empty());
  CHECK(parse({"--hide"}).error == "--hide needs a value (try --help)");
}

TEST_CASE("bad input is one clear error") {
  struct Bad {
    std::vector<const char*> args;
    const char* says;
  };
  const Bad cases[] = {
      {{"--m", "abc"}, "--m takes a whole number from 0 to 1000000, not 'abc'"},
      {{"--m", "12x"}, "not '12x'"},
      {{"--m", ""}, "not ''"},
      {{"--m", "-5"}, "not -5"},
      {{"--m", "1000001"}, "not 1000001"},
      {{"--m", "99999999999999999999999"}, "not '99999999999999999999999'"},
      {{"--m"}, "--m needs a value"},
      {{"--k", "5"}, "unknown option --k"},
      {{"--quiet=yes"}, "--quiet takes no value"},
      {{"512"}, "unexpected argument '512'"},
      {{"-m", "5"}, "unexpected argument '-m'"},
  };
  for (const Bad& bad : cases) {
    CAPTURE(bad.says);
    const Parsed p = parse(bad.args);
    CHECK_MESSAGE(p.error.find(bad.says) != std::string::npos, p.error);
    CHECK(p.error.find('\n') == std::string::npos);
  }
}

TEST_CASE("the usage lists every option with its default") {
  int64_t m = 64;
  lab::Cli cli("path/to/prog", "Does things.");
  cli.add_int("m", &m, 1, 10, "rows");
  const std::string usage = cli.usage();
  CHECK(usage.find("usage: prog [options]") == 0);
  CHECK(usage.find("--m N") != std::string::npos);
  CHECK(usage.find("(default 64)") != std::string::npos);
  CHECK(usage.find("--help") != std::string::npos);
}

}  // TEST_SUITE
