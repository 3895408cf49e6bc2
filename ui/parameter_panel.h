// Sampling parameters: temperature, top_p and max_tokens as sliders with spin boxes,
// stream on/off, speculative sampling (local engine), and the system prompt.
#pragma once
#include <QWidget>

#include "inference/stream/generation_request.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QDoubleSpinBox;
class QPlainTextEdit;
class QSlider;
class QSpinBox;

namespace ts::ui {

class ParameterPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ParameterPanel(QWidget* parent = nullptr);
  SamplingParams params() const;
  void setParams(const SamplingParams& params);
  QString systemPrompt() const;
  void setSystemPrompt(const QString& text);
  void focusFirstField();

 private:
  QDoubleSpinBox* temperature_;
  QSlider* temperature_slider_;
  QDoubleSpinBox* top_p_;
  QSlider* top_p_slider_;
  QSpinBox* max_tokens_;
  QSlider* max_tokens_slider_;
  QCheckBox* stream_;
  QComboBox* speculative_;  // off, self-int4, self-layers:2, lookup, a draft model
  QLineEdit* draft_path_;
  QSpinBox* draft_k_;
  QCheckBox* draft_auto_;
  QPlainTextEdit* system_prompt_;
};

}  // namespace ts::ui
