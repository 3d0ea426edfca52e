// Every custom adapter (version_tables/inputs/adapters.tsv, kind custom) and a few same-signature
// ones, run against the fake driver of CUDA_VERSION CUDYN_FAKE_VERSION through the drop-in stubs
// (an application compiled against the CUDA 13.0 headers, linked with //stubs:cudyn_cuda).
//
// Table-driven: kRows lists each adapted entry with its drop-in function and its case, one
// gtest per row (AdapterTable/<symbol>). A case is a list of probes; each probe is one call plus
// what each route must show (Check below), so the route logic is written once:
//   native   the fake exports the entry: the call record shows it with the caller's arguments;
//   adapter  the fake lacks it but its fallback is served: the record shows the fallback (or,
//            for chained adapters, the fallback's fallback) with translated arguments, and
//            arguments the fallback cannot express return 801 with nothing reaching the driver;
//   missing  neither: 302 and no call recorded.
// Nothing here hard-codes which variant a driver version has: the route of each entry comes
// from the fake's exports (a fake exports exactly its version's set) and the API table
// (fallback, adapter kind, AdapterCompiledIn), cross-checked with the loader's own status.
//
// The fake records pointer arguments as addresses and never writes out-parameters. Where an
// adapter passes the driver a pointer to one of its own locals (the v1 kernel-node parameters,
// the dropped failIdx), the fake copies the pointee at call time (cudynFakeSetCapture), while the
// adapter's frame still exists.
#include <cuda.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cudyn.h"
#include "loader/cudyn_c.h"
#include "tests/fake_driver/fake_driver.h"
#include "tests/util/runfiles.h"
#include "version_tables/api_table.h"

// Variants the public CUDA 13.0 headers give no name (per-thread variants, older ABIs); the
// drop-in exports a trampoline for every table entry under its exact name.
extern "C" {
CUresult CUDAAPI cuCtxCreate_v3(CUcontext* pctx, CUexecAffinityParam* paramsArray, int numParams,
                                unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count,
                                            CUmemLocation location, unsigned int flags,
                                            CUstream hStream);
CUresult CUDAAPI cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr* dsts, CUdeviceptr* srcs, size_t* sizes,
                                            size_t count, CUmemcpyAttributes* attrs,
                                            size_t* attrsIdxs, size_t numAttrs, CUstream hStream);
CUresult CUDAAPI cuMemcpy3DBatchAsync_v2_ptsz(size_t numOps, CUDA_MEMCPY3D_BATCH_OP* opList,
                                              unsigned long long flags, CUstream hStream);
CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream,
                                           CUstreamCaptureStatus* captureStatus_out,
                                           cuuint64_t* id_out, CUgraph* graph_out,
                                           const CUgraphNode** dependencies_out,
                                           size_t* numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
                                                CUstreamCaptureStatus* captureStatus_out,
                                                cuuint64_t* id_out, CUgraph* graph_out,
                                                const CUgraphNode** dependencies_out,
                                                size_t* numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
                                                CUstreamCaptureStatus* captureStatus_out,
                                                cuuint64_t* id_out, CUgraph* graph_out,
                                                const CUgraphNode** dependencies_out,
                                                const CUgraphEdgeData** edgeData_out,
                                                size_t* numDependencies_out);
CUresult CUDAAPI cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext* pCtx, CUgreenCtx* pGreenCtx);
CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream,
                                                           CUgraphNode* dependencies,
                                                           const CUgraphEdgeData* dependencyData,
                                                           size_t numDependencies,
                                                           unsigned int flags);
}

namespace {

// Set per test target by the BUILD file (env CUDYN_FAKE_VERSION): one compiled test, one process
// per driver.
const int kVersion = [] {
  const char* value = getenv("CUDYN_FAKE_VERSION");
  return value != nullptr ? atoi(value) : 0;
}();
constexpr CUresult kMissing = CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;  // 302
constexpr CUresult kNotSupported = CUDA_ERROR_NOT_SUPPORTED;              // 801

// Stream handles every stream-taking adapter must pass through untouched.
const CUstream kStreams[] = {nullptr, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD,
                             reinterpret_cast<CUstream>(0x7700)};

std::string FakePath() {
  return cudyn::testing::Runfile("tests/fake_driver/cuda_" + std::to_string(kVersion) +
                                 "/libcuda.so.1");
}

template <class T>
unsigned long long W(T* p) {
  return static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p));
}

enum class Route { kNative, kAdapter, kMissing };

const char* RouteName(Route r) {
  return r == Route::kNative ? "native" : r == Route::kAdapter ? "adapter" : "missing";
}

// Global state of the process: the fake (loaded by cudyn at the first cu* call) and its log API.
void* g_handle = nullptr;
CudynFakeApi g_fake;

int Index(const std::string& symbol) {
  int index = cudyn::FindEntry(symbol);
  EXPECT_GE(index, 0) << symbol << " is not in the API table";
  return index;
}
std::string Symbol(int index) { return std::string(cudyn::EntrySymbol(index)); }
// The older variant the table names for `symbol`'s adapter ("" if none).
std::string FallbackOf(const std::string& symbol) {
  int index = Index(symbol);
  return index >= 0 && cudyn::kEntries[index].fallback >= 0
             ? Symbol(cudyn::kEntries[index].fallback)
             : std::string();
}
// How `symbol` must be served on this fake, from its exports and the table alone.
Route RouteOf(const std::string& symbol) {
  int index = Index(symbol);
  if (index < 0) return Route::kMissing;
  if (dlsym(g_handle, symbol.c_str()) != nullptr) return Route::kNative;
  const cudyn::EntryInfo& e = cudyn::kEntries[index];
  bool has_adapter = (e.adapter == cudyn::AdapterKind::kSameSignature ||
                      e.adapter == cudyn::AdapterKind::kCustom) &&
                     e.fallback >= 0 && cudyn::AdapterCompiledIn(index);
  if (has_adapter && RouteOf(Symbol(e.fallback)) != Route::kMissing) return Route::kAdapter;
  return Route::kMissing;
}
// RouteOf, checked against the loader's status of the entry; clears the call log after.
Route Served(const std::string& symbol) {
  Route route = RouteOf(symbol);
  const char* status = cudynEntryStatus(Index(symbol));
  EXPECT_STREQ(status, RouteName(route)) << symbol << " on the CUDA " << kVersion << " fake";
  g_fake.reset();
  return route;
}

// The recorded calls without the driver's own cuGetProcAddress lookups (lazy binding makes
// those on first use of an entry, on 11.3+ fakes).
std::vector<const CudynFakeCall*> Calls() {
  std::vector<const CudynFakeCall*> calls;
  for (int i = 0; i < g_fake.call_count(); ++i) {
    const CudynFakeCall* call = g_fake.call(i);
    if (std::strncmp(call->symbol, "cuGetProcAddress", 16) != 0) calls.push_back(call);
  }
  return calls;
}
std::string Trace() {
  std::string text;
  for (const CudynFakeCall* call : Calls()) text += std::string(call->symbol) + " ";
  return text.empty() ? "(no calls)" : text;
}
unsigned long long Arg(const CudynFakeCall* call, int i) { return call->args[call->arg_word[i]]; }
// A by-value struct argument of at most one word, as the record holds it.
template <class T>
unsigned long long Bits(const T& value) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "one word");
  unsigned long long word = 0;
  std::memcpy(&word, &value, sizeof(T));
  return word;
}

// An expected argument word: an exact value, or "some non-NULL pointer" (an adapter's local).
struct Word {
  Word(unsigned long long v) : value(v) {}  // NOLINT(runtime/explicit): written as plain numbers
  static Word NonNull() {
    Word w(0);
    w.non_null = true;
    return w;
  }
  unsigned long long value;
  bool non_null = false;
};
const Word kNonNull = Word::NonNull();

// One driver call: the function that ran and its argument words.
struct Call {
  std::string symbol;
  std::vector<Word> args;
};
// What a probe must show on one route: the result and the driver calls, in order. A non-empty
// rejected_by means 801 from the adapter of that entry, nothing called, a last error naming it.
struct Outcome {
  CUresult rc = CUDA_SUCCESS;
  std::vector<Call> calls;
  std::string rejected_by;
};
Outcome Calling(std::vector<Call> calls, CUresult rc = CUDA_SUCCESS) {
  return Outcome{rc, std::move(calls), ""};
}
Outcome Rejected(const std::string& by) { return Outcome{kNotSupported, {}, by}; }

// The recorded calls must be exactly `want`; returns them (empty after a failure).
std::vector<const CudynFakeCall*> ExpectCalls(const std::vector<Call>& want) {
  std::vector<const CudynFakeCall*> calls = Calls();
  bool same = calls.size() == want.size();
  for (size_t i = 0; same && i < calls.size(); ++i) same = want[i].symbol == calls[i]->symbol;
  if (!same) {
    std::string text;
    for (const Call& c : want) text += c.symbol + " ";
    ADD_FAILURE() << "driver calls: " << Trace() << "; expected: " << text;
    return {};
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    const std::vector<Word>& args = want[i].args;
    EXPECT_EQ(calls[i]->num_args, static_cast<int>(args.size())) << want[i].symbol;
    for (size_t k = 0; k < args.size() && static_cast<int>(k) < calls[i]->num_args; ++k) {
      if (args[k].non_null) {
        EXPECT_NE(Arg(calls[i], k), 0u) << want[i].symbol << " argument " << k;
      } else {
        EXPECT_EQ(Arg(calls[i], k), args[k].value) << want[i].symbol << " argument " << k;
      }
    }
  }
  return calls;
}
void ExpectMissing(CUresult rc, const std::string& symbol) {
  EXPECT_EQ(rc, kMissing) << symbol << " has neither a native variant nor a usable fallback";
  EXPECT_TRUE(Calls().empty()) << Trace();
}
// 801 from an adapter that cannot express the arguments: nothing reached the driver, and the
// last error names the entry and the 801.
void ExpectRejected(CUresult rc, const std::string& symbol) {
  EXPECT_EQ(rc, kNotSupported) << symbol;
  EXPECT_TRUE(Calls().empty()) << symbol << ": " << Trace();
  char text[1024] = {};
  cudynLastError(text, sizeof(text));
  EXPECT_NE(std::string(text).find(symbol), std::string::npos) << text;
  EXPECT_NE(std::string(text).find("801"), std::string::npos) << text;
}

// One row of kRows on this fake: the entry, how it is served, and the probe runner.
struct Row;
struct Case {
  const Row& row;
  std::string symbol;
  Route route;
  std::string fallback;  // FallbackOf(symbol)

  // The drop-in's function of this row's entry.
  template <class F>
  F Fn() const;
  // The native entry called with exactly `args`.
  Outcome Native(std::vector<Word> args) const { return Calling({{symbol, std::move(args)}}); }
  // The fallback called (once) with `args`.
  Outcome Via(std::vector<Word> args) const { return Calling({{fallback, std::move(args)}}); }
  Outcome Rejected() const { return ::Rejected(symbol); }

  // One probe: clears the log, runs `setup` then `call`, and checks the outcome of this entry's
  // route (missing: 302 and nothing called). Returns the recorded calls.
  std::vector<const CudynFakeCall*> Check(const std::string& what,
                                          const std::function<CUresult()>& call,
                                          const Outcome& native, const Outcome& adapted,
                                          const std::function<void()>& setup = {}) const {
    SCOPED_TRACE(symbol + ": " + what);
    g_fake.reset();
    if (setup) setup();
    CUresult rc = call();
    if (route == Route::kMissing) {
      ExpectMissing(rc, symbol);
      return {};
    }
    const Outcome& want = route == Route::kNative ? native : adapted;
    if (!want.rejected_by.empty()) {
      ExpectRejected(rc, want.rejected_by);
      return {};
    }
    EXPECT_EQ(rc, want.rc);
    return ExpectCalls(want.calls);
  }
  // A probe of the adapter route only (fault injection into the fallback): skipped otherwise.
  std::vector<const CudynFakeCall*> CheckAdapted(const std::string& what,
                                                 const std::function<CUresult()>& call,
                                                 const Outcome& adapted,
                                                 const std::function<void()>& setup = {}) const {
    if (route != Route::kAdapter) return {};
    return Check(what, call, Outcome{}, adapted, setup);
  }
  // Fault injection: the next calls of `fallback_symbol` return `rc`.
  static std::function<void()> Fail(const std::string& fallback_symbol, CUresult rc) {
    return [fallback_symbol, rc] {
      ASSERT_EQ(g_fake.set_result(fallback_symbol.c_str(), rc), 0) << fallback_symbol;
    };
  }
};

struct Row {
  const char* symbol;
  void (*fn)();  // the drop-in's function of `symbol` (type-erased), for cases shared by variants
  void (*run)(const Case&);
  bool always_served;  // the fallback is in every driver: never missing
};

// gtest names a failing row by its symbol.
void PrintTo(const Row& row, std::ostream* os) { *os << row.symbol; }

template <class F>
F Case::Fn() const {
  return reinterpret_cast<F>(row.fn);
}

template <class F>
void (*Erase(F fn))() {
  return reinterpret_cast<void (*)()>(fn);
}

// ---- contexts ------------------------------------------------------------------------------

void CtxCreateV3(const Case& c) {
  CUcontext ctx = nullptr;
  c.Check(
      "no affinity", [&] { return cuCtxCreate_v3(&ctx, nullptr, 0, 4, 3); },
      c.Native({W(&ctx), 0, 0, 4, 3}), c.Via({W(&ctx), 4, 3}));  // plain v2
  CUexecAffinityParam affinity = {};
  affinity.type = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
  affinity.param.smCount.val = 8;
  c.Check(
      "affinity", [&] { return cuCtxCreate_v3(&ctx, &affinity, 1, 0, 1); },
      c.Native({W(&ctx), W(&affinity), 1, 0, 1}),
      c.Rejected());  // v2 has no execution-affinity parameters
}

void CtxCreateV4(const Case& c) {
  const std::string v3 = c.fallback, v2 = FallbackOf(v3);
  const bool v3_native = RouteOf(v3) == Route::kNative;
  CUcontext ctx = nullptr;
  // NULL params, and params with neither affinity nor CIG: v3 without params (or v2 under it).
  CUctxCreateParams empty = {nullptr, 0, nullptr};
  for (CUctxCreateParams* params : {static_cast<CUctxCreateParams*>(nullptr), &empty}) {
    c.Check(
        params == nullptr ? "NULL params" : "empty params",
        [&] { return cuCtxCreate(&ctx, params, 4, 3); }, c.Native({W(&ctx), W(params), 4, 3}),
        v3_native ? Calling({{v3, {W(&ctx), 0, 0, 4, 3}}})
                  : Calling({{v2, {W(&ctx), 4, 3}}}));  // v4 -> v3 adapter -> v2
  }
  // Execution-affinity params: v3 expresses them, v2 does not (the v3 adapter under v4 rejects).
  CUexecAffinityParam affinity = {};
  affinity.type = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
  affinity.param.smCount.val = 8;
  CUctxCreateParams with_affinity = {&affinity, 1, nullptr};
  c.Check(
      "affinity", [&] { return cuCtxCreate(&ctx, &with_affinity, 0, 2); },
      c.Native({W(&ctx), W(&with_affinity), 0, 2}),
      v3_native ? Calling({{v3, {W(&ctx), W(&affinity), 1, 0, 2}}}) : Rejected(v3));
  // CIG params: only v4 expresses them.
  CUctxCigParam cig = {};
  CUctxCreateParams with_cig = {nullptr, 0, &cig};
  c.Check(
      "CIG", [&] { return cuCtxCreate(&ctx, &with_cig, 0, 0); },
      c.Native({W(&ctx), W(&with_cig), 0, 0}), c.Rejected());
}

// cuCtxGetDevice_v2 and cuCtxSynchronize_v2: a NULL context is the current one (v1 directly),
// any other is pushed, v1 called, and popped; the first failure's result is returned.
void CtxGetDeviceV2(const Case& c) {
  const std::string v1 = c.fallback;
  CUdevice device = 0;
  CUcontext ctx = reinterpret_cast<CUcontext>(0x1234);
  auto call = [&] { return cuCtxGetDevice_v2(&device, ctx); };
  const Call push = {"cuCtxPushCurrent_v2", {0x1234}}, pop = {"cuCtxPopCurrent_v2", {kNonNull}};
  c.Check(
      "current context", [&] { return cuCtxGetDevice_v2(&device, nullptr); },
      c.Native({W(&device), 0}), c.Via({W(&device)}));
  c.Check("other context", call, c.Native({W(&device), 0x1234}),
          Calling({push, {v1, {W(&device)}}, pop}));
  c.CheckAdapted("push fails", call, Calling({push}, CUDA_ERROR_INVALID_CONTEXT),
                 Case::Fail("cuCtxPushCurrent_v2", CUDA_ERROR_INVALID_CONTEXT));
  c.CheckAdapted("v1 fails: still popped", call,
                 Calling({push, {v1, {W(&device)}}, pop}, CUDA_ERROR_INVALID_VALUE),
                 Case::Fail(v1, CUDA_ERROR_INVALID_VALUE));
  c.CheckAdapted("pop fails", call,
                 Calling({push, {v1, {W(&device)}}, pop}, CUDA_ERROR_INVALID_CONTEXT),
                 Case::Fail("cuCtxPopCurrent_v2", CUDA_ERROR_INVALID_CONTEXT));
  g_fake.reset();
}

void CtxSynchronizeV2(const Case& c) {
  const std::string v1 = c.fallback;
  CUcontext ctx = reinterpret_cast<CUcontext>(0x4321);
  auto call = [&] { return cuCtxSynchronize_v2(ctx); };
  const Call push = {"cuCtxPushCurrent_v2", {0x4321}}, pop = {"cuCtxPopCurrent_v2", {kNonNull}};
  c.Check(
      "current context", [&] { return cuCtxSynchronize_v2(nullptr); }, c.Native({0}), c.Via({}));
  c.Check("other context", call, c.Native({0x4321}), Calling({push, {v1, {}}, pop}));
  c.CheckAdapted("v1 fails: still popped", call,
                 Calling({push, {v1, {}}, pop}, CUDA_ERROR_LAUNCH_FAILED),
                 Case::Fail(v1, CUDA_ERROR_LAUNCH_FAILED));
  g_fake.reset();
}

// The shim answers the application's cuGetProcAddress itself, so the loader's entry for the
// driver's cuGetProcAddress_v2 is reached through the default driver directly, and the records
// are found by the name looked up (the loader's own lookups are of other names).
void GetProcAddressV2(const Case& c) {
  const std::string v1 = c.fallback;
  using Fn =
      CUresult(CUDAAPI*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto fn = reinterpret_cast<Fn>(cudyn::DefaultDriver().Resolve(Index(c.symbol)));
  if (c.route == Route::kMissing) {
    EXPECT_EQ(fn, nullptr);
    EXPECT_EQ(g_fake.call_count(), 0);
    return;
  }
  ASSERT_NE(fn, nullptr);
  auto lookup = [&](const char* name) -> const CudynFakeCall* {
    const CudynFakeCall* found = nullptr;
    int n = 0;
    for (int i = 0; i < g_fake.call_count(); ++i) {
      if (std::strcmp(g_fake.call(i)->requested, name) == 0) {
        found = g_fake.call(i);
        ++n;
      }
    }
    EXPECT_EQ(n, 1) << name;
    return found;
  };
  const bool native = c.route == Route::kNative;
  const char* name = "cuMemAlloc";
  void* pfn = nullptr;
  CUdriverProcAddressQueryResult status = static_cast<CUdriverProcAddressQueryResult>(7);
  g_fake.reset();
  ASSERT_EQ(fn(name, &pfn, 3020, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
  const CudynFakeCall* call = lookup(name);
  ASSERT_NE(call, nullptr);
  EXPECT_STREQ(call->symbol, native ? c.symbol.c_str() : v1.c_str());
  ASSERT_EQ(call->num_args, native ? 5 : 4);
  if (native) {
    EXPECT_EQ(Arg(call, 4), W(&status));
  } else {
    EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
  }
  EXPECT_EQ(Arg(call, 0), W(name));
  EXPECT_EQ(Arg(call, 1), W(&pfn));
  EXPECT_EQ(Arg(call, 2), 3020u);
  EXPECT_EQ(Arg(call, 3), 0u);
  EXPECT_EQ(pfn, dlsym(g_handle, "cuMemAlloc_v2"));

  // Not found: v2 reports it as success + symbolStatus NOT_FOUND with a NULL pointer.
  const char* unknown = "cuNoSuchFunctionAnywhere";
  pfn = reinterpret_cast<void*>(0x1);
  status = static_cast<CUdriverProcAddressQueryResult>(7);
  g_fake.reset();
  EXPECT_EQ(fn(unknown, &pfn, 3020, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
  call = lookup(unknown);
  ASSERT_NE(call, nullptr);
  EXPECT_STREQ(call->symbol, native ? c.symbol.c_str() : v1.c_str());
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  EXPECT_EQ(pfn, nullptr);
  // symbolStatus may be NULL.
  g_fake.reset();
  EXPECT_EQ(fn(name, &pfn, 3020, CU_GET_PROC_ADDRESS_DEFAULT, nullptr), CUDA_SUCCESS);
  // Other errors pass through (the adapter's v1 failing).
  if (!native) {
    g_fake.reset();
    ASSERT_EQ(g_fake.set_result(v1.c_str(), CUDA_ERROR_INVALID_VALUE), 0);
    EXPECT_EQ(fn(name, &pfn, 3020, 0, &status), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  }
  g_fake.reset();
}

// ---- graphs: edge data -----------------------------------------------------------------------

CUgraphEdgeData ProgrammaticEdge() {
  CUgraphEdgeData edge = {};
  edge.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
  return edge;
}

// cuGraphAddDependencies_v2 / cuGraphRemoveDependencies_v2: (graph, from, to, edgeData, n).
void EdgeList(const Case& c) {
  auto fn = c.Fn<CUresult (*)(CUgraph, const CUgraphNode*, const CUgraphNode*,
                              const CUgraphEdgeData*, size_t)>();
  CUgraph graph = reinterpret_cast<CUgraph>(0x10);
  CUgraphNode from[2] = {reinterpret_cast<CUgraphNode>(0x20), reinterpret_cast<CUgraphNode>(0x21)};
  CUgraphNode to[2] = {reinterpret_cast<CUgraphNode>(0x30), reinterpret_cast<CUgraphNode>(0x31)};
  CUgraphEdgeData defaults[2] = {};
  CUgraphEdgeData mixed[2] = {{}, ProgrammaticEdge()};
  for (const CUgraphEdgeData* data : {static_cast<const CUgraphEdgeData*>(nullptr),
                                      static_cast<const CUgraphEdgeData*>(defaults)}) {
    c.Check(
        data == nullptr ? "NULL edge data" : "default edge data",
        [&] { return fn(graph, from, to, data, 2); },
        c.Native({W(graph), W(from), W(to), W(data), 2}), c.Via({W(graph), W(from), W(to), 2}));
  }
  c.Check(
      "programmatic edge", [&] { return fn(graph, from, to, mixed, 2); },
      c.Native({W(graph), W(from), W(to), W(mixed), 2}), c.Rejected());
}

void GraphAddNodeV2(const Case& c) {
  CUgraph graph = reinterpret_cast<CUgraph>(0x10);
  CUgraphNode node = nullptr;
  CUgraphNode deps[2] = {reinterpret_cast<CUgraphNode>(0x20), reinterpret_cast<CUgraphNode>(0x21)};
  CUgraphEdgeData defaults[2] = {};
  CUgraphEdgeData mixed[2] = {ProgrammaticEdge(), {}};
  CUgraphNodeParams params = {};
  params.type = CU_GRAPH_NODE_TYPE_EMPTY;
  for (CUgraphEdgeData* data : {static_cast<CUgraphEdgeData*>(nullptr), defaults, mixed}) {
    c.Check(
        data == nullptr    ? "NULL edge data"
        : data == defaults ? "default edge data"
                           : "programmatic edge",
        [&] { return cuGraphAddNode(&node, graph, deps, data, 2, &params); },
        c.Native({W(&node), W(graph), W(deps), W(data), 2, W(&params)}),
        data == mixed ? c.Rejected() : c.Via({W(&node), W(graph), W(deps), 2, W(&params)}));
  }
}

void StreamUpdateCaptureDependenciesV2(const Case& c) {
  auto fn =
      c.Fn<CUresult (*)(CUstream, CUgraphNode*, const CUgraphEdgeData*, size_t, unsigned int)>();
  CUgraphNode deps[2] = {reinterpret_cast<CUgraphNode>(0x20), reinterpret_cast<CUgraphNode>(0x21)};
  CUgraphEdgeData defaults[2] = {};
  CUgraphEdgeData mixed[2] = {{}, ProgrammaticEdge()};
  for (CUstream stream : kStreams) {
    SCOPED_TRACE("stream " + std::to_string(W(stream)));
    for (CUgraphEdgeData* data : {static_cast<CUgraphEdgeData*>(nullptr), defaults}) {
      c.Check(
          data == nullptr ? "NULL edge data" : "default edge data",
          [&] { return fn(stream, deps, data, 2, CU_STREAM_SET_CAPTURE_DEPENDENCIES); },
          c.Native({W(stream), W(deps), W(data), 2, CU_STREAM_SET_CAPTURE_DEPENDENCIES}),
          c.Via({W(stream), W(deps), 2, CU_STREAM_SET_CAPTURE_DEPENDENCIES}));
    }
    c.Check(
        "programmatic edge",
        [&] { return fn(stream, deps, mixed, 2, CU_STREAM_ADD_CAPTURE_DEPENDENCIES); },
        c.Native({W(stream), W(deps), W(mixed), 2, CU_STREAM_ADD_CAPTURE_DEPENDENCIES}),
        c.Rejected());
  }
}

// cuGraphGetEdges_v2 / cuGraphNodeGetDependencies_v2 / cuGraphNodeGetDependentNodes_v2: v1 fills
// the node arrays; the adapter zero-fills requested edge data (all edges are default edges).
bool AllZero(const CUgraphEdgeData* edges, size_t n) {
  static const CUgraphEdgeData kZero = {};
  for (size_t i = 0; i < n; ++i) {
    if (std::memcmp(&edges[i], &kZero, sizeof(kZero)) != 0) return false;
  }
  return true;
}

void GraphGetEdgesV2(const Case& c) {
  CUgraph graph = reinterpret_cast<CUgraph>(0x10);
  CUgraphNode from[3], to[3];
  CUgraphEdgeData edges[3];
  std::memset(edges, 0xFF, sizeof(edges));
  size_t num = 3;
  c.Check(
      "edge data", [&] { return cuGraphGetEdges(graph, from, to, edges, &num); },
      c.Native({W(graph), W(from), W(to), W(edges), W(&num)}),
      c.Via({W(graph), W(from), W(to), W(&num)}));
  if (c.route == Route::kAdapter) {
    EXPECT_TRUE(AllZero(edges, 3)) << "default edges";
  }
  // No edge data requested, and the count-only query.
  c.Check(
      "no edge data", [&] { return cuGraphGetEdges(graph, from, to, nullptr, &num); },
      c.Native({W(graph), W(from), W(to), 0, W(&num)}), c.Via({W(graph), W(from), W(to), W(&num)}));
  c.Check(
      "count only", [&] { return cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &num); },
      c.Native({W(graph), 0, 0, 0, W(&num)}), c.Via({W(graph), 0, 0, W(&num)}));
  // v1 failing: its result, edge data untouched.
  std::memset(edges, 0xFF, sizeof(edges));
  c.CheckAdapted(
      "v1 fails", [&] { return cuGraphGetEdges(graph, from, to, edges, &num); },
      Calling({{c.fallback, {W(graph), W(from), W(to), W(&num)}}}, CUDA_ERROR_INVALID_VALUE),
      Case::Fail(c.fallback, CUDA_ERROR_INVALID_VALUE));
  if (c.route == Route::kAdapter) {
    EXPECT_EQ(edges[0].type, 0xFF);
  }
  g_fake.reset();
}

void NodeEdgeQuery(const Case& c) {
  auto fn = c.Fn<CUresult (*)(CUgraphNode, CUgraphNode*, CUgraphEdgeData*, size_t*)>();
  CUgraphNode node = reinterpret_cast<CUgraphNode>(0x40);
  CUgraphNode deps[4];
  CUgraphEdgeData edges[4];
  std::memset(edges, 0xFF, sizeof(edges));
  size_t num = 4;
  c.Check(
      "edge data", [&] { return fn(node, deps, edges, &num); },
      c.Native({W(node), W(deps), W(edges), W(&num)}), c.Via({W(node), W(deps), W(&num)}));
  if (c.route == Route::kAdapter) {
    EXPECT_TRUE(AllZero(edges, 4)) << "default edges";
  }
  c.Check(
      "no edge data", [&] { return fn(node, deps, nullptr, &num); },
      c.Native({W(node), W(deps), 0, W(&num)}), c.Via({W(node), W(deps), W(&num)}));
  c.Check(
      "count only", [&] { return fn(node, nullptr, nullptr, &num); },
      c.Native({W(node), 0, 0, W(&num)}), c.Via({W(node), 0, W(&num)}));
  std::memset(edges, 0xFF, sizeof(edges));
  c.CheckAdapted(
      "v1 fails", [&] { return fn(node, deps, edges, &num); },
      Calling({{c.fallback, {W(node), W(deps), W(&num)}}}, CUDA_ERROR_INVALID_VALUE),
      Case::Fail(c.fallback, CUDA_ERROR_INVALID_VALUE));
  if (c.route == Route::kAdapter) {
    EXPECT_EQ(edges[0].type, 0xFF);
  }
  g_fake.reset();
}

// ---- graphs: kernel-node parameters ------------------------------------------------------------

CUDA_KERNEL_NODE_PARAMS KernelParams() {
  CUDA_KERNEL_NODE_PARAMS p = {};
  p.func = reinterpret_cast<CUfunction>(0x99);
  p.gridDimX = 1;
  p.gridDimY = 2;
  p.gridDimZ = 3;
  p.blockDimX = 4;
  p.blockDimY = 5;
  p.blockDimZ = 6;
  p.sharedMemBytes = 7;
  p.kernelParams = reinterpret_cast<void**>(0xAA0);
  p.extra = reinterpret_cast<void**>(0xBB0);
  return p;
}

// The v1 parameters the adapter handed the driver: its own copy (not the caller's v2 struct),
// read from the bytes the fake captured during the call (cudynFakeSetCapture).
void ExpectV1Params(const CudynFakeCall* rec, int param_arg,
                    const CUDA_KERNEL_NODE_PARAMS* caller) {
  ASSERT_EQ(rec->captured_size, static_cast<int>(sizeof(CUDA_KERNEL_NODE_PARAMS_v1)))
      << "the fake should have captured the v1 params";
  EXPECT_NE(Arg(rec, param_arg), W(caller)) << "v1 params should be a copy";
  CUDA_KERNEL_NODE_PARAMS_v1 v1;
  std::memcpy(&v1, rec->captured, sizeof(v1));
  CUDA_KERNEL_NODE_PARAMS want = KernelParams();
  EXPECT_EQ(v1.func, want.func);
  EXPECT_EQ(v1.gridDimX, 1u);
  EXPECT_EQ(v1.gridDimY, 2u);
  EXPECT_EQ(v1.gridDimZ, 3u);
  EXPECT_EQ(v1.blockDimX, 4u);
  EXPECT_EQ(v1.blockDimY, 5u);
  EXPECT_EQ(v1.blockDimZ, 6u);
  EXPECT_EQ(v1.sharedMemBytes, 7u);
  EXPECT_EQ(v1.kernelParams, want.kernelParams);
  EXPECT_EQ(v1.extra, want.extra);
}

// The entry takes kernel params as argument `param_arg`; its other arguments are `other` (in
// order); `call(params)` calls it.
void KernelParamsCase(const Case& c, int param_arg, const std::vector<Word>& other,
                      const std::function<CUresult(const CUDA_KERNEL_NODE_PARAMS*)>& call) {
  auto with = [&](Word params) {
    std::vector<Word> args = other;
    args.insert(args.begin() + param_arg, params);
    return args;
  };
  CUDA_KERNEL_NODE_PARAMS params = KernelParams();
  std::vector<const CudynFakeCall*> rec = c.Check(
      "params", [&] { return call(&params); }, c.Native(with(W(&params))),
      c.Via(with(kNonNull)),  // the adapter's v1 copy, checked below
      [&] {
        if (c.route != Route::kAdapter) return;
        ASSERT_EQ(
            g_fake.set_capture(c.fallback.c_str(), param_arg, sizeof(CUDA_KERNEL_NODE_PARAMS_v1)),
            0);
      });
  if (c.route == Route::kAdapter && rec.size() == 1) ExpectV1Params(rec[0], param_arg, &params);
  // NULL params pass through as NULL.
  c.Check(
      "NULL params", [&] { return call(nullptr); }, c.Native(with(0)), c.Via(with(0)));
  // kern / ctx (v2-only fields): 801 on the adapter.
  CUDA_KERNEL_NODE_PARAMS with_kern = KernelParams();
  with_kern.func = nullptr;
  with_kern.kern = reinterpret_cast<CUkernel>(0x77);
  CUDA_KERNEL_NODE_PARAMS with_ctx = KernelParams();
  with_ctx.ctx = reinterpret_cast<CUcontext>(0x88);
  for (const CUDA_KERNEL_NODE_PARAMS* p : {&with_kern, &with_ctx}) {
    c.Check(
        p == &with_kern ? "kern" : "ctx", [&] { return call(p); }, c.Native(with(W(p))),
        c.Rejected());
  }
}

void GraphAddKernelNodeV2(const Case& c) {
  CUgraphNode node = nullptr;
  CUgraph graph = reinterpret_cast<CUgraph>(0x10);
  CUgraphNode deps[2] = {reinterpret_cast<CUgraphNode>(0x20), reinterpret_cast<CUgraphNode>(0x21)};
  KernelParamsCase(c, 4, {W(&node), W(graph), W(deps), 2}, [&](const CUDA_KERNEL_NODE_PARAMS* p) {
    return cuGraphAddKernelNode(&node, graph, deps, 2, p);
  });
}

void GraphKernelNodeSetParamsV2(const Case& c) {
  CUgraphNode node = reinterpret_cast<CUgraphNode>(0x40);
  KernelParamsCase(c, 1, {W(node)}, [&](const CUDA_KERNEL_NODE_PARAMS* p) {
    return cuGraphKernelNodeSetParams(node, p);
  });
}

void GraphExecKernelNodeSetParamsV2(const Case& c) {
  CUgraphExec exec = reinterpret_cast<CUgraphExec>(0x50);
  CUgraphNode node = reinterpret_cast<CUgraphNode>(0x40);
  KernelParamsCase(c, 2, {W(exec), W(node)}, [&](const CUDA_KERNEL_NODE_PARAMS* p) {
    return cuGraphExecKernelNodeSetParams(exec, node, p);
  });
}

void GraphKernelNodeGetParamsV2(const Case& c) {
  CUgraphNode node = reinterpret_cast<CUgraphNode>(0x40);
  CUDA_KERNEL_NODE_PARAMS params;
  std::memset(&params, 0xFF, sizeof(params));
  c.Check(
      "params", [&] { return cuGraphKernelNodeGetParams(node, &params); },
      c.Native({W(node), W(&params)}), c.Via({W(node), kNonNull}));
  if (c.route == Route::kAdapter) {
    // The driver filled nothing (the fake never writes): the common fields are v1's (zero) and
    // the v2-only kern/ctx are NULL; no 0xFF byte of the caller's buffer survives.
    EXPECT_EQ(params.kern, nullptr);
    EXPECT_EQ(params.ctx, nullptr);
    EXPECT_EQ(params.func, nullptr);
    EXPECT_EQ(params.gridDimX, 0u);
    EXPECT_EQ(params.sharedMemBytes, 0u);
    EXPECT_EQ(params.kernelParams, nullptr);
    EXPECT_EQ(params.extra, nullptr);
  }
  // v1 failing: its result, the caller's struct untouched.
  std::memset(&params, 0xFF, sizeof(params));
  c.CheckAdapted(
      "v1 fails", [&] { return cuGraphKernelNodeGetParams(node, &params); },
      Calling({{c.fallback, {W(node), kNonNull}}}, CUDA_ERROR_INVALID_VALUE),
      Case::Fail(c.fallback, CUDA_ERROR_INVALID_VALUE));
  if (c.route == Route::kAdapter) {
    EXPECT_EQ(params.gridDimX, 0xFFFFFFFFu);
  }
  g_fake.reset();
}

void GraphExecUpdateV2(const Case& c) {
  CUgraphExec exec = reinterpret_cast<CUgraphExec>(0x50);
  CUgraph graph = reinterpret_cast<CUgraph>(0x10);
  CUgraphExecUpdateResultInfo info;
  std::memset(&info, 0xFF, sizeof(info));
  // v1 gets hErrorNode_out and updateResult_out: the adapter's locals.
  const Outcome v1 = c.Via({W(exec), W(graph), kNonNull, kNonNull});
  c.Check(
      "info", [&] { return cuGraphExecUpdate(exec, graph, &info); },
      c.Native({W(exec), W(graph), W(&info)}), v1);
  if (c.route == Route::kAdapter) {
    EXPECT_EQ(info.result, CU_GRAPH_EXEC_UPDATE_SUCCESS);
    EXPECT_EQ(info.errorNode, nullptr);
    EXPECT_EQ(info.errorFromNode, nullptr);
  }
  // v1's failure is returned, info still filled; info may be NULL.
  std::memset(&info, 0xFF, sizeof(info));
  c.CheckAdapted(
      "v1 fails", [&] { return cuGraphExecUpdate(exec, graph, &info); },
      Calling(v1.calls, CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE),
      Case::Fail(c.fallback, CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE));
  if (c.route == Route::kAdapter) {
    EXPECT_EQ(info.errorFromNode, nullptr);
  }
  c.Check(
      "NULL info", [&] { return cuGraphExecUpdate(exec, graph, nullptr); },
      c.Native({W(exec), W(graph), 0}), v1);
}

// ---- memory ---------------------------------------------------------------------------------

void MemAdviseV2(const Case& c) {
  struct Location {
    CUmemLocation location;
    long long device;  // the v1 device argument, or 0 when v1 cannot express the location
    bool expressible;
  };
  const Location locations[] = {
      {{CU_MEM_LOCATION_TYPE_DEVICE, 2}, 2, true},
      {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, 0, true},
      {{CU_MEM_LOCATION_TYPE_HOST, 0}, CU_DEVICE_CPU, true},
      {{CU_MEM_LOCATION_TYPE_HOST, 5}, CU_DEVICE_CPU, true},  // the id means nothing for HOST
      {{CU_MEM_LOCATION_TYPE_HOST_NUMA, 1}, 0, false},
      {{CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0}, 0, false},
      {{CU_MEM_LOCATION_TYPE_INVALID, 0}, 0, false},
  };
  for (const Location& l : locations) {
    c.Check(
        "location type " + std::to_string(l.location.type) + " id " + std::to_string(l.location.id),
        [&] { return cuMemAdvise(0x1000, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, l.location); },
        c.Native({0x1000, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, Bits(l.location)}),
        l.expressible ? c.Via({0x1000, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
                               static_cast<unsigned long long>(l.device)})
                      : c.Rejected());
  }
}

void MemPrefetchAsyncV2(const Case& c) {
  auto fn = c.Fn<CUresult (*)(CUdeviceptr, size_t, CUmemLocation, unsigned int, CUstream)>();
  const CUmemLocation device = {CU_MEM_LOCATION_TYPE_DEVICE, 1};
  const CUmemLocation host = {CU_MEM_LOCATION_TYPE_HOST, 0};
  const CUmemLocation numa = {CU_MEM_LOCATION_TYPE_HOST_NUMA, 0};
  for (CUstream stream : kStreams) {
    SCOPED_TRACE("stream " + std::to_string(W(stream)));
    for (auto [location, v1_device] : {std::make_pair(device, 1LL), std::make_pair(host, -1LL)}) {
      c.Check(
          "location type " + std::to_string(location.type),
          [&] { return fn(0x2000, 256, location, 0, stream); },
          c.Native({0x2000, 256, Bits(location), 0, W(stream)}),
          c.Via({0x2000, 256, static_cast<unsigned long long>(v1_device), W(stream)}));
    }
    // Flags (none defined before 12.2) and HOST_NUMA cannot be expressed by v1.
    c.Check(
        "flags", [&] { return fn(0x2000, 256, device, 1, stream); },
        c.Native({0x2000, 256, Bits(device), 1, W(stream)}), c.Rejected());
    c.Check(
        "HOST_NUMA", [&] { return fn(0x2000, 256, numa, 0, stream); },
        c.Native({0x2000, 256, Bits(numa), 0, W(stream)}), c.Rejected());
  }
}

void MemcpyBatchAsyncV2(const Case& c) {
  auto fn = c.Fn<CUresult (*)(CUdeviceptr*, CUdeviceptr*, size_t*, size_t, CUmemcpyAttributes*,
                              size_t*, size_t, CUstream)>();
  CUdeviceptr dsts[3] = {0x100, 0x200, 0x300}, srcs[3] = {0x400, 0x500, 0x600};
  size_t sizes[3] = {16, 32, 64};
  CUmemcpyAttributes attrs[1] = {};
  size_t attr_idxs[1] = {0};
  for (CUstream stream : kStreams) {
    // v2 dropped failIdx: the adapter passes a local of its own, never NULL.
    c.Check(
        "stream " + std::to_string(W(stream)),
        [&] { return fn(dsts, srcs, sizes, 3, attrs, attr_idxs, 1, stream); },
        c.Native({W(dsts), W(srcs), W(sizes), 3, W(attrs), W(attr_idxs), 1, W(stream)}),
        c.Via({W(dsts), W(srcs), W(sizes), 3, W(attrs), W(attr_idxs), 1, kNonNull, W(stream)}));
  }
}

void Memcpy3DBatchAsyncV2(const Case& c) {
  auto fn = c.Fn<CUresult (*)(size_t, CUDA_MEMCPY3D_BATCH_OP*, unsigned long long, CUstream)>();
  CUDA_MEMCPY3D_BATCH_OP ops[2] = {};
  for (CUstream stream : kStreams) {
    c.Check(
        "stream " + std::to_string(W(stream)), [&] { return fn(2, ops, 0, stream); },
        c.Native({2, W(ops), 0, W(stream)}),
        c.Via({2, W(ops), kNonNull, 0, W(stream)}));  // failIdx: the adapter's own local
  }
}

// ---- streams --------------------------------------------------------------------------------

void StreamBeginCaptureV2(const Case& c) {
  auto fn = c.Fn<CUresult (*)(CUstream, CUstreamCaptureMode)>();
  for (CUstream stream : kStreams) {
    SCOPED_TRACE("stream " + std::to_string(W(stream)));
    c.Check(
        "global mode", [&] { return fn(stream, CU_STREAM_CAPTURE_MODE_GLOBAL); },
        c.Native({W(stream), CU_STREAM_CAPTURE_MODE_GLOBAL}), c.Via({W(stream)}));
    for (CUstreamCaptureMode mode :
         {CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, CU_STREAM_CAPTURE_MODE_RELAXED}) {
      c.Check(
          "mode " + std::to_string(mode), [&] { return fn(stream, mode); },
          c.Native({W(stream), static_cast<unsigned long long>(mode)}), c.Rejected());
    }
  }
}

void StreamGetCaptureInfoV2(const Case& c) {
  auto fn = c.Fn<CUresult (*)(CUstream, CUstreamCaptureStatus*, cuuint64_t*, CUgraph*,
                              const CUgraphNode**, size_t*)>();
  const std::string v1 = c.fallback;
  for (CUstream stream : kStreams) {
    SCOPED_TRACE("stream " + std::to_string(W(stream)));
    // Not capturing (the fake leaves the caller's NONE status as it is).
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    CUgraph graph = reinterpret_cast<CUgraph>(0x1);
    const CUgraphNode* deps = reinterpret_cast<const CUgraphNode*>(0x1);
    size_t num = 5;
    const Outcome status_query = c.Via({W(stream), W(&status), W(&id)});
    c.Check(
        "not capturing", [&] { return fn(stream, &status, &id, &graph, &deps, &num); },
        c.Native({W(stream), W(&status), W(&id), W(&graph), W(&deps), W(&num)}), status_query);
    if (c.route != Route::kAdapter) continue;
    EXPECT_EQ(graph, nullptr);
    EXPECT_EQ(deps, nullptr);
    EXPECT_EQ(num, 0u);
    // Status not requested: v1 still gets somewhere to write it.
    c.CheckAdapted(
        "no status", [&] { return fn(stream, nullptr, &id, nullptr, nullptr, nullptr); },
        c.Via({W(stream), kNonNull, W(&id)}));
    // Capturing (status ACTIVE): status/id alone are fine; graph or dependencies are not
    // expressible by v1 (801 after the status query reached the driver).
    status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    c.CheckAdapted(
        "capturing, status only",
        [&] { return fn(stream, &status, &id, nullptr, nullptr, nullptr); }, status_query);
    c.CheckAdapted(
        "capturing, graph", [&] { return fn(stream, &status, &id, &graph, nullptr, nullptr); },
        Calling(status_query.calls, kNotSupported));
    c.CheckAdapted(
        "capturing, dependencies", [&] { return fn(stream, &status, &id, nullptr, &deps, &num); },
        Calling(status_query.calls, kNotSupported));
  }
}

void StreamGetCaptureInfoV3(const Case& c) {
  auto fn = c.Fn<CUresult (*)(CUstream, CUstreamCaptureStatus*, cuuint64_t*, CUgraph*,
                              const CUgraphNode**, const CUgraphEdgeData**, size_t*)>();
  const std::string v2 = c.fallback, v1 = FallbackOf(v2);
  const bool v2_native = RouteOf(v2) == Route::kNative;
  for (CUstream stream : kStreams) {
    SCOPED_TRACE("stream " + std::to_string(W(stream)));
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    CUgraph graph = reinterpret_cast<CUgraph>(0x1);
    const CUgraphNode* deps = reinterpret_cast<const CUgraphNode*>(0x1);
    const CUgraphEdgeData* edges = nullptr;
    size_t num = 3;  // a native v2 never writes it (fake): the adapter sees 3 dependencies
    const Call v2_call = {v2, {W(stream), W(&status), W(&id), W(&graph), W(&deps), W(&num)}};
    const Call v1_call = {v1, {W(stream), W(&status), W(&id)}};
    c.Check(
        "not capturing", [&] { return fn(stream, &status, &id, &graph, &deps, &edges, &num); },
        c.Native({W(stream), W(&status), W(&id), W(&graph), W(&deps), W(&edges), W(&num)}),
        Calling({v2_native ? v2_call : v1_call}));  // v3 -> v2 adapter -> v1
    if (c.route != Route::kAdapter) continue;
    // Default (zero) edge data for every reported dependency.
    ASSERT_NE(edges, nullptr);
    EXPECT_TRUE(AllZero(edges, num));
    if (v2_native) {
      // Edge data requested without a count: v2 still gets somewhere to write it.
      edges = nullptr;
      c.CheckAdapted(
          "edge data without a count",
          [&] { return fn(stream, &status, &id, nullptr, nullptr, &edges, nullptr); },
          Calling({{v2, {W(stream), W(&status), W(&id), 0, 0, kNonNull}}}));
      EXPECT_NE(edges, nullptr);
      // More dependencies than the adapter's static default-edge block: 801.
      num = 5000;
      c.CheckAdapted(
          "5000 dependencies",
          [&] { return fn(stream, &status, &id, &graph, &deps, &edges, &num); },
          Calling({v2_call}, kNotSupported));
      // No edge data requested: plain v2.
      num = 5000;
      c.CheckAdapted(
          "no edge data", [&] { return fn(stream, &status, &id, &graph, &deps, nullptr, &num); },
          Calling({v2_call}));
    } else {
      // Not capturing, so no graph and no dependencies.
      EXPECT_EQ(graph, nullptr);
      EXPECT_EQ(deps, nullptr);
      EXPECT_EQ(num, 0u);
      // Capturing: v1 cannot report the graph.
      status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
      c.CheckAdapted(
          "capturing", [&] { return fn(stream, &status, &id, &graph, &deps, &edges, &num); },
          Calling({v1_call}, kNotSupported));
    }
  }
}

void StreamGetCtxV2(const Case& c) {
  auto fn = c.Fn<CUresult (*)(CUstream, CUcontext*, CUgreenCtx*)>();
  for (CUstream stream : kStreams) {
    SCOPED_TRACE("stream " + std::to_string(W(stream)));
    CUcontext ctx = nullptr;
    CUgreenCtx green = reinterpret_cast<CUgreenCtx>(0x1);
    c.Check(
        "green context", [&] { return fn(stream, &ctx, &green); },
        c.Native({W(stream), W(&ctx), W(&green)}), c.Via({W(stream), W(&ctx)}));
    if (c.route != Route::kAdapter) continue;
    EXPECT_EQ(green, nullptr);  // no green contexts before 12.4
    c.CheckAdapted(
        "no green context", [&] { return fn(stream, &ctx, nullptr); }, c.Via({W(stream), W(&ctx)}));
    // v1 failing: its result, the green-context output untouched.
    green = reinterpret_cast<CUgreenCtx>(0x1);
    c.CheckAdapted(
        "v1 fails", [&] { return fn(stream, &ctx, &green); },
        Calling({{c.fallback, {W(stream), W(&ctx)}}}, CUDA_ERROR_INVALID_HANDLE),
        Case::Fail(c.fallback, CUDA_ERROR_INVALID_HANDLE));
    EXPECT_EQ(green, reinterpret_cast<CUgreenCtx>(0x1));
    g_fake.reset();
  }
}

// ---- same-signature successors (bound straight to the older variant) ------------------------

void EventElapsedTimeV2(const Case& c) {
  ASSERT_EQ(cudyn::kEntries[Index(c.symbol)].adapter, cudyn::AdapterKind::kSameSignature);
  float ms = 0;
  CUevent start = reinterpret_cast<CUevent>(0x61), end = reinterpret_cast<CUevent>(0x62);
  c.Check(
      "events", [&] { return cuEventElapsedTime(&ms, start, end); },
      c.Native({W(&ms), W(start), W(end)}), c.Via({W(&ms), W(start), W(end)}));
}

void DevicePrimaryCtxReleaseV2(const Case& c) {
  ASSERT_EQ(cudyn::kEntries[Index(c.symbol)].adapter, cudyn::AdapterKind::kSameSignature);
  c.Check(
      "device 3", [&] { return cuDevicePrimaryCtxRelease(3); }, c.Native({3}), c.Via({3}));
}

// Every adapted entry under test. always_served: the fallback is in every driver.
const Row kRows[] = {
    {"cuCtxCreate_v3", nullptr, CtxCreateV3, false},
    {"cuCtxCreate_v4", nullptr, CtxCreateV4, false},
    {"cuCtxGetDevice_v2", nullptr, CtxGetDeviceV2, true},
    {"cuCtxSynchronize_v2", nullptr, CtxSynchronizeV2, true},
    {"cuGetProcAddress_v2", nullptr, GetProcAddressV2, false},
    {"cuGraphAddDependencies_v2", Erase(&cuGraphAddDependencies_v2), EdgeList, false},
    {"cuGraphRemoveDependencies_v2", Erase(&cuGraphRemoveDependencies_v2), EdgeList, false},
    {"cuGraphAddNode_v2", nullptr, GraphAddNodeV2, false},
    {"cuStreamUpdateCaptureDependencies_v2", Erase(&cuStreamUpdateCaptureDependencies_v2),
     StreamUpdateCaptureDependenciesV2, false},
    {"cuStreamUpdateCaptureDependencies_v2_ptsz", Erase(&cuStreamUpdateCaptureDependencies_v2_ptsz),
     StreamUpdateCaptureDependenciesV2, false},
    {"cuGraphGetEdges_v2", nullptr, GraphGetEdgesV2, true},
    {"cuGraphNodeGetDependencies_v2", Erase(&cuGraphNodeGetDependencies_v2), NodeEdgeQuery, true},
    {"cuGraphNodeGetDependentNodes_v2", Erase(&cuGraphNodeGetDependentNodes_v2), NodeEdgeQuery,
     true},
    {"cuGraphAddKernelNode_v2", nullptr, GraphAddKernelNodeV2, false},
    {"cuGraphKernelNodeSetParams_v2", nullptr, GraphKernelNodeSetParamsV2, false},
    {"cuGraphExecKernelNodeSetParams_v2", nullptr, GraphExecKernelNodeSetParamsV2, false},
    {"cuGraphKernelNodeGetParams_v2", nullptr, GraphKernelNodeGetParamsV2, true},
    {"cuGraphExecUpdate_v2", nullptr, GraphExecUpdateV2, false},
    {"cuMemAdvise_v2", nullptr, MemAdviseV2, true},
    {"cuMemPrefetchAsync_v2", Erase(&cuMemPrefetchAsync_v2), MemPrefetchAsyncV2, true},
    {"cuMemPrefetchAsync_v2_ptsz", Erase(&cuMemPrefetchAsync_v2_ptsz), MemPrefetchAsyncV2, true},
    {"cuMemcpyBatchAsync_v2", Erase(&cuMemcpyBatchAsync_v2), MemcpyBatchAsyncV2, false},
    {"cuMemcpyBatchAsync_v2_ptsz", Erase(&cuMemcpyBatchAsync_v2_ptsz), MemcpyBatchAsyncV2, false},
    {"cuMemcpy3DBatchAsync_v2", Erase(&cuMemcpy3DBatchAsync_v2), Memcpy3DBatchAsyncV2, false},
    {"cuMemcpy3DBatchAsync_v2_ptsz", Erase(&cuMemcpy3DBatchAsync_v2_ptsz), Memcpy3DBatchAsyncV2,
     false},
    {"cuStreamBeginCapture_v2", Erase(&cuStreamBeginCapture_v2), StreamBeginCaptureV2, true},
    {"cuStreamBeginCapture_v2_ptsz", Erase(&cuStreamBeginCapture_v2_ptsz), StreamBeginCaptureV2,
     true},
    {"cuStreamGetCaptureInfo_v2", Erase(&cuStreamGetCaptureInfo_v2), StreamGetCaptureInfoV2, false},
    {"cuStreamGetCaptureInfo_v2_ptsz", Erase(&cuStreamGetCaptureInfo_v2_ptsz),
     StreamGetCaptureInfoV2, false},
    {"cuStreamGetCaptureInfo_v3", Erase(&cuStreamGetCaptureInfo_v3), StreamGetCaptureInfoV3, false},
    {"cuStreamGetCaptureInfo_v3_ptsz", Erase(&cuStreamGetCaptureInfo_v3_ptsz),
     StreamGetCaptureInfoV3, false},
    {"cuStreamGetCtx_v2", Erase(&cuStreamGetCtx_v2), StreamGetCtxV2, true},
    {"cuStreamGetCtx_v2_ptsz", Erase(&cuStreamGetCtx_v2_ptsz), StreamGetCtxV2, true},
    {"cuEventElapsedTime_v2", nullptr, EventElapsedTimeV2, true},
    {"cuDevicePrimaryCtxRelease_v2", nullptr, DevicePrimaryCtxReleaseV2, true},
};

class Adapters : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (g_handle != nullptr) return;
    // The drop-in reads CUDYN_DRIVER_PATH once, at the first cu* call.
    setenv("CUDYN_DRIVER_PATH", FakePath().c_str(), 1);
    int version = 0;
    ASSERT_EQ(cuDriverGetVersion(&version), CUDA_SUCCESS);
    ASSERT_EQ(version, kVersion);
    void* handle = dlopen(FakePath().c_str(), RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(handle, nullptr) << "the fake should already be loaded by cudyn";
    ASSERT_TRUE(cudynFakeBind(handle, &g_fake));
    g_handle = handle;
  }
  void SetUp() override {
    ASSERT_NE(g_handle, nullptr);
    g_fake.reset();
  }
};

// Every custom adapter of the table has a row in kRows.
TEST_F(Adapters, EveryCustomAdapterHasARow) {
  std::set<std::string> covered;
  for (const Row& row : kRows) {
    if (cudyn::kEntries[Index(row.symbol)].adapter == cudyn::AdapterKind::kCustom) {
      covered.insert(row.symbol);
    }
  }
  std::set<std::string> custom;
  for (int i = 0; i < cudyn::kEntryCount; ++i) {
    if (cudyn::kEntries[i].adapter == cudyn::AdapterKind::kCustom) custom.insert(Symbol(i));
  }
  EXPECT_EQ(custom, covered);
  // The drop-in is built against the 13.0 headers: every custom adapter is compiled in.
  for (const std::string& symbol : custom) {
    EXPECT_TRUE(cudyn::AdapterCompiledIn(Index(symbol))) << symbol;
    // A per-thread variant falls back to a per-thread variant, a legacy one to a legacy one.
    const cudyn::EntryInfo& e = cudyn::kEntries[Index(symbol)];
    ASSERT_GE(e.fallback, 0) << symbol;
    EXPECT_EQ(cudyn::kEntries[e.fallback].stream, e.stream)
        << symbol << " -> " << FallbackOf(symbol);
  }
}

// Everything written to file descriptor 2 (spdlog's stderr sink) while it lives.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    saved_ = dup(2);
    if (file_ != nullptr && saved_ >= 0) dup2(fileno(file_), 2);
  }
  ~StderrCapture() { Finish(); }
  std::string Finish() {
    std::string text;
    if (saved_ < 0 || file_ == nullptr) return text;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
    std::rewind(file_);
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file_)) > 0) text.append(buffer, n);
    std::fclose(file_);
    file_ = nullptr;
    return text;
  }

 private:
  FILE* file_ = nullptr;
  int saved_ = -1;
};

// Lines of `text` naming `symbol` and 801.
int RejectionLines(const std::string& text, const std::string& symbol) {
  int lines = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (line.find(symbol + " ") != std::string::npos && line.find("801") != std::string::npos)
      ++lines;
    start = end + 1;
  }
  return lines;
}

// An adapter that cannot express its arguments returns 801 every time and warns once per entry.
// Runs before the per-adapter tests below (gtest keeps definition order), which also reject
// these calls.
TEST_F(Adapters, RejectionReturns801AndWarnsOncePerEntry) {
  CUcontext ctx = nullptr;
  CUctxCigParam cig = {};
  CUctxCreateParams with_cig = {nullptr, 0, &cig};
  const CUmemLocation numa = {CU_MEM_LOCATION_TYPE_HOST_NUMA, 1};
  const std::pair<const char*, std::function<CUresult()>> candidates[] = {
      {"cuMemAdvise_v2",
       [&] { return cuMemAdvise(0x1000, 64, CU_MEM_ADVISE_SET_ACCESSED_BY, numa); }},
      {"cuCtxCreate_v4", [&] { return cuCtxCreate(&ctx, &with_cig, 0, 0); }},
  };
  for (const auto& [symbol, call] : candidates) {
    SCOPED_TRACE(symbol);
    Route route = Served(symbol);
    ASSERT_NE(route, Route::kMissing);
    StderrCapture capture;
    CUresult first = call();
    CUresult second = call();
    CUresult third = call();
    std::string text = capture.Finish();
    if (route == Route::kAdapter) {
      EXPECT_EQ(first, kNotSupported);
      EXPECT_EQ(second, kNotSupported);
      EXPECT_EQ(third, kNotSupported);
      EXPECT_TRUE(Calls().empty()) << Trace();
      EXPECT_EQ(RejectionLines(text, symbol), 1) << text;
    } else {
      EXPECT_EQ(first, CUDA_SUCCESS);
      EXPECT_EQ(Calls().size(), 3u) << Trace();
      EXPECT_EQ(RejectionLines(text, symbol), 0) << text;
    }
  }
}

// One test per row of kRows: AdapterTable/<symbol> (after the Adapters tests above).
class AdapterTable : public Adapters, public ::testing::WithParamInterface<Row> {};

TEST_P(AdapterTable, OnThisFake) {
  const Row& row = GetParam();
  Route route = Served(row.symbol);
  if (row.always_served) {
    ASSERT_NE(route, Route::kMissing) << row.symbol << ": its fallback is in every driver";
  }
  row.run(Case{row, row.symbol, route, FallbackOf(row.symbol)});
}

INSTANTIATE_TEST_SUITE_P(Entries, AdapterTable, ::testing::ValuesIn(kRows),
                         [](const ::testing::TestParamInfo<Row>& info) {
                           return std::string(info.param.symbol);
                         });

}  // namespace
