// The drop-in's cuGetErrorName / cuGetErrorString answer as the real drivers do (issue 13, item 8).
//
// One compiled test, one process per case (env CUDYN_TEST_DRIVER_MAJOR, see BUILD):
//  * a real driver's major (REAL_DRIVERS): libcudyn_cuda.so is dlopened with CUDYN_DRIVER_PATH at
//    that driver, and for every code 0..999 (and some beyond) its answer equals the driver's own
//    cuGetErrorName/cuGetErrorString (dlsym'd from the same driver): return code, string content
//    when 0, the output pointer's value when not (the drivers store NULL). The checked-in dump
//    version_tables/inputs/error_strings/<major>.tsv equals the live driver too.
//  * "none": CUDYN_DRIVER_PATH names a file that does not exist, so no driver opens; the drop-in
//    answers from the data: for every code the newest real driver (loaded here) knows, exactly
//    its answer; for every code any checked-in dump knows, the newest such driver's text (a dump
//    of a driver not present here, recorded on the GPU machine, is data only); for the rest, 1
//    and NULL.
// Both lists of majors come from the BUILD file (driver_majors.h), never typed here.
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/error_strings/driver_majors.h"
#include "tests/util/runfiles.h"

namespace {

using ErrorTextFn = int (*)(int, const char**);
using VersionFn = int (*)(int*);

const std::string kMajor = [] {
  const char* value = getenv("CUDYN_TEST_DRIVER_MAJOR");
  return std::string(value != nullptr ? value : "");
}();

// Every checked-in dump (what the drop-in's answers are generated from), oldest first, and every
// real driver here.
constexpr int kDumpMajors[] = {CUDYN_DUMP_MAJORS};
constexpr int kRealDriverMajors[] = {CUDYN_REAL_DRIVER_MAJORS};
// The one the no-driver case compares with live (the list is oldest first).
constexpr int kNewestRealMajor = kRealDriverMajors[sizeof(kRealDriverMajors) / sizeof(int) - 1];

// Codes 0..999 plus some the drivers all reject.
std::vector<int> Codes() {
  std::vector<int> codes;
  for (int code = 0; code <= 999; ++code) codes.push_back(code);
  for (int code : {-1, -999, 1000, 1001, 12345, 65536, INT_MAX, INT_MIN}) codes.push_back(code);
  return codes;
}

struct Answer {
  int rc = -1;
  const char* out = nullptr;  // the output pointer after the call (preset to a sentinel)
};

const char kSentinel[] = "cudyn-sentinel";

Answer Ask(ErrorTextFn fn, int code) {
  Answer a;
  a.out = kSentinel;
  a.rc = fn(code, &a.out);
  return a;
}

std::string Describe(const Answer& a) {
  if (a.out == kSentinel) return std::to_string(a.rc) + " (pointer untouched)";
  if (a.out == nullptr) return std::to_string(a.rc) + " NULL";
  return std::to_string(a.rc) + " \"" + a.out + "\"";
}

// Same return code; same string when 0; same pointer value (NULL) when not.
::testing::AssertionResult Same(const Answer& expected, const Answer& actual) {
  bool same = expected.rc == actual.rc &&
              (expected.rc == 0 ? expected.out != nullptr && actual.out != nullptr &&
                                      expected.out != kSentinel && actual.out != kSentinel &&
                                      std::strcmp(expected.out, actual.out) == 0
                                : expected.out == actual.out);
  if (same) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << Describe(expected) << ", got "
                                       << Describe(actual);
}

// One checked-in dump: code -> (name, string).
using Dump = std::map<int, std::pair<std::string, std::string>>;

std::string Unescape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    char c = text[++i];
    out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
  }
  return out;
}

bool ReadDump(int major, Dump* dump) {
  std::string path =
      cudyn::testing::Runfile("version_tables/inputs/error_strings/" + std::to_string(major) + ".tsv");
  std::ifstream in(path);
  if (path.empty() || !in) return false;
  std::string line;
  bool columns = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!columns) {
      columns = line == "code\tname\tstring";
      if (!columns) return false;
      continue;
    }
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string field; std::getline(s, field, '\t');) fields.push_back(field);
    if (fields.size() != 3) return false;
    (*dump)[std::stoi(fields[0])] = {Unescape(fields[1]), Unescape(fields[2])};
  }
  return columns && !dump->empty();
}

std::string DlError() {
  const char* error = dlerror();
  return error != nullptr ? error : "no dlerror";
}

struct Library {
  void* handle = nullptr;
  ErrorTextFn name = nullptr;
  ErrorTextFn string = nullptr;
};

// The real driver `major` from the runfiles, dlopened as a process would.
Library LoadDriver(const std::string& major, std::string* path) {
  *path = cudyn::testing::Runfile("nvidia_drivers/" + major + "/libcuda.so.1");
  Library lib;
  if (path->empty()) return lib;
  if (major == "418") {  // its DT_NEEDED fatbinaryloader is not on the default search path here
    std::string dir = path->substr(0, path->rfind('/'));
    if (dlopen((dir + "/libnvidia-fatbinaryloader.so.418.226.00").c_str(), RTLD_NOW | RTLD_GLOBAL) ==
        nullptr) {
      return lib;
    }
  }
  lib.handle = dlopen(path->c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib.handle == nullptr) return lib;
  lib.name = reinterpret_cast<ErrorTextFn>(dlsym(lib.handle, "cuGetErrorName"));
  lib.string = reinterpret_cast<ErrorTextFn>(dlsym(lib.handle, "cuGetErrorString"));
  return lib;
}

// libcudyn_cuda.so; CUDYN_DRIVER_PATH must be set before (the default driver reads it once).
Library LoadShim() {
  Library lib;
  std::string path = cudyn::testing::Runfile("stubs/libcudyn_cuda.so");
  if (path.empty()) return lib;
  lib.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib.handle == nullptr) return lib;
  lib.name = reinterpret_cast<ErrorTextFn>(dlsym(lib.handle, "cuGetErrorName"));
  lib.string = reinterpret_cast<ErrorTextFn>(dlsym(lib.handle, "cuGetErrorString"));
  return lib;
}

void CheckWithDriver() {
  std::string path;
  Library driver = LoadDriver(kMajor, &path);
  ASSERT_NE(driver.handle, nullptr) << "driver " << kMajor << " missing (" << DlError()
                                    << "): run third_party/fetch_deps.sh";
  ASSERT_NE(driver.name, nullptr);
  ASSERT_NE(driver.string, nullptr);
  setenv("CUDYN_DRIVER_PATH", path.c_str(), 1);
  Library shim = LoadShim();
  ASSERT_NE(shim.handle, nullptr) << DlError();
  ASSERT_NE(shim.name, nullptr);
  ASSERT_NE(shim.string, nullptr);
  ASSERT_NE(shim.name, driver.name);  // really two functions
  auto shim_version = reinterpret_cast<VersionFn>(dlsym(shim.handle, "cuDriverGetVersion"));
  int version = 0;
  ASSERT_EQ(shim_version(&version), 0) << "the shim did not open the driver";

  Dump dump;
  ASSERT_TRUE(ReadDump(std::stoi(kMajor), &dump)) << "version_tables/inputs/error_strings/" << kMajor;
  int known = 0;
  for (int code : Codes()) {
    SCOPED_TRACE("code " + std::to_string(code));
    Answer name = Ask(driver.name, code), text = Ask(driver.string, code);
    EXPECT_TRUE(Same(name, Ask(shim.name, code))) << "cuGetErrorName";
    EXPECT_TRUE(Same(text, Ask(shim.string, code))) << "cuGetErrorString";
    // Forwarded, not copied: the very same strings.
    if (name.rc == 0) {
      EXPECT_EQ(Ask(shim.name, code).out, name.out);
    } else {  // what the drivers do with an unknown code (the dumper proves it more widely)
      EXPECT_TRUE(name.rc == 1 && name.out == nullptr) << Describe(name);
    }
    if (text.rc == 0) {
      EXPECT_EQ(Ask(shim.string, code).out, text.out);
    }
    // The checked-in dump is this driver's answer.
    auto row = dump.find(code);
    if (name.rc == 0 && text.rc == 0) {
      ++known;
      ASSERT_NE(row, dump.end()) << name.out << " missing from the dump";
      EXPECT_EQ(row->second.first, name.out);
      EXPECT_EQ(row->second.second, text.out);
    } else {
      EXPECT_EQ(row, dump.end()) << "the dump has a code the driver does not know";
    }
  }
  EXPECT_EQ(known, static_cast<int>(dump.size()));
  EXPECT_GE(known, 74);  // 418 knows the fewest codes

  // A NULL output pointer is 1 (the drivers crash on it; cudyn never does).
  EXPECT_EQ(shim.name(0, nullptr), 1);
  EXPECT_EQ(shim.string(0, nullptr), 1);
  EXPECT_EQ(shim.string(12345, nullptr), 1);
}

void CheckWithoutDriver() {
  // Every real driver has a dump (the per-driver cases prove it equals the driver).
  for (int major : kRealDriverMajors) {
    EXPECT_NE(std::find(std::begin(kDumpMajors), std::end(kDumpMajors), major),
              std::end(kDumpMajors))
        << "no version_tables/inputs/error_strings/" << major << ".tsv";
  }
  std::string path;
  const std::string newest = std::to_string(kNewestRealMajor);
  Library live = LoadDriver(newest, &path);
  ASSERT_NE(live.handle, nullptr) << "driver " << newest
                                  << " missing: run third_party/fetch_deps.sh";
  Dump live_dump;
  ASSERT_TRUE(ReadDump(kNewestRealMajor, &live_dump)) << newest;
  std::string missing = cudyn::testing::MakeTempDir("no_driver") + "/absent/libcuda.so.1";
  ASSERT_EQ(missing[0], '/');
  setenv("CUDYN_DRIVER_PATH", missing.c_str(), 1);
  Library shim = LoadShim();
  ASSERT_NE(shim.handle, nullptr) << DlError();
  auto shim_version = reinterpret_cast<VersionFn>(dlsym(shim.handle, "cuDriverGetVersion"));
  int version = -7;
  ASSERT_EQ(shim_version(&version), 303) << "a driver was opened after all";

  // Newest driver wins per code; a code only older drivers know keeps their text.
  std::map<int, std::pair<std::string, std::string>> expected;
  for (int major : kDumpMajors) {
    Dump dump;
    ASSERT_TRUE(ReadDump(major, &dump)) << major;
    for (auto& row : dump) expected[row.first] = row.second;
  }
  int known_live = 0, known_any = 0;
  for (int code : Codes()) {
    SCOPED_TRACE("code " + std::to_string(code));
    Answer name = Ask(shim.name, code), text = Ask(shim.string, code);
    Answer live_name = Ask(live.name, code), live_text = Ask(live.string, code);
    if (live_name.rc == 0) {
      ++known_live;
      EXPECT_TRUE(Same(live_name, name)) << "cuGetErrorName vs " << newest;
      EXPECT_TRUE(Same(live_text, text)) << "cuGetErrorString vs " << newest;
    }
    auto row = expected.find(code);
    if (row != expected.end()) {
      ++known_any;
      ASSERT_EQ(name.rc, 0);
      ASSERT_EQ(text.rc, 0);
      EXPECT_EQ(row->second.first, name.out);
      EXPECT_EQ(row->second.second, text.out);
    } else {
      // Known to no driver: as the drivers answer, 1 and NULL.
      EXPECT_EQ(name.rc, 1);
      EXPECT_EQ(name.out, nullptr);
      EXPECT_EQ(text.rc, 1);
      EXPECT_EQ(text.out, nullptr);
      EXPECT_NE(live_name.rc, 0);
    }
  }
  EXPECT_EQ(known_live, static_cast<int>(live_dump.size()));
  EXPECT_EQ(known_any, static_cast<int>(expected.size()));
  // The shim does not copy cuda.h's documentation: what every real driver says.
  const char* text = nullptr;
  ASSERT_EQ(shim.string(0, &text), 0);
  EXPECT_STREQ(text, "no error");
  ASSERT_EQ(shim.string(1, &text), 0);
  EXPECT_STREQ(text, "invalid argument");
  EXPECT_EQ(shim.name(0, nullptr), 1);
  EXPECT_EQ(shim.string(0, nullptr), 1);
}

TEST(ErrorStrings, ShimAnswersAsTheDriverOrWithoutOneAsTheDriversDo) {
  ASSERT_FALSE(kMajor.empty()) << "CUDYN_TEST_DRIVER_MAJOR is not set";
  if (kMajor == "none") {
    CheckWithoutDriver();
  } else {
    CheckWithDriver();
  }
}

}  // namespace
