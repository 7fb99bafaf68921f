// The private extension module `jax_apple_fft._core`: the vocabulary of
// transforms, FFI capsules for JAX, the PlanCache class that Python owns, and
// (in `_core.testing`) the hooks tests and benchmarks drive.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include "cache/cache_registry.h"
#include "cache/plan_cache.h"
#include "cpu/cpu_simd.h"
#include "cpu/cpu_transform.h"
#include "ffi/cpu_target.h"
#include "ffi/metal_target.h"
#include "metal/cache_executors.h"
#include "metal/metal_executor.h"
#include "python/bindings.h"
#include "python/metal_bindings.h"

namespace nb = nanobind;

namespace jax_apple_fft {
namespace {

// The Python-facing cache: shared ownership of a registered C++ cache.
class PyPlanCache {
 public:
  PyPlanCache(std::size_t max_entries, std::size_t max_bytes, int threads)
      : PyPlanCache(CacheRegistry::table().create(CacheLimits{max_entries, max_bytes, threads})) {}
  // The cache `handle` names (0: the process's default, built on first use).
  static PyPlanCache* named(std::uint64_t handle) {
    return new PyPlanCache(NamedCache{handle, cache_named(handle)});
  }

  PlanCache& cache() { return *named_.cache; }
  std::uint64_t handle() const { return named_.handle; }

 private:
  explicit PyPlanCache(NamedCache named) : named_(std::move(named)) {}
  NamedCache named_;
};

nb::dict limits_as_dict(const CacheLimits& limits) {
  nb::dict d;
  d["max_entries"] = limits.max_entries;
  d["max_bytes"] = limits.max_bytes;
  d["threads"] = limits.threads;
  return d;
}

nb::dict stats_as_dict(const CacheStats& s) {
  nb::dict d;
  d["hits"] = s.hits;
  d["misses"] = s.misses;
  d["builds"] = s.builds;
  d["failed_builds"] = s.failed_builds;
  d["waits"] = s.waits;
  d["evictions"] = s.evictions;
  d["entries"] = s.entries;
  d["plan_bytes"] = s.plan_bytes;
  d["scratch_bytes"] = s.scratch_bytes;
  d["retained_bytes"] = s.retained_bytes;
  d["evicted_in_use"] = s.evicted_in_use;
  d["evicted_in_use_bytes"] = s.evicted_in_use_bytes;
  d["transient_scratch"] = s.transient_scratch;
  d["worker_threads"] = s.worker_threads;
  d["worker_start_failures"] = s.worker_start_failures;
  return d;
}

// Transfer counters of each Metal executor this cache has built.
nb::dict metal_stats_as_dict(const PlanCache& cache) {
  nb::dict d;
  for (auto [name, kind] : {std::pair{"metal", MetalExecutorKind::apple},
                            std::pair{"metal-emulated", MetalExecutorKind::emulator}}) {
    auto stats = metal_transfer_stats(cache, kind);
    if (!stats) continue;
    nb::dict e;
    e["calls"] = stats->calls;
    e["bytes_wrapped"] = stats->bytes_wrapped;
    e["bytes_staged"] = stats->bytes_staged;
    d[name] = e;
  }
  return d;
}

// Raises the package's Python exception class `name` (jax_apple_fft.errors
// defines them all, so that one base class catches every error we raise).
void raise_package_error(const char* name, const char* message) {
  nb::object type = nb::module_::import_("jax_apple_fft.errors").attr(name);
  PyErr_SetString(type.ptr(), message);
}

}  // namespace
}  // namespace jax_apple_fft

NB_MODULE(_core, m) {
  using namespace jax_apple_fft;
  m.doc() = "Private extension of jax_apple_fft: FFI handlers and the native PlanCache.";
  // Caches that something long-lived still holds when the interpreter exits
  // (a module attribute, a reference never released) are never freed: Python
  // does not finalise everything at exit, and the process's memory goes with
  // it. nanobind would report each as a leak.
  nb::set_leak_warnings(false);

  nb::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const PlanBuildError& e) {
      raise_package_error("PlanBuildError", e.what());
    } catch (const CacheClosedError& e) {
      raise_package_error("CacheClosedError", e.what());
    }
  });

  const CacheLimits defaults;
  m.attr("DEFAULT_MAX_ENTRIES") = defaults.max_entries;
  m.attr("DEFAULT_MAX_BYTES") = defaults.max_bytes;
  m.def("available_cores", &available_cores,
        "The cores this process may run on: the default cache's thread count.");
  m.def("cpu_simd", [] { return cpu_simd_level(); },
        "The SIMD level whose kernels the CPU backend runs in this process (the widest the "
        "CPU has, or the one JAX_APPLE_FFT_CPU_SIMD names); ValueError if that variable "
        "names one that cannot run here.");
  m.def("cpu_simd_levels", [] {
    std::vector<std::string> runnable;
    for (const std::string& level : cpu_simd_levels_built())
      if (cpu_simd_level_runs(level)) runnable.push_back(level);
    return runnable;
  }, "The SIMD levels of this build that this CPU runs, narrowest first.");

  // The vocabulary every layer shares; Python imports it from here.
  nb::enum_<TransformKind>(m, "TransformKind",
                           "C2C: complex to complex; R2C: real in, the n // 2 + 1 "
                           "non-negative frequencies out; C2R: the reverse.")
      .value("C2C", TransformKind::kC2C)
      .value("R2C", TransformKind::kR2C)
      .value("C2R", TransformKind::kC2R);
  nb::enum_<Precision>(m, "Precision", "float32/complex64 or float64/complex128.")
      .value("SINGLE", Precision::kSingle)
      .value("DOUBLE", Precision::kDouble);
  nb::enum_<MetalExecutorKind>(m, "MetalExecutorKind",
                               "What runs a Metal plan: the Apple GPU or the emulator.")
      .value("APPLE", MetalExecutorKind::apple)
      .value("EMULATOR", MetalExecutorKind::emulator);

  m.def(
      "configure_default_cache",
      [](std::size_t max_entries, std::size_t max_bytes, int threads) {
        CacheRegistry::table().configure_default(CacheLimits{max_entries, max_bytes, threads});
      },
      nb::arg("max_entries"), nb::arg("max_bytes"), nb::arg("threads"),
      "Sets the limits the default cache is built with; RuntimeError once it is built.");
  m.def("default_cache_limits", [] { return limits_as_dict(CacheRegistry::table().default_limits()); },
        "The limits the default cache has, or will be built with.");

  nb::class_<PyPlanCache>(m, "NativePlanCache")
      .def(nb::init<std::size_t, std::size_t, int>(), nb::arg("max_entries"),
           nb::arg("max_bytes"), nb::arg("threads"))
      .def_static("named", &PyPlanCache::named, nb::arg("handle"),
                  nb::rv_policy::take_ownership,
                  "The live cache of this handle (0: the process's default, built on first "
                  "use); ValueError if none.")
      .def_prop_ro("handle", &PyPlanCache::handle)
      .def_prop_ro("threads", [](PyPlanCache& c) { return c.cache().limits().threads; })
      .def_prop_ro("max_entries", [](PyPlanCache& c) { return c.cache().limits().max_entries; })
      .def_prop_ro("max_bytes", [](PyPlanCache& c) { return c.cache().limits().max_bytes; })
      .def_prop_ro("closed", [](PyPlanCache& c) { return c.cache().closed(); })
      .def("stats", [](PyPlanCache& c) { return stats_as_dict(c.cache().stats()); })
      .def("metal_stats", [](PyPlanCache& c) { return metal_stats_as_dict(c.cache()); })
      .def("clear", [](PyPlanCache& c) { c.cache().clear(); },
           nb::call_guard<nb::gil_scoped_release>())
      .def("close", [](PyPlanCache& c) { c.cache().close(); },
           nb::call_guard<nb::gil_scoped_release>())
      .def(
          "cpu_working_bytes",
          [](PyPlanCache& c, TransformKind kind, bool forward, Precision precision,
             std::vector<std::int64_t> in_shape, std::vector<std::int64_t> axes,
             std::vector<std::int64_t> lengths) {
            const TransformSpec spec = checked_spec(kind, forward, precision, in_shape, axes, lengths);
            return CpuTransform::working_bytes(spec, c.cache().workers().threads());
          },
          nb::arg("kind"), nb::arg("forward"), nb::arg("precision"), nb::arg("in_shape"),
          nb::arg("axes"), nb::arg("lengths"),
          "An upper bound of the bytes a CPU transform holds beyond its input and output "
          "(temporary, scratch of every thread, plan tables), without building its plans.");

  nb::module_ testing = m.def_submodule("testing");
  bind_testing(testing);
  bind_metal(m, testing);

  m.def("cpu_handlers", [] {
    nb::dict d;
    d["instantiate"] = nb::capsule(CpuInstantiateHandler());
    d["execute"] = nb::capsule(CpuExecuteHandler());
    return d;
  });
  m.def("ffi_api_version", [] { return nb::make_tuple(XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR); },
        "The XLA FFI API version the handlers were compiled against: jaxlib refuses "
        "handlers newer than its own.");
  m.def("metal_handlers", [] {
    nb::dict d;
    d["instantiate"] = nb::capsule(MetalInstantiateHandler());
    d["execute"] = nb::capsule(MetalExecuteHandler());
    return d;
  });
  m.def("metal_call_site_state_type", [] {
    nb::dict d;
    d["type_id"] = nb::capsule(reinterpret_cast<void*>(MetalCallSiteStateTypeId()));
    d["type_info"] = nb::capsule(
        reinterpret_cast<void*>(const_cast<XLA_FFI_TypeInfo*>(MetalCallSiteStateTypeInfo())));
    return d;
  });
  m.def("apple_metal_status", [] {
    AppleMetalStatus status;
    {
      nb::gil_scoped_release release;
      status = apple_metal_status();
    }
    nb::dict d;
    d["available"] = status.available;
    d["reason"] = status.reason;
    d["library"] = status.library;
    return d;
  });
  m.def("call_site_state_type", [] {
    nb::dict d;
    d["type_id"] = nb::capsule(reinterpret_cast<void*>(CallSiteStateTypeId()));
    d["type_info"] =
        nb::capsule(reinterpret_cast<void*>(const_cast<XLA_FFI_TypeInfo*>(CallSiteStateTypeInfo())));
    return d;
  });
}
