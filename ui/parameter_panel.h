// Sampling parameters: temperature, top_p and max_tokens as sliders with spin boxes, top_k
// and the repetition penalty, stream on/off, speculative sampling (local engine), and the
// system prompt. For a local model whose authors suggest settings (generation_config.json)
// a line shows them with "Use the model's defaults".
#pragma once
#include <QWidget>

#include "inference/stream/generation_request.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QDoubleSpinBox;
class QPlainTextEdit;
class QPushButton;
class QSlider;
class QSpinBox;

class QFormLayout;

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
  // The current model's suggested settings (empty: the line is hidden).
  void setSuggestions(const SuggestedParams& suggested);
  // Sets the suggested values (the others stay as they are).
  void useSuggestions();

 private:
  void addSamplingRows(QFormLayout* form);
  void addLengthRows(QFormLayout* form);
  void addSpeculativeRows(QFormLayout* form);
  void updateSuggestionButton();

  QDoubleSpinBox* temperature_;
  QSlider* temperature_slider_;
  QDoubleSpinBox* top_p_;
  QSlider* top_p_slider_;
  QSpinBox* top_k_;
  QDoubleSpinBox* repetition_penalty_;
  QWidget* suggestions_row_;
  QLabel* suggestions_;
  QPushButton* use_suggestions_;
  SuggestedParams suggested_;
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
