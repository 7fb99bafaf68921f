// `_core.testing`: instruments that tests and benchmarks drive directly. Each
// takes the handle of the PlanCache it works in.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "cpu/cpu_transform.h"
#include "python/bindings.h"

namespace nb = nanobind;

namespace jax_apple_fft {
namespace {

using AnyArray = nb::ndarray<nb::c_contig, nb::device::cpu>;

std::size_t tensor_bytes(const std::vector<std::int64_t>& shape, Precision precision,
                         bool complex) {
  std::size_t count = 1;
  for (std::int64_t d : shape) count *= static_cast<std::size_t>(d);
  return count * (precision == Precision::kSingle ? 4 : 8) * (complex ? 2 : 1);
}

nb::dict profile_as_dict(const CpuProfile& profile) {
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
}

}  // namespace

void bind_testing(nb::module_& t) {
  t.doc() = "Test and measuring hooks of jax_apple_fft; not part of its API.";
  t.def(
      "describe_cpu",
      [](std::uint64_t cache, TransformKind kind, bool forward, Precision precision,
         std::vector<std::int64_t> in_shape, std::vector<std::int64_t> axes,
         std::vector<std::int64_t> lengths) {
        const TransformSpec spec = checked_spec(kind, forward, precision, in_shape, axes, lengths);
        auto owner = cache_named(cache);
        nb::gil_scoped_release release;
        return CpuTransform::prepare(spec, *owner)->plan().describe();
      },
      nb::arg("cache"), nb::arg("kind"), nb::arg("forward"), nb::arg("precision"),
      nb::arg("in_shape"), nb::arg("axes"), nb::arg("lengths"),
      "Builds (or finds) in the cache of handle `cache` every plan a CPU transform needs, "
      "without running it, and describes the plan on the cache's threads, one line per pass.");
  t.def(
      "wake_seconds",
      [](std::uint64_t cache) {
        auto owner = cache_named(cache);
        nb::gil_scoped_release release;
        return owner->workers().wake_seconds();
      },
      nb::arg("cache"),
      "Seconds from a loop's start until every thread of the cache's pool has joined it, as "
      "the CPU planner is told (measured on first use).");
  t.def(
      "set_wake_seconds",
      [](std::uint64_t cache, double seconds) {
        if (!(seconds >= 0)) throw nb::value_error("seconds must be at least 0");
        cache_named(cache)->workers().set_wake_seconds(seconds);
      },
      nb::arg("cache"), nb::arg("seconds"),
      "Fixes the wake cost the CPU planner is told for plans the cache builds from now on "
      "(plans built before keep their tasks).");
  t.def(
      "profile_cpu",
      [](std::uint64_t cache, TransformKind kind, bool forward, Precision precision,
         std::vector<std::int64_t> in_shape, std::vector<std::int64_t> axes,
         std::vector<std::int64_t> lengths, AnyArray input, AnyArray output, double scale) {
        const TransformSpec spec =
            checked_spec(kind, forward, precision, in_shape, axes, lengths, scale);
        if (input.nbytes() != tensor_bytes(spec.in_shape, precision, kind != TransformKind::kR2C) ||
            output.nbytes() != tensor_bytes(spec.out_shape, precision, kind != TransformKind::kC2R))
          throw nb::value_error("input and output must hold exactly the transform's tensors");
        auto owner = cache_named(cache);
        CpuProfile profile;
        {
          nb::gil_scoped_release release;
          auto transform = CpuTransform::prepare(spec, *owner);
          profile = transform->profile(input.data(), output.data(), *owner);
        }
        return profile_as_dict(profile);
      },
      nb::arg("cache"), nb::arg("kind"), nb::arg("forward"), nb::arg("precision"),
      nb::arg("in_shape"), nb::arg("axes"), nb::arg("lengths"), nb::arg("input"),
      nb::arg("output"), nb::arg("scale") = 1.0,
      "Runs a CPU transform on dense C-contiguous buffers (the same one for in place), "
      "timing each pass and each thread's tasks. A measuring instrument.");
}

}  // namespace jax_apple_fft
