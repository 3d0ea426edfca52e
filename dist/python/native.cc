// cudyn._native: the extension module behind the Python package `cudyn` (dist/python/cudyn).
//
// Plain CPython C API, no pybind11. It carries cudyn statically and exports only PyInit__native
// (native.lds): the driver-API trampolines of //stubs:cudyn_cuda_embed (compiled hidden) and
// cudyn-check's code (//tools:check_lib), in-process: nothing here spawns the CLI. One loader is
// linked (//loader:cudyn, which cudyn-check's code brings; dist/python/BUILD says why), so the
// trampolines, the checks and the functions below share one process-wide driver.
//
// Every C++ call runs with the GIL released (Py_BEGIN_ALLOW_THREADS). The loader is thread-safe
// (loader/cudyn.h); RunCheck is not re-entrant, so checks run one at a time (kMaxConcurrentChecks).
// Built for a free-threaded interpreter (Py_GIL_DISABLED, 3.13+) the module says it does not need
// the GIL.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cuda.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "loader/cudyn.h"
#include "tools/check.h"
#include "version_tables/api_table.h"

// Defined (hidden) by //stubs:cudyn_cuda_embed: the driver-API trampoline, bound through the
// process-wide default driver like every cu* call of a program linked with cudyn. cuda.h declares
// it too; the declaration is repeated so this file says where the definition comes from.
extern "C" CUresult cuDriverGetVersion(int* version);

namespace {

struct ModuleState {
  PyObject* error;  // cudyn.CudynError (a RuntimeError)
};

ModuleState* State(PyObject* module) {
  return static_cast<ModuleState*>(PyModule_GetState(module));
}

// Bytes the C++ side produced -> str. Paths and program output are bytes on Linux: decoded as
// Python decodes file names (UTF-8, undecodable bytes as surrogates), so nothing is lost.
PyObject* ToStr(const std::string& bytes) {
  return PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()),
                              "surrogateescape");
}

// str / bytes / os.PathLike -> the bytes the C++ side takes (os.fsencode). False with an error set.
bool ToBytes(PyObject* object, std::string* out) {
  PyObject* encoded = nullptr;
  if (!PyUnicode_FSConverter(object, &encoded)) return false;
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(encoded, &data, &size) != 0) {
    Py_DECREF(encoded);
    return false;
  }
  out->assign(data, static_cast<size_t>(size));
  Py_DECREF(encoded);
  if (out->find('\0') != std::string::npos) {
    PyErr_SetString(PyExc_ValueError, "embedded null byte");
    return false;
  }
  return true;
}

// The clamp as the default driver read it (CUDYN_MAX_CUDA_VERSION, read once at its first use):
// the same parse (ParseCudaVersion), done right after that first use, once per process.
std::optional<int> Clamp() {
  static const std::optional<int> clamp = []() -> std::optional<int> {
    cudyn::DefaultDriver();
    const char* value = std::getenv("CUDYN_MAX_CUDA_VERSION");
    if (value == nullptr || *value == '\0') return std::nullopt;
    return cudyn::ParseCudaVersion(value);
  }();
  return clamp;
}

// How many checks run at once: one. cudyn-check's code was written for one check per process
// and is not re-entrant: each check that opens a driver hands it to KeepDriverLoaded
// (tools/check_common.cc), which appends to a static vector with no lock, and the first check
// sets CUDYN_LOG (setenv). Checks are therefore serialized here (the GIL stays released while one
// waits, so other Python threads and the loader calls below run on). Raise this only once
// RunCheck is re-entrant; the loader itself (everything else in this file) is thread-safe.
constexpr int kMaxConcurrentChecks = 1;

class CheckSlot {
 public:
  CheckSlot() {
    std::unique_lock<std::mutex> lock(mutex_);
    free_.wait(lock, [] { return running_ < kMaxConcurrentChecks; });
    ++running_;
  }
  ~CheckSlot() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_;
    }
    free_.notify_one();
  }
  CheckSlot(const CheckSlot&) = delete;
  CheckSlot& operator=(const CheckSlot&) = delete;

 private:
  static inline std::mutex mutex_;
  static inline std::condition_variable free_;
  static inline int running_ = 0;
};

PyObject* RunCheckPy(PyObject* /*module*/, PyObject* arg) {
  if (!PyList_Check(arg) && !PyTuple_Check(arg)) {
    PyErr_SetString(PyExc_TypeError, "run_check: argv must be a list of str");
    return nullptr;
  }
  const Py_ssize_t n = PySequence_Size(arg);
  if (n < 0) return nullptr;
  std::vector<std::string> argv(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PySequence_GetItem(arg, i);  // a new reference (stable ABI)
    if (item == nullptr) return nullptr;
    const bool ok = ToBytes(item, &argv[static_cast<size_t>(i)]);
    Py_DECREF(item);
    if (!ok) return nullptr;
  }
  int code = 0;
  std::string out_text, err_text;
  Py_BEGIN_ALLOW_THREADS
  {
    CheckSlot slot;  // waits, without the GIL, while another check runs
    std::ostringstream out, err;
    code = cudyn::check::RunCheck(argv, out, err);
    out_text = out.str();
    err_text = err.str();
  }
  Py_END_ALLOW_THREADS
  PyObject* out_str = ToStr(out_text);
  PyObject* err_str = out_str != nullptr ? ToStr(err_text) : nullptr;
  if (err_str == nullptr) {
    Py_XDECREF(out_str);
    return nullptr;
  }
  return Py_BuildValue("(iNN)", code, out_str, err_str);
}

PyObject* DriverVersionPy(PyObject* module, PyObject* /*unused*/) {
  int version = 0;
  CUresult result;
  std::string why;
  Py_BEGIN_ALLOW_THREADS
  result = cuDriverGetVersion(&version);
  if (result != CUDA_SUCCESS) why = cudyn::DefaultDriver().last_error();
  Py_END_ALLOW_THREADS
  if (result != CUDA_SUCCESS) {
    PyErr_Format(State(module)->error, "cuDriverGetVersion failed: CUresult %d%s%s",
                 static_cast<int>(result), why.empty() ? "" : ": ", why.c_str());
    return nullptr;
  }
  return PyLong_FromLong(version);
}

PyObject* EffectiveVersionPy(PyObject* /*module*/, PyObject* /*unused*/) {
  int version = 0;
  Py_BEGIN_ALLOW_THREADS
  version = cudyn::DefaultDriver().effective_version();
  Py_END_ALLOW_THREADS
  return PyLong_FromLong(version);
}

PyObject* MaxCudaVersionPy(PyObject* /*module*/, PyObject* /*unused*/) {
  std::optional<int> clamp;
  Py_BEGIN_ALLOW_THREADS
  clamp = Clamp();
  Py_END_ALLOW_THREADS
  if (!clamp) Py_RETURN_NONE;
  return PyLong_FromLong(*clamp);
}

PyObject* DriverPathPy(PyObject* /*module*/, PyObject* /*unused*/) {
  std::string path;
  Py_BEGIN_ALLOW_THREADS
  path = cudyn::DefaultDriver().path();
  Py_END_ALLOW_THREADS
  return ToStr(path);
}

PyObject* EntryStatusPy(PyObject* /*module*/, PyObject* arg) {
  if (!PyUnicode_Check(arg)) {
    PyErr_SetString(PyExc_TypeError, "entry_status: symbol must be a str");
    return nullptr;
  }
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(arg, &size);
  if (text == nullptr) return nullptr;
  const std::string symbol(text, static_cast<size_t>(size));
  int index = -1;
  const char* status = nullptr;
  Py_BEGIN_ALLOW_THREADS
  index = cudyn::FindEntry(symbol);
  if (index >= 0) {
    cudyn::Driver& driver = cudyn::DefaultDriver();
    driver.Probe(index);  // asking is not calling: a missing entry stays silent (cudyn_c.h)
    status = cudyn::EntryStatusName(driver.status(index));
  }
  Py_END_ALLOW_THREADS
  if (index < 0) {
    PyErr_Format(PyExc_ValueError, "%R is not an exported driver-API symbol cudyn knows", arg);
    return nullptr;
  }
  return PyUnicode_FromString(status);
}

PyMethodDef kMethods[] = {
    {"run_check", RunCheckPy, METH_O,
     "run_check(argv: list[str]) -> tuple[int, str, str]\n--\n\n"
     "Runs cudyn-check in-process on argv (without the program name): (exit code, stdout, "
     "stderr)."},
    {"driver_version", DriverVersionPy, METH_NOARGS,
     "driver_version() -> int\n--\n\n"
     "cuDriverGetVersion through cudyn's embedded trampolines (raises CudynError on failure)."},
    {"effective_version", EffectiveVersionPy, METH_NOARGS,
     "effective_version() -> int\n--\n\n"
     "The default driver's CUDA version after CUDYN_MAX_CUDA_VERSION (0: no driver)."},
    {"max_cuda_version", MaxCudaVersionPy, METH_NOARGS,
     "max_cuda_version() -> int | None\n--\n\n"
     "The clamp CUDYN_MAX_CUDA_VERSION as the default driver read it at its first use, or None."},
    {"driver_path", DriverPathPy, METH_NOARGS,
     "driver_path() -> str\n--\n\n"
     "Path of the driver the default driver opened (\"\" when none)."},
    {"entry_status", EntryStatusPy, METH_O,
     "entry_status(symbol: str) -> str\n--\n\n"
     "Binds the entry if needed: \"native\", \"adapter\" or \"missing\" (ValueError for a symbol "
     "cudyn does not know)."},
    {nullptr, nullptr, 0, nullptr},
};

int Exec(PyObject* module) {
  ModuleState* state = State(module);
  state->error = PyErr_NewExceptionWithDoc(
      "cudyn.CudynError",
      "cudyn could not answer: a usage error or unreadable input (cudyn-check exit code 2), or "
      "a driver call that failed.",
      PyExc_RuntimeError, nullptr);
  if (state->error == nullptr) return -1;
  Py_INCREF(state->error);
  if (PyModule_AddObject(module, "CudynError", state->error) < 0) {
    Py_DECREF(state->error);
    return -1;
  }
  if (PyModule_AddIntConstant(module, "EXIT_INCOMPATIBLE", 1) < 0 ||
      PyModule_AddIntConstant(module, "EXIT_USAGE", 2) < 0 ||
      PyModule_AddIntConstant(module, "EXIT_NO_DRIVER", 3) < 0) {
    return -1;
  }
  return 0;
}

int Traverse(PyObject* module, visitproc visit, void* arg) {
  ModuleState* state = State(module);
  if (state != nullptr) Py_VISIT(state->error);
  return 0;
}

int Clear(PyObject* module) {
  ModuleState* state = State(module);
  if (state != nullptr) Py_CLEAR(state->error);
  return 0;
}

void Free(void* module) { Clear(static_cast<PyObject*>(module)); }

PyModuleDef_Slot kSlots[] = {
    {Py_mod_exec, reinterpret_cast<void*>(Exec)},
#ifdef Py_GIL_DISABLED
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, nullptr},
};

PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT,
    "cudyn._native",
    "cudyn's loader and cudyn-check, linked in (see the package cudyn).",
    sizeof(ModuleState),
    kMethods,
    kSlots,
    Traverse,
    Clear,
    Free,
};

}  // namespace

PyMODINIT_FUNC PyInit__native(void) { return PyModuleDef_Init(&kModule); }
