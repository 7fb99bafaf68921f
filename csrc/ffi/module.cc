// The private extension module `jax_apple_fft._core`: FFI capsules for JAX
// and the PlanCache class that Python owns.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include "cache/plan_cache.h"
#include "cpu/cpu_simd.h"
#include "cpu/cpu_transform.h"
#include "ffi/cache_handles.h"
#include "ffi/cpu_target.h"
#include "ffi/metal_target.h"
#include "ffi/spec_from_attributes.h"
#include "ffi/metal_bindings.h"
#include "metal/cache_executors.h"

namespace nb = nanobind;

namespace jax_apple_fft {
namespace {

// The Python-facing cache: shared ownership of the C++ cache plus its handle.
class PyPlanCache {
 public:
  PyPlanCache(std::size_t max_entries, std::size_t max_bytes, int threads)
      : cache_(std::make_shared<PlanCache>(CacheLimits{max_entries, max_bytes, threads})),
        handle_(CacheHandles::table().add(cache_)) {}
  // The process's default cache, whose handle means "the default" everywhere.
  static PyPlanCache* process_default() {
    return new PyPlanCache(CacheHandles::table().default_cache(), CacheHandles::kDefaultCache);
  }
  ~PyPlanCache() {
    if (handle_ != CacheHandles::kDefaultCache) CacheHandles::table().remove(handle_);
  }
  PyPlanCache(const PyPlanCache&) = delete;
  PyPlanCache& operator=(const PyPlanCache&) = delete;

  PlanCache& cache() { return *cache_; }
  std::uint64_t handle() const { return handle_; }

 private:
  PyPlanCache(std::shared_ptr<PlanCache> cache, std::uint64_t handle)
      : cache_(std::move(cache)), handle_(handle) {}

  std::shared_ptr<PlanCache> cache_;
  std::uint64_t handle_;
};

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

using AnyArray = nb::ndarray<nb::c_contig, nb::device::cpu>;

// The spec of a transform described from Python, or ValueError.
TransformSpec checked_spec(int kind, bool forward, int precision,
                           const std::vector<std::int64_t>& in_shape,
                           const std::vector<std::int64_t>& axes,
                           const std::vector<std::int64_t>& lengths, double scale = 1.0) {
  auto spec = spec_from_attributes(static_cast<TransformKind>(kind), forward,
                                   static_cast<Precision>(precision), in_shape, axes, lengths,
                                   scale);
  if (!spec.has_value()) throw nb::value_error(spec.error().c_str());
  return *spec;
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
  // (a compiled function's parameters, a module attribute) are never freed:
  // Python does not finalise everything at exit, and the process's memory
  // goes with it. nanobind would report each as a leak.
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

  nb::class_<PyPlanCache>(m, "NativePlanCache")
      .def(nb::init<std::size_t, std::size_t, int>(), nb::arg("max_entries"),
           nb::arg("max_bytes"), nb::arg("threads"))
      .def_static("process_default", &PyPlanCache::process_default,
                  nb::rv_policy::take_ownership,
                  "The process's default cache (handle 0, built on first use).")
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
          "prepare_cpu",
          [](PyPlanCache& c, int kind, bool forward, int precision, std::vector<std::int64_t> in_shape,
             std::vector<std::int64_t> axes, std::vector<std::int64_t> lengths) {
            const TransformSpec spec = checked_spec(kind, forward, precision, in_shape, axes, lengths);
            nb::gil_scoped_release release;
            CpuTransform::prepare(spec, c.cache());
          },
          nb::arg("kind"), nb::arg("forward"), nb::arg("precision"), nb::arg("in_shape"),
          nb::arg("axes"), nb::arg("lengths"),
          "Builds (or finds) every plan a CPU transform needs, without running it.")
      .def(
          "cpu_working_bytes",
          [](PyPlanCache& c, int kind, bool forward, int precision, std::vector<std::int64_t> in_shape,
             std::vector<std::int64_t> axes, std::vector<std::int64_t> lengths) {
            const TransformSpec spec = checked_spec(kind, forward, precision, in_shape, axes, lengths);
            return CpuTransform::working_bytes(spec, c.cache().workers().threads());
          },
          nb::arg("kind"), nb::arg("forward"), nb::arg("precision"), nb::arg("in_shape"),
          nb::arg("axes"), nb::arg("lengths"),
          "An upper bound of the bytes a CPU transform holds beyond its input and output "
          "(temporary, scratch of every thread, plan tables), without building its plans.")
      .def(
          "describe_cpu",
          [](PyPlanCache& c, int kind, bool forward, int precision, std::vector<std::int64_t> in_shape,
             std::vector<std::int64_t> axes, std::vector<std::int64_t> lengths) {
            const TransformSpec spec = checked_spec(kind, forward, precision, in_shape, axes, lengths);
            nb::gil_scoped_release release;
            return CpuTransform::prepare(spec, c.cache())->plan().describe();
          },
          nb::arg("kind"), nb::arg("forward"), nb::arg("precision"), nb::arg("in_shape"),
          nb::arg("axes"), nb::arg("lengths"),
          "The CPU plan of a transform on this cache's threads, one line per pass.")
      .def(
          "profile_cpu",
          [](PyPlanCache& c, int kind, bool forward, int precision, std::vector<std::int64_t> in_shape,
             std::vector<std::int64_t> axes, std::vector<std::int64_t> lengths, AnyArray input,
             AnyArray output, double scale) {
            const TransformSpec spec =
                checked_spec(kind, forward, precision, in_shape, axes, lengths, scale);
            const std::size_t real = precision == 0 ? 4 : 8;
            auto bytes = [&](const std::vector<std::int64_t>& shape, bool complex) {
              std::size_t count = 1;
              for (std::int64_t d : shape) count *= static_cast<std::size_t>(d);
              return count * real * (complex ? 2 : 1);
            };
            if (input.nbytes() != bytes(spec.in_shape, spec.kind != TransformKind::kR2C) ||
                output.nbytes() != bytes(spec.out_shape, spec.kind != TransformKind::kC2R))
              throw nb::value_error("input and output must hold exactly the transform's tensors");
            CpuProfile profile;
            {
              nb::gil_scoped_release release;
              auto transform = CpuTransform::prepare(spec, c.cache());
              profile = transform->profile(input.data(), output.data(), c.cache());
            }
            nb::list passes;
            for (const CpuPassProfile& p : profile.passes) {
              nb::dict d;
              d["seconds"] = p.seconds;
              d["busy_seconds"] = p.busy_seconds;
              d["tasks"] = p.tasks;
              passes.append(d);
            }
            nb::dict result;
            result["seconds"] = profile.seconds;
            result["passes"] = passes;
            return result;
          },
          nb::arg("kind"), nb::arg("forward"), nb::arg("precision"), nb::arg("in_shape"),
          nb::arg("axes"), nb::arg("lengths"), nb::arg("input"), nb::arg("output"),
          nb::arg("scale") = 1.0,
          "Runs a CPU transform on dense C-contiguous buffers (the same one for in place), "
          "timing each pass and each thread's tasks. A measuring instrument.");

  bind_metal(m);

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
