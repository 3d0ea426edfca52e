// Logging and environment helpers. spdlog and fmt are compiled in header-only, so the loader
// carries no runtime dependency on them; the logger is private (not in spdlog's registry) so a
// host process using spdlog, or a second copy of cudyn, never collides with it.
#include <sys/auxv.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "loader/internal.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace cudyn {
namespace internal {
namespace {

spdlog::logger* MakeLogger() {
  try {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    auto* logger = new spdlog::logger("cudyn", std::move(sink));
    logger->set_pattern("[cudyn] %l: %v");
    logger->set_level(spdlog::level::warn);
    logger->set_error_handler([](const std::string&) {});  // a failed log line is dropped
    return logger;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

spdlog::logger& Log() {
  // Leaked on purpose: adapters and stubs may log during static destruction of the host.
  static spdlog::logger* logger = MakeLogger();
  if (logger == nullptr) {
    static spdlog::logger silent("cudyn-silent");
    silent.set_level(spdlog::level::off);
    return silent;
  }
  return *logger;
}

std::string GetEnv(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

bool IsSecureExecution() { return getauxval(AT_SECURE) != 0; }

ExplicitPath ChooseExplicitPath(const std::string& option, bool use_environment,
                                const char* env_name) {
  ExplicitPath chosen;
  chosen.path = option;
  if (!option.empty() || !use_environment) return chosen;
  std::string value = GetEnv(env_name);
  if (value.empty()) return chosen;
  if (IsSecureExecution()) {
    chosen.path.clear();
    chosen.ignored_secure = value;
  } else {
    chosen.path = value;
    chosen.from_environment = true;
  }
  return chosen;
}

int CopyToBuffer(const std::string& text, char* buffer, size_t size) {
  if (buffer != nullptr && size > 0) {
    size_t n = text.size() < size - 1 ? text.size() : size - 1;
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return static_cast<int>(text.size());
}

std::string ConfigureLogFromEnvironment() {
  std::string value = GetEnv("CUDYN_LOG");
  if (value.empty()) return "";
  static const struct {
    const char* name;
    spdlog::level::level_enum level;
  } kLevels[] = {{"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
                 {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
                 {"warning", spdlog::level::warn}, {"error", spdlog::level::err},
                 {"critical", spdlog::level::critical}, {"off", spdlog::level::off}};
  for (const auto& l : kLevels) {
    if (value == l.name) {
      Log().set_level(l.level);
      return "";
    }
  }
  std::string warning = "CUDYN_LOG='" + value +
                        "' is not one of trace, debug, info, warn, error, critical, off; using warn";
  Log().error("{}", warning);
  return warning;
}

}  // namespace internal
}  // namespace cudyn
