// `cudyn-check report`'s NVML part (check_nvml.h). NVML is called through cudyn's own loader (the
// same binding a program linked with cudyn's NVML gets), by entry index; nvmlInit_v2 creates no
// CUDA context.
#include "tools/check_nvml.h"

#include <nvml.h>

#include <memory>

#include "loader/nvml.h"
#include "loader/nvml_support.h"

namespace cudyn {
namespace check {
namespace {

using Json = nlohmann::ordered_json;

template <typename Fn>
Fn Entry(Toolkit& nvml, int index) {
  return reinterpret_cast<Fn>(nvml.Resolve(index));
}

std::string Text(Toolkit& nvml, nvmlReturn_t r) {
  auto text = Entry<const char* (*)(nvmlReturn_t)>(nvml, kNvml_nvmlErrorString);
  return text != nullptr ? text(r) : NvmlErrorStringOf(static_cast<int>(r));
}

Json Result(Toolkit& nvml, nvmlReturn_t r) {
  return {{"result", static_cast<int>(r)}, {"text", Text(nvml, r)}};
}

// One GPU as NVML sees it.
Json DeviceJson(Toolkit& nvml, unsigned int index, std::string* line) {
  Json dev = Json::object();
  dev["index"] = index;
  nvmlDevice_t device{};
  auto handle = Entry<nvmlReturn_t (*)(unsigned int, nvmlDevice_t*)>(
      nvml, kNvml_nvmlDeviceGetHandleByIndex_v2);
  const nvmlReturn_t h = handle != nullptr ? handle(index, &device) : NVML_ERROR_FUNCTION_NOT_FOUND;
  if (h != NVML_SUCCESS) {
    dev["error"] = Result(nvml, h);
    *line = "GPU " + std::to_string(index) + ": " + Text(nvml, h);
    return dev;
  }
  char text[96] = {};
  auto name = Entry<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int)>(nvml,
                                                                          kNvml_nvmlDeviceGetName);
  dev["name"] = name != nullptr && name(device, text, sizeof text) == NVML_SUCCESS ? Json(text)
                                                                                   : Json();
  auto uuid = Entry<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int)>(nvml,
                                                                          kNvml_nvmlDeviceGetUUID);
  dev["uuid"] = uuid != nullptr && uuid(device, text, sizeof text) == NVML_SUCCESS ? Json(text)
                                                                                   : Json();
  nvmlPciInfo_t pci{};
  auto pci_info = Entry<nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t*)>(
      nvml, kNvml_nvmlDeviceGetPciInfo_v3);
  dev["pci_bus_id"] = pci_info != nullptr && pci_info(device, &pci) == NVML_SUCCESS
                          ? Json(pci.busId)
                          : Json();
  nvmlMemory_t memory{};
  auto mem = Entry<nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*)>(nvml,
                                                                  kNvml_nvmlDeviceGetMemoryInfo);
  dev["memory_total"] = mem != nullptr && mem(device, &memory) == NVML_SUCCESS
                            ? Json(memory.total)
                            : Json();
  unsigned int current = 0, pending = 0;
  auto mig = Entry<nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, unsigned int*)>(
      nvml, kNvml_nvmlDeviceGetMigMode);
  const nvmlReturn_t m = mig != nullptr ? mig(device, &current, &pending)
                                        : NVML_ERROR_FUNCTION_NOT_FOUND;
  // NVML_ERROR_NOT_SUPPORTED: a GPU without MIG.
  dev["mig_mode"] = m == NVML_SUCCESS ? Json({{"current", current}, {"pending", pending}})
                                      : Json(Text(nvml, m));
  *line = "GPU " + std::to_string(index) + ": " +
          (dev["name"].is_null() ? std::string("?") : dev["name"].get<std::string>()) + ", " +
          (dev["uuid"].is_null() ? std::string("?") : dev["uuid"].get<std::string>()) + ", PCI " +
          (dev["pci_bus_id"].is_null() ? std::string("?") : dev["pci_bus_id"].get<std::string>()) +
          ", " +
          (dev["memory_total"].is_null() ? std::string("?")
                                         : std::to_string(memory.total >> 20) + " MiB") +
          ", MIG " +
          (m == NVML_SUCCESS ? (current ? std::string("enabled") : std::string("disabled"))
                             : Text(nvml, m));
  return dev;
}

}  // namespace

Json NvmlReportJson(std::optional<int> max_cuda_version, std::vector<std::string>* lines) {
  ToolkitOptions options;
  options.use_environment = true;
  options.max_cuda_version = max_cuda_version;
  std::unique_ptr<Toolkit> opened = Toolkit::Open(kNvmlTraits, options);
  Json j = Json::object();
  if (opened == nullptr || !opened->ok()) {
    j["found"] = false;
    j["error"] = opened != nullptr ? opened->last_error() : std::string("out of memory");
    lines->push_back("none found (" + j["error"].get<std::string>() + ")");
    return j;
  }
  Toolkit& nvml = *opened;
  j["found"] = true;
  j["path"] = nvml.path();
  j["version"] = NvmlVersionText(nvml.version());
  j["branch"] = nvml.own_release();
  j["answers_as_branch"] = nvml.release();
  const int missing = nvml.BindAll();
  int adapter = 0;
  for (int i = 0; i < kNvmlEntryCount; ++i) adapter += nvml.status(i) == EntryStatus::kAdapter;
  j["entries"] = {{"total", kNvmlEntryCount},
                  {"native", kNvmlEntryCount - missing - adapter},
                  {"adapter", adapter},
                  {"missing", missing}};
  lines->push_back(nvml.path() + " (NVML " + NvmlVersionText(nvml.version()) + ", branch " +
                   std::to_string(nvml.own_release()) +
                   (nvml.release() != nvml.own_release()
                        ? ", answering as NVML " + std::to_string(nvml.release()) + " (clamp)"
                        : std::string()) +
                   ")");
  lines->push_back("entries: " + std::to_string(kNvmlEntryCount) + " total: " +
                   std::to_string(kNvmlEntryCount - missing - adapter) + " native, " +
                   std::to_string(adapter) + " adapter, " + std::to_string(missing) + " missing");
  auto init = Entry<nvmlReturn_t (*)()>(nvml, kNvml_nvmlInit_v2);
  const nvmlReturn_t r = init != nullptr ? init() : NVML_ERROR_FUNCTION_NOT_FOUND;
  j["init"] = Result(nvml, r);
  lines->push_back("nvmlInit: " + std::to_string(static_cast<int>(r)) + " " + Text(nvml, r));
  Json devices = Json::array();
  if (r == NVML_SUCCESS) {
    char text[96] = {};
    auto driver = Entry<nvmlReturn_t (*)(char*, unsigned int)>(
        nvml, kNvml_nvmlSystemGetDriverVersion);
    if (driver != nullptr && driver(text, sizeof text) == NVML_SUCCESS) {
      j["driver_version"] = text;
      lines->push_back(std::string("driver version: ") + text);
    }
    unsigned int count = 0;
    auto get_count = Entry<nvmlReturn_t (*)(unsigned int*)>(nvml, kNvml_nvmlDeviceGetCount_v2);
    const nvmlReturn_t c = get_count != nullptr ? get_count(&count) : NVML_ERROR_FUNCTION_NOT_FOUND;
    if (c != NVML_SUCCESS) j["device_count_error"] = Result(nvml, c);
    for (unsigned int i = 0; c == NVML_SUCCESS && i < count; ++i) {
      std::string line;
      devices.push_back(DeviceJson(nvml, i, &line));
      lines->push_back(line);
    }
    if (auto shutdown = Entry<nvmlReturn_t (*)()>(nvml, kNvml_nvmlShutdown)) shutdown();
  }
  j["devices"] = std::move(devices);
  return j;
}

}  // namespace check
}  // namespace cudyn
