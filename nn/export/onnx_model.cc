// A network as ONNX: one or more nodes per layer between the shared input
// preparation and outputs (onnx_graph.h).
#include "nn/export/onnx_model.h"

#include "nn/export/onnx_graph.h"

namespace sweep::nn {

namespace {

using onnx_export::Graph;

std::vector<float> Slice(const std::vector<float>& v, size_t at, size_t n) {
  return std::vector<float>(v.begin() + static_cast<long>(at),
                            v.begin() + static_cast<long>(at + n));
}

}  // namespace

Result<std::string> ExportOnnx(Model& model, const Splits& d, const std::string& name) {
  onnx::ModelProto m;
  onnx_export::StartModel(&m, name, onnx_export::HasTextColumns(d));
  onnx::GraphProto* proto = m.mutable_graph();
  Graph g(proto);
  ASSIGN_OR_RETURN(std::string t, onnx_export::PrepareInput(&g, d, proto));

  std::vector<float> params(model.param_count()), state(model.state_count());
  model.backend()->ToHost(model.params(), params.data(), params.size());
  model.backend()->ToHost(model.state(), state.data(), state.size());
  int rank = d.train.image() ? 4 : 2;
  for (size_t i = 0; i < model.layer_count(); ++i) {
    const Layer& l = model.layer(i);
    const LayerInfo info = l.Info();
    const size_t p = model.param_offset(i), s = model.state_offset(i);
    const std::vector<int>& in = l.in_shape();
    switch (info.kind) {
      case LayerInfo::kLinear: {
        if (rank != 2) t = g.Node("Flatten", {t}, {{"axis", {1}}});
        rank = 2;
        const int64_t out = info.outputs, inputs = static_cast<int64_t>(ShapeSize(in));
        const size_t nw = static_cast<size_t>(out * inputs);
        std::string w = g.Constant("W", {out, inputs}, Slice(params, p, nw));
        std::string b = g.Constant("b", {out}, Slice(params, p + nw, static_cast<size_t>(out)));
        t = g.Node("Gemm", {t, w, b}, {{"transB", {1}}});
        break;
      }
      case LayerInfo::kConv2d: {
        const int64_t oc = info.outputs, c = in[0], k = info.kernel;
        const size_t nw = static_cast<size_t>(oc * c * k * k);
        std::string w = g.Constant("W", {oc, c, k, k}, Slice(params, p, nw));
        std::string b = g.Constant("b", {oc}, Slice(params, p + nw, static_cast<size_t>(oc)));
        t = g.Node("Conv", {t, w, b},
                   {{"kernel_shape", {k, k}},
                    {"pads", {info.pad, info.pad, info.pad, info.pad}},
                    {"strides", {info.stride, info.stride}}});
        break;
      }
      case LayerInfo::kMaxPool:
      case LayerInfo::kAvgPool:
        t = g.Node(info.kind == LayerInfo::kMaxPool ? "MaxPool" : "AveragePool", {t},
                   {{"kernel_shape", {info.kernel, info.kernel}},
                    {"strides", {info.stride, info.stride}}});
        break;
      case LayerInfo::kGlobalAvgPool:
        t = g.Node("Flatten", {g.Node("GlobalAveragePool", {t})}, {{"axis", {1}}});
        rank = 2;
        break;
      case LayerInfo::kFlatten:
        t = g.Node("Flatten", {t}, {{"axis", {1}}});
        rank = 2;
        break;
      case LayerInfo::kDropout:
        break;  // the identity at inference
      case LayerInfo::kBatchNorm: {
        const int64_t c = in[0];
        const size_t n = static_cast<size_t>(c);
        t = g.Node("BatchNormalization",
                   {t, g.Constant("gamma", {c}, Slice(params, p, n)),
                    g.Constant("beta", {c}, Slice(params, p + n, n)),
                    g.Constant("mean", {c}, Slice(state, s, n)),
                    g.Constant("var", {c}, Slice(state, s + n, n))},
                   {}, {{"epsilon", info.eps}});
        break;
      }
      case LayerInfo::kActivation:
        switch (info.activation) {
          case Activation::kRelu:
            t = g.Node("Relu", {t});
            break;
          case Activation::kLeakyRelu:
            t = g.Node("LeakyRelu", {t}, {}, {{"alpha", info.slope}});
            break;
          case Activation::kTanh:
            t = g.Node("Tanh", {t});
            break;
          case Activation::kGelu: {
            // The tanh form nn/ computes: x/2 (1 + tanh(c (x + 0.044715 x^3))).
            std::string cube = g.Node("Mul", {g.Node("Mul", {t, t}), t});
            std::string inner =
                g.Node("Add", {t, g.Node("Mul", {cube, g.Constant("k", 0.044715f)})});
            std::string th =
                g.Node("Tanh", {g.Node("Mul", {inner, g.Constant("c", 0.7978845608028654f)})});
            std::string one = g.Node("Add", {th, g.Constant("one", 1.f)});
            t = g.Node("Mul", {g.Node("Mul", {t, g.Constant("half", 0.5f)}), one});
            break;
          }
        }
        break;
    }
  }
  return onnx_export::FinishModel(&m, &g, t, d);
}

}  // namespace sweep::nn
