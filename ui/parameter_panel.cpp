#include "ui/parameter_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
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
  addSamplingRows(form);
  addLengthRows(form);
  addSpeculativeRows(form);
  system_prompt_ = new QPlainTextEdit(this);
  system_prompt_->setObjectName("systemPrompt");
  system_prompt_->setPlaceholderText(tr("Optional system message"));
  system_prompt_->setMaximumHeight(80);
  form->addRow(tr("S&ystem"), system_prompt_);

  // The button is for when the values differ from the suggestions.
  for (QDoubleSpinBox* spin : {temperature_, top_p_, repetition_penalty_})
    connect(spin, &QDoubleSpinBox::valueChanged, this, &ParameterPanel::updateSuggestionButton);
  for (QSpinBox* spin : {top_k_, max_tokens_})
    connect(spin, &QSpinBox::valueChanged, this, &ParameterPanel::updateSuggestionButton);

  setParams(SamplingParams{});
  // Qt sizes "&Temperature" with its T-e kerning but draws the underlined T as a run of
  // its own, without it: 1–2 px wider than the label, its last letter cut against the
  // slider. Half a character of room after every row label covers what a mnemonic loses.
  for (int r = 0; r < form->rowCount(); ++r)
    if (QLayoutItem* item = form->itemAt(r, QFormLayout::LabelRole))
      if (auto* label = qobject_cast<QLabel*>(item->widget()))
        label->setContentsMargins(0, 0, label->fontMetrics().averageCharWidth() / 2, 0);
}

// Temperature, top p, top k and the repetition penalty.
void ParameterPanel::addSamplingRows(QFormLayout* form) {
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

  // top_k and the repetition penalty share a row: both are off at their defaults.
  auto* more = new QWidget(this);
  auto* mh = new QHBoxLayout(more);
  mh->setContentsMargins(0, 0, 0, 0);
  top_k_ = new QSpinBox(more);
  top_k_->setObjectName("topKSpin");
  top_k_->setRange(0, 1000);
  top_k_->setSpecialValueText(tr("off"));
  top_k_->setToolTip(
      tr("Sample only from the k most likely tokens (0: off). Remote providers "
         "get it as the top_k extension, which vLLM, SGLang, TGI and llama.cpp "
         "accept."));
  repetition_penalty_ = new QDoubleSpinBox(more);
  repetition_penalty_->setObjectName("repetitionPenaltySpin");
  repetition_penalty_->setRange(0.5, 2.0);
  repetition_penalty_->setDecimals(2);
  repetition_penalty_->setSingleStep(0.01);
  repetition_penalty_->setToolTip(
      tr("Above 1 makes tokens already in the prompt or answer less likely (1: off). Remote "
         "providers get it as the repetition_penalty extension."));
  auto* penalty_label = new QLabel(tr("&Repetition penalty"), more);
  penalty_label->setBuddy(repetition_penalty_);
  mh->addWidget(top_k_);
  mh->addSpacing(8);
  mh->addWidget(penalty_label);
  mh->addWidget(repetition_penalty_);
  mh->addStretch(1);
  form->addRow(tr("Top &k"), more);
}

// Max tokens, the model's suggestions and streaming.
void ParameterPanel::addLengthRows(QFormLayout* form) {
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

  // The model's suggestions: the panel's whole width, the text above its button.
  suggestions_row_ = new QWidget(this);
  suggestions_row_->setObjectName("modelSuggestions");
  auto* sug = new QVBoxLayout(suggestions_row_);
  sug->setContentsMargins(0, 0, 0, 0);
  suggestions_ = new QLabel(suggestions_row_);
  suggestions_->setObjectName("modelSuggestionsText");
  suggestions_->setWordWrap(true);
  use_suggestions_ = new QPushButton(tr("Use the model's defaults"), suggestions_row_);
  use_suggestions_->setObjectName("useModelDefaultsButton");
  use_suggestions_->setToolTip(
      tr("Set the values the model's authors suggest (generation_config.json)."));
  connect(use_suggestions_, &QPushButton::clicked, this, &ParameterPanel::useSuggestions);
  sug->addWidget(suggestions_);
  sug->addWidget(use_suggestions_, 0, Qt::AlignLeft);
  form->addRow(suggestions_row_);
  suggestions_row_->hide();

  stream_ = new QCheckBox(tr("Stream tokens as they are generated"), this);
  stream_->setObjectName("streamCheck");
  stream_->setToolTip(tr("Off: one complete response; TTFT then equals E2E."));
  form->addRow("", stream_);
}

void ParameterPanel::addSpeculativeRows(QFormLayout* form) {
  // Speculative sampling (the local engine; remote providers ignore it).
  auto* spec_row = new QWidget(this);
  auto* sh = new QHBoxLayout(spec_row);
  sh->setContentsMargins(0, 0, 0, 0);
  speculative_ = new QComboBox(spec_row);
  speculative_->setObjectName("speculativeCombo");
  speculative_->addItem(tr("Off"), QString());
  speculative_->addItem(tr("Self, int4 weights"), QString("self-int4"));
  speculative_->addItem(tr("Self, first 2 layers"), QString("self-layers:2"));
  speculative_->addItem(tr("Prompt lookup"), QString("lookup"));
  speculative_->addItem(tr("Draft model…"), QString("model"));
  speculative_->setToolTip(
      tr("Speculative sampling (local engine): a draft proposes K tokens, the model checks them "
         "in one pass. The output follows the model's own distribution; at temperature 0 it is "
         "token for token plain greedy decoding."));
  draft_k_ = new QSpinBox(spec_row);
  draft_k_->setObjectName("draftKSpin");
  draft_k_->setRange(1, 8);
  draft_k_->setPrefix("K ");
  draft_auto_ = new QCheckBox(tr("auto"), spec_row);
  draft_auto_->setObjectName("draftAutoCheck");
  draft_auto_->setToolTip(tr("K grows while every draft is accepted and shrinks when few are."));
  sh->addWidget(speculative_, 1);
  sh->addWidget(draft_k_);
  sh->addWidget(draft_auto_);
  form->addRow(tr("Spec&ulative"), spec_row);
  draft_path_ = new QLineEdit(this);
  draft_path_->setObjectName("draftPath");
  draft_path_->setPlaceholderText(tr("draft model file (same vocabulary)"));
  form->addRow("", draft_path_);
  const auto update = [this] {
    const bool on = !speculative_->currentData().toString().isEmpty();
    draft_k_->setEnabled(on && !draft_auto_->isChecked());
    draft_auto_->setEnabled(on);
    draft_path_->setVisible(speculative_->currentData().toString() == "model");
  };
  connect(speculative_, &QComboBox::currentIndexChanged, this, update);
  connect(draft_auto_, &QCheckBox::toggled, this, update);
}

void ParameterPanel::updateSuggestionButton() {
  const SuggestedParams& s = suggested_;
  const auto same = [](double a, double b) { return std::abs(a - b) < 1e-9; };
  const bool applied =
      (!s.temperature || same(temperature_->value(), *s.temperature)) &&
      (!s.top_p || same(top_p_->value(), *s.top_p)) && (!s.top_k || top_k_->value() == *s.top_k) &&
      (!s.repetition_penalty || same(repetition_penalty_->value(), *s.repetition_penalty)) &&
      (!s.max_tokens || max_tokens_->value() == *s.max_tokens);
  use_suggestions_->setEnabled(!applied);
  use_suggestions_->setText(applied ? tr("The model's defaults are in use")
                                    : tr("Use the model's defaults"));
}

SamplingParams ParameterPanel::params() const {
  SamplingParams p;
  p.temperature = temperature_->value();
  p.top_p = top_p_->value();
  p.top_k = top_k_->value();
  p.repetition_penalty = repetition_penalty_->value();
  p.max_tokens = max_tokens_->value();
  p.stream = stream_->isChecked();
  const QString spec = speculative_->currentData().toString();
  p.draft = (spec == "model" ? draft_path_->text().trimmed() : spec).toStdString();
  p.draft_k = draft_k_->value();
  p.draft_auto = draft_auto_->isChecked();
  return p;
}

void ParameterPanel::setParams(const SamplingParams& p) {
  temperature_->setValue(p.temperature);
  top_p_->setValue(p.top_p);
  top_k_->setValue(p.top_k);
  repetition_penalty_->setValue(p.repetition_penalty);
  max_tokens_->setValue(p.max_tokens);
  stream_->setChecked(p.stream);
  const QString draft = QString::fromStdString(p.draft);
  int index = draft.isEmpty() ? 0 : speculative_->findData(draft);
  if (index < 0) {  // a draft model's path
    index = speculative_->findData(QString("model"));
    draft_path_->setText(draft);
  }
  speculative_->setCurrentIndex(index);
  draft_k_->setValue(p.draft_k);
  draft_auto_->setChecked(p.draft_auto);
  draft_path_->setVisible(speculative_->currentData().toString() == "model");
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

void ParameterPanel::setSuggestions(const SuggestedParams& s) {
  suggested_ = s;
  suggestions_row_->setVisible(!s.empty());
  if (s.empty()) return;
  QStringList parts;
  if (s.temperature) parts << tr("temperature %1").arg(*s.temperature);
  if (s.top_k) parts << tr("top-k %1").arg(*s.top_k);
  if (s.top_p) parts << tr("top-p %1").arg(*s.top_p);
  if (s.repetition_penalty) parts << tr("repetition penalty %1").arg(*s.repetition_penalty);
  if (s.max_tokens) parts << tr("max tokens %1").arg(*s.max_tokens);
  suggestions_->setText(tr("The model suggests %1.").arg(parts.join(", ")));
  updateSuggestionButton();
}

void ParameterPanel::useSuggestions() {
  const SuggestedParams& s = suggested_;
  if (s.temperature) temperature_->setValue(*s.temperature);
  if (s.top_p) top_p_->setValue(*s.top_p);
  if (s.top_k) top_k_->setValue(*s.top_k);
  if (s.repetition_penalty) repetition_penalty_->setValue(*s.repetition_penalty);
  if (s.max_tokens) max_tokens_->setValue(*s.max_tokens);
}

}  // namespace ts::ui
