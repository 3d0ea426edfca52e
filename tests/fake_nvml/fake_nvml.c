// The functions of a fake NVML (gen_fake_nvml.py gives every other exported name) that the
// adapters call: each records its arguments and answers fixed data, so a test sees what cudyn
// passed and what it made of the answer.
//   fake_nvml_calls()       "name(args);..." of every call so far
//   FAKE_NVML_PROCESSES     two processes: pid 100 (1 MiB) and pid 200 (2 MiB)
//   FAKE_NVML_MEMORY        total 16 GiB, free 10 GiB, used 6 GiB
#include <stdio.h>
#include <string.h>

#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include <nvml.h>

static char g_calls[8192];

static void append(const char* text) {
  strncat(g_calls, text, sizeof g_calls - strlen(g_calls) - 1);
  strncat(g_calls, ";", sizeof g_calls - strlen(g_calls) - 1);
}

void fake_nvml_record(const char* name) { append(name); }

const char* fake_nvml_calls(void) { return g_calls; }
void fake_nvml_reset(void) { g_calls[0] = '\0'; }

// The v1 process lists: 2 processes; fewer slots than that answers INSUFFICIENT_SIZE.
static nvmlReturn_t processes_v1(const char* name, nvmlDevice_t device, unsigned int* count,
                                 nvmlProcessInfo_v1_t* infos) {
  char text[160];
  snprintf(text, sizeof text, "%s(device=%p,count=%u,infos=%s)", name, (void*)device,
           count ? *count : 0u, infos ? "buffer" : "null");
  append(text);
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  const unsigned int capacity = *count;
  *count = 2;
  if (infos == NULL || capacity < 2) return NVML_ERROR_INSUFFICIENT_SIZE;
  infos[0].pid = 100;
  infos[0].usedGpuMemory = 1ull << 20;
  infos[1].pid = 200;
  infos[1].usedGpuMemory = 2ull << 20;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned int* c,
                                                  nvmlProcessInfo_v1_t* i) {
  return processes_v1("nvmlDeviceGetComputeRunningProcesses", d, c, i);
}
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t d, unsigned int* c,
                                                   nvmlProcessInfo_v1_t* i) {
  return processes_v1("nvmlDeviceGetGraphicsRunningProcesses", d, c, i);
}
nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(nvmlDevice_t d, unsigned int* c,
                                                     nvmlProcessInfo_v1_t* i) {
  return processes_v1("nvmlDeviceGetMPSComputeRunningProcesses", d, c, i);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  char text[96];
  snprintf(text, sizeof text, "nvmlDeviceGetMemoryInfo(device=%p,memory=%s)", (void*)device,
           memory ? "buffer" : "null");
  append(text);
  if (memory == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  memory->total = 16ull << 30;
  memory->free = 10ull << 30;
  memory->used = 6ull << 30;
  return NVML_SUCCESS;
}

// The event wait of 390/418: CUDA 10's nvmlEventData_t (device, eventType, eventData), no more.
struct event_data_before_11 {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
};
nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t* data, unsigned int timeout) {
  char text[96];
  snprintf(text, sizeof text, "nvmlEventSetWait(set=%p,data=%s,timeout=%u)", (void*)set,
           data ? "buffer" : "null", timeout);
  append(text);
  if (data == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  struct event_data_before_11* old = (struct event_data_before_11*)data;
  old->device = (nvmlDevice_t)0x5678;
  old->eventType = nvmlEventTypeXidCriticalError;
  old->eventData = 79;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t device, unsigned int limit) {
  char text[96];
  snprintf(text, sizeof text, "nvmlDeviceSetPowerManagementLimit(device=%p,limit=%u)",
           (void*)device, limit);
  append(text);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int* speed) {
  char text[96];
  snprintf(text, sizeof text, "nvmlDeviceGetFanSpeed(device=%p)", (void*)device);
  append(text);
  if (speed == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *speed = 42;
  return NVML_SUCCESS;
}

// Two retired pages.
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                       unsigned int* count, unsigned long long* addresses) {
  char text[128];
  snprintf(text, sizeof text, "nvmlDeviceGetRetiredPages(device=%p,cause=%d,count=%u,addresses=%s)",
           (void*)device, (int)cause, count ? *count : 0u, addresses ? "buffer" : "null");
  append(text);
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  const unsigned int capacity = *count;
  *count = 2;
  if (addresses == NULL || capacity < 2) return NVML_ERROR_INSUFFICIENT_SIZE;
  addresses[0] = 0x1000;
  addresses[1] = 0x2000;
  return NVML_SUCCESS;
}
