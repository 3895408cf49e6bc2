#include "ui/parameter_panel.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QPlainTextEdit>
#include <QSlider>
#include <QSpinBox>
#include <cmath>

namespace ts::ui {
namespace {

// A slider and a spin box that move together; the slider works in `scale` steps.
QWidget* linkedDouble(QWidget* parent, QDoubleSpinBox* spin, QSlider* slider, double max,
                      double scale) {
  auto* row = new QWidget(parent);
  auto* h = new QHBoxLayout(row);
  h->setContentsMargins(0, 0, 0, 0);
  slider->setRange(0, static_cast<int>(std::lround(max * scale)));
  spin->setRange(0, max);
  spin->setDecimals(2);
  spin->setSingleStep(1 / scale);
  QObject::connect(slider, &QSlider::valueChanged, spin,
                   [spin, scale](int v) { spin->setValue(v / scale); });
  QObject::connect(spin, &QDoubleSpinBox::valueChanged, slider, [slider, scale](double v) {
    const QSignalBlocker block(slider);
    slider->setValue(static_cast<int>(std::lround(v * scale)));
  });
  h->addWidget(slider, 1);
  h->addWidget(spin);
  return row;
}

// max_tokens spans 1..131072: the slider moves on a log2 scale, the spin box is exact.
constexpr int kMaxTokens = 131072;
int tokensToSlider(int tokens) {
  return static_cast<int>(std::lround(std::log2(tokens) * 100));
}
int sliderToTokens(int pos) {
  return static_cast<int>(std::lround(std::exp2(pos / 100.0)));
}

}  // namespace

ParameterPanel::ParameterPanel(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  temperature_ = new QDoubleSpinBox(this);
  temperature_->setObjectName("temperatureSpin");
  temperature_slider_ = new QSlider(Qt::Horizontal, this);
  temperature_slider_->setObjectName("temperatureSlider");
  form->addRow(tr("&Temperature"), linkedDouble(this, temperature_, temperature_slider_, 2.0, 100));
  temperature_->setToolTip(tr("0 = always the most likely token; higher = more varied (0–2)."));

  top_p_ = new QDoubleSpinBox(this);
  top_p_->setObjectName("topPSpin");
  top_p_slider_ = new QSlider(Qt::Horizontal, this);
  form->addRow(tr("Top &p"), linkedDouble(this, top_p_, top_p_slider_, 1.0, 100));
  top_p_->setToolTip(
      tr("Sample only from the smallest set of tokens whose probability sums to p."));

  auto* tokens_row = new QWidget(this);
  auto* h = new QHBoxLayout(tokens_row);
  h->setContentsMargins(0, 0, 0, 0);
  max_tokens_slider_ = new QSlider(Qt::Horizontal, tokens_row);
  max_tokens_slider_->setRange(0, tokensToSlider(kMaxTokens));
  max_tokens_ = new QSpinBox(tokens_row);
  max_tokens_->setObjectName("maxTokensSpin");
  max_tokens_->setRange(1, kMaxTokens);
  connect(max_tokens_slider_, &QSlider::valueChanged, max_tokens_,
          [this](int v) { max_tokens_->setValue(sliderToTokens(v)); });
  connect(max_tokens_, &QSpinBox::valueChanged, max_tokens_slider_, [this](int v) {
    const QSignalBlocker block(max_tokens_slider_);
    max_tokens_slider_->setValue(tokensToSlider(v));
  });
  h->addWidget(max_tokens_slider_, 1);
  h->addWidget(max_tokens_);
  form->addRow(tr("&Max tokens"), tokens_row);

  stream_ = new QCheckBox(tr("Stream tokens as they are generated"), this);
  stream_->setObjectName("streamCheck");
  stream_->setToolTip(tr("Off: one complete response; TTFT then equals E2E."));
  form->addRow("", stream_);

  system_prompt_ = new QPlainTextEdit(this);
  system_prompt_->setObjectName("systemPrompt");
  system_prompt_->setPlaceholderText(tr("Optional system message"));
  system_prompt_->setMaximumHeight(80);
  form->addRow(tr("S&ystem"), system_prompt_);

  setParams(SamplingParams{});
}

SamplingParams ParameterPanel::params() const {
  SamplingParams p;
  p.temperature = temperature_->value();
  p.top_p = top_p_->value();
  p.max_tokens = max_tokens_->value();
  p.stream = stream_->isChecked();
  return p;
}

void ParameterPanel::setParams(const SamplingParams& p) {
  temperature_->setValue(p.temperature);
  top_p_->setValue(p.top_p);
  max_tokens_->setValue(p.max_tokens);
  stream_->setChecked(p.stream);
}

QString ParameterPanel::systemPrompt() const {
  return system_prompt_->toPlainText().trimmed();
}
void ParameterPanel::setSystemPrompt(const QString& text) {
  system_prompt_->setPlainText(text);
}
void ParameterPanel::focusFirstField() {
  temperature_->setFocus();
}

}  // namespace ts::ui
