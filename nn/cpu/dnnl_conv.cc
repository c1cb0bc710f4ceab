// CPU convolution on oneDNN; see dnnl_conv.h. The im2col + GEMM version in
// conv.cc is the reference it is tested against (tests/nn/dnnl_conv_test.cc).
#include "nn/cpu/dnnl_conv.h"

#include <dnnl.hpp>
#include <stdexcept>
#include <string>

namespace sweep::nn::cpu {

using dnnl::algorithm;
using dnnl::convolution_backward_data;
using dnnl::convolution_backward_weights;
using dnnl::convolution_forward;
using dnnl::memory;
using dnnl::prop_kind;
using Tag = memory::format_tag;
using Type = memory::data_type;

struct DnnlConv::Engine {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{eng};
};

// One geometry's primitives: the forward at once, the backward ones on the
// first backward pass (a network's first layer never needs backward data).
struct DnnlConv::Plan {
  memory::desc x, w, b, y;  // nn/'s layouts: NCHW, OIHW, O, NCHW
  memory::dims strides, pad;
  convolution_forward::primitive_desc fwd_pd;
  convolution_forward fwd;
  bool have_backward = false;
  convolution_backward_weights::primitive_desc bw_pd;
  convolution_backward_weights bw;
  convolution_backward_data::primitive_desc bd_pd;
  convolution_backward_data bd;
};

namespace {

std::runtime_error Error(const Window& g, const char* what, const dnnl::error& e) {
  return std::runtime_error(std::string("oneDNN convolution ") + what + " (" + std::to_string(g.n) +
                            "x" + std::to_string(g.c) + "x" + std::to_string(g.h) + "x" +
                            std::to_string(g.w) + ", " + std::to_string(g.oc) + " filters " +
                            std::to_string(g.k) + "x" + std::to_string(g.k) + "): " + e.what());
}

memory::desc Any(const memory::desc& d) { return memory::desc(d.dims(), Type::f32, Tag::any); }

// Copies `src` in layout `from` into `dst` in layout `to`.
void Reorder(dnnl::engine& eng, dnnl::stream& s, const memory::desc& from, const void* src,
             const memory::desc& to, void* dst) {
  memory a(from, eng, const_cast<void*>(src)), b(to, eng, dst);
  dnnl::reorder(a, b).execute(s, a, b);
}

float* Sized(std::vector<float>& buf, const memory::desc& d) {
  buf.resize(d.get_size() / sizeof(float) + 1);
  return buf.data();
}

// `src` (layout `from`) in layout `to`: itself when the layouts are the same,
// else a copy reordered into `buf`.
const void* As(dnnl::engine& eng, dnnl::stream& s, const memory::desc& from, const void* src,
               const memory::desc& to, std::vector<float>& buf) {
  if (from == to) return src;
  float* dst = Sized(buf, to);
  Reorder(eng, s, from, src, to, dst);
  return dst;
}

}  // namespace

DnnlConv::DnnlConv() : e_(std::make_unique<Engine>()) {}
DnnlConv::~DnnlConv() = default;

DnnlConv::Plan& DnnlConv::PlanFor(const Window& g) {
  Key key{g.n, g.c, g.h, g.w, g.k, g.stride, g.pad, g.oc};
  auto it = plans_.find(key);
  if (it != plans_.end()) return *it->second;
  auto p = std::make_unique<Plan>();
  try {
    p->x = memory::desc({g.n, g.c, g.h, g.w}, Type::f32, Tag::nchw);
    p->w = memory::desc({g.oc, g.c, g.k, g.k}, Type::f32, Tag::oihw);
    p->b = memory::desc({g.oc}, Type::f32, Tag::x);
    p->y = memory::desc({g.n, g.oc, g.OutH(), g.OutW()}, Type::f32, Tag::nchw);
    p->strides = {g.stride, g.stride};
    p->pad = {g.pad, g.pad};
    convolution_forward::desc d(prop_kind::forward_training, algorithm::convolution_direct,
                                Any(p->x), Any(p->w), p->b, Any(p->y), p->strides, p->pad, p->pad);
    p->fwd_pd = convolution_forward::primitive_desc(d, e_->eng);
    p->fwd = convolution_forward(p->fwd_pd);
  } catch (const dnnl::error& e) {
    throw Error(g, "forward", e);
  }
  return *plans_.emplace(key, std::move(p)).first->second;
}

size_t DnnlConv::Workspace(const Window& g) {
  Plan& p = PlanFor(g);
  // The input in the forward's layout, unless that is NCHW already.
  return p.fwd_pd.src_desc() == p.x ? 1 : p.fwd_pd.src_desc().get_size() / sizeof(float) + 1;
}

void DnnlConv::Forward(const Window& g, const float* x, const float* w, const float* b, float* y,
                       float* col) {
  Plan& p = PlanFor(g);
  auto& eng = e_->eng;
  auto& s = e_->stream;
  try {
    const memory::desc &src = p.fwd_pd.src_desc(), &wd = p.fwd_pd.weights_desc(),
                       &dst = p.fwd_pd.dst_desc();
    const void* xs = x;
    if (src != p.x) {
      Reorder(eng, s, p.x, x, src, col);
      xs = col;
    }
    const void* ws = As(eng, s, p.w, w, wd, w_);
    std::vector<float> zeros;
    if (!b) zeros.assign(g.oc, 0.f), b = zeros.data();
    void* ys = dst == p.y ? static_cast<void*>(y) : Sized(y_, dst);
    memory m_src(src, eng, const_cast<void*>(xs)), m_w(wd, eng, const_cast<void*>(ws)),
        m_b(p.b, eng, const_cast<float*>(b)), m_dst(dst, eng, ys);
    p.fwd.execute(s, {{DNNL_ARG_SRC, m_src},
                      {DNNL_ARG_WEIGHTS, m_w},
                      {DNNL_ARG_BIAS, m_b},
                      {DNNL_ARG_DST, m_dst}});
    if (dst != p.y) Reorder(eng, s, dst, ys, p.y, y);
    s.wait();
  } catch (const dnnl::error& e) {
    throw Error(g, "forward", e);
  }
}

void DnnlConv::Backward(const Window& g, const float* x, const float* w, const float* dy, float* dx,
                        float* dw, float* db, const float* col) {
  Plan& p = PlanFor(g);
  auto& eng = e_->eng;
  auto& s = e_->stream;
  try {
    if (!p.have_backward) {
      convolution_backward_weights::desc bwd(algorithm::convolution_direct, Any(p.x), Any(p.w), p.b,
                                             Any(p.y), p.strides, p.pad, p.pad);
      p.bw_pd = convolution_backward_weights::primitive_desc(bwd, eng, p.fwd_pd);
      p.bw = convolution_backward_weights(p.bw_pd);
      convolution_backward_data::desc bdd(algorithm::convolution_direct, Any(p.x), Any(p.w),
                                          Any(p.y), p.strides, p.pad, p.pad);
      p.bd_pd = convolution_backward_data::primitive_desc(bdd, eng, p.fwd_pd);
      p.bd = convolution_backward_data(p.bd_pd);
      p.have_backward = true;
    }
    // The input as the forward pass left it (in `col` unless NCHW).
    const memory::desc& fsrc = p.fwd_pd.src_desc();
    const memory::desc& src = p.bw_pd.src_desc();
    const void* xs = As(eng, s, fsrc, fsrc == p.x ? static_cast<const void*>(x) : col, src, x_);
    const memory::desc& ddst = p.bw_pd.diff_dst_desc();
    const void* dys = As(eng, s, p.y, dy, ddst, dy_);
    const memory::desc& dwd = p.bw_pd.diff_weights_desc();
    void* dws = dwd == p.w ? static_cast<void*>(dw) : Sized(dw_, dwd);
    std::vector<float> bias_sink;
    if (!db) bias_sink.resize(g.oc), db = bias_sink.data();
    memory m_src(src, eng, const_cast<void*>(xs)), m_dy(ddst, eng, const_cast<void*>(dys)),
        m_dw(dwd, eng, dws), m_db(p.b, eng, db);
    p.bw.execute(s, {{DNNL_ARG_SRC, m_src},
                     {DNNL_ARG_DIFF_DST, m_dy},
                     {DNNL_ARG_DIFF_WEIGHTS, m_dw},
                     {DNNL_ARG_DIFF_BIAS, m_db}});
    if (dwd != p.w) Reorder(eng, s, dwd, dws, p.w, dw);
    if (dx) {
      const memory::desc &bdy = p.bd_pd.diff_dst_desc(), &bw = p.bd_pd.weights_desc(),
                         &bdx = p.bd_pd.diff_src_desc();
      // The output gradient once more only if backward data wants another layout.
      const void* dys2 = bdy == ddst ? dys : As(eng, s, p.y, dy, bdy, dy2_);
      const void* ws = As(eng, s, p.w, w, bw, w_);
      void* dxs = bdx == p.x ? static_cast<void*>(dx) : Sized(dx_, bdx);
      memory m_dy2(bdy, eng, const_cast<void*>(dys2)), m_w(bw, eng, const_cast<void*>(ws)),
          m_dx(bdx, eng, dxs);
      p.bd.execute(
          s, {{DNNL_ARG_DIFF_DST, m_dy2}, {DNNL_ARG_WEIGHTS, m_w}, {DNNL_ARG_DIFF_SRC, m_dx}});
      if (bdx != p.x) Reorder(eng, s, bdx, dxs, p.x, dx);
    }
    s.wait();
  } catch (const dnnl::error& e) {
    throw Error(g, "backward", e);
  }
}

}  // namespace sweep::nn::cpu
