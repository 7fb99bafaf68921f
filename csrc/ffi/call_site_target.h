// The two stages every XLA FFI target of the package runs, over one
// per-call-site state. Instantiate (once per call site) finds the cache the
// call names, builds the TransformSpec from the shared attributes and
// prepares the target's state; execute checks XLA's buffers against the spec
// and runs. A target states only what differs, as a `Site` type:
//
//   struct Site {
//     static constexpr const char* kPrefix;  // starts every error message
//     // Its own attributes, bound after the shared ones (XLA matches them
//     // by name) and passed to prepare() after the spec.
//     template <class Binding> static decltype(auto) bind_own_attributes(Binding&&);
//     // Refuses attributes the target cannot run, before the spec is built.
//     static xla::ffi::Error check(Precision);
//     // The state of one call site; may throw.
//     static xla::ffi::ErrorOr<Site> prepare(const TransformSpec&, PlanCache&, Own...);
//     const TransformSpec& spec() const;
//     void execute(const void* in, void* out, PlanCache&) const;  // may throw
//   };
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "cache/plan_cache.h"
#include "ffi/call_site.h"
#include "ffi/spec_from_attributes.h"
#include "spec/transform_spec.h"
#include "xla/ffi/api/ffi.h"

XLA_FFI_REGISTER_ENUM_ATTR_DECODING(jax_apple_fft::TransformKind);
XLA_FFI_REGISTER_ENUM_ATTR_DECODING(jax_apple_fft::Precision);

namespace jax_apple_fft {

template <class Site>
class CallSiteTarget {
 public:
  // What one call site keeps between calls: its cache and its prepared site.
  struct State {
    static xla::ffi::TypeId id;
    std::shared_ptr<PlanCache> cache;
    Site site;
  };

  static void* instantiate_handler() { return reinterpret_cast<void*>(&instantiate_stage); }
  static void* execute_handler() { return reinterpret_cast<void*>(&execute_stage); }
  static XLA_FFI_TypeId* state_type_id() { return &State::id; }
  static const XLA_FFI_TypeInfo* state_type_info() { return &kStateInfo; }

 private:
  using StatePointer = std::unique_ptr<State>;
  static constexpr XLA_FFI_TypeInfo kStateInfo = xla::ffi::MakeTypeInfo<State>();

  template <class... Own>
  static xla::ffi::ErrorOr<StatePointer> instantiate(
      TransformKind kind, bool forward, Precision precision,
      xla::ffi::Span<const std::int64_t> in_shape, xla::ffi::Span<const std::int64_t> axes,
      xla::ffi::Span<const std::int64_t> lengths, double scale, std::uint64_t cache_handle,
      Own... own) {
    auto cache = find_call_site_cache(cache_handle, Site::kPrefix);
    if (!cache.has_value()) return xla::ffi::Unexpected(cache.error());
    if (auto error = Site::check(precision); error.failure()) return xla::ffi::Unexpected(error);
    auto spec = spec_from_attributes(kind, forward, precision, in_shape, axes, lengths, scale);
    if (!spec.has_value())
      return xla::ffi::Unexpected(xla::ffi::Error::InvalidArgument(Site::kPrefix + spec.error()));
    try {
      auto site = Site::prepare(*spec, **cache, own...);
      if (!site.has_value()) return xla::ffi::Unexpected(site.error());
      return StatePointer(new State{*cache, std::move(*site)});
    } catch (...) {
      return xla::ffi::Unexpected(error_from_exception(Site::kPrefix));
    }
  }

  // `dispatch` is never read: a lowering passes it (a value reduced from the
  // input) only so that XLA counts the program's cost as worth running off
  // the calling thread (docs/dispatch.md).
  static xla::ffi::Error execute(State* state, xla::ffi::AnyBuffer in,
                                 std::optional<xla::ffi::AnyBuffer> /*dispatch*/,
                                 xla::ffi::Result<xla::ffi::AnyBuffer> out) {
    if (auto error = check_call(state->site.spec(), in, *out, Site::kPrefix); error.failure())
      return error;
    try {
      state->site.execute(in.untyped_data(), out->untyped_data(), *state->cache);
    } catch (...) {
      return error_from_exception(Site::kPrefix);
    }
    return xla::ffi::Error::Success();
  }

  static XLA_FFI_Error* instantiate_stage(XLA_FFI_CallFrame* call_frame) {
    static auto* handler =
        Site::bind_own_attributes(xla::ffi::Ffi::BindInstantiate()
                                      .Attr<TransformKind>("kind")
                                      .Attr<bool>("forward")
                                      .Attr<Precision>("precision")
                                      .Attr<xla::ffi::Span<const std::int64_t>>("in_shape")
                                      .Attr<xla::ffi::Span<const std::int64_t>>("axes")
                                      .Attr<xla::ffi::Span<const std::int64_t>>("lengths")
                                      .Attr<double>("scale")
                                      .Attr<std::uint64_t>("cache"))
            .To([](auto... attributes) { return instantiate(attributes...); })
            .release();
    return handler->Call(call_frame);
  }

  static XLA_FFI_Error* execute_stage(XLA_FFI_CallFrame* call_frame) {
    static auto* handler = xla::ffi::Ffi::Bind()
                               .Ctx<xla::ffi::State<State>>()
                               .template Arg<xla::ffi::AnyBuffer>()
                               .template OptionalArg<xla::ffi::AnyBuffer>()
                               .template Ret<xla::ffi::AnyBuffer>()
                               .To(execute)
                               .release();
    return handler->Call(call_frame);
  }
};

template <class Site>
xla::ffi::TypeId CallSiteTarget<Site>::State::id = {};

}  // namespace jax_apple_fft
